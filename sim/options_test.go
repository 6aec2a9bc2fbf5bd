package sim

import (
	"math"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestProducerEpochStartAndProducerIDs(t *testing.T) {
	c := newTestCluster(t, Topic("t", 2, 1), ProducerEpochStart(math.MaxInt16))
	tc := dial(t, c.Addrs()[0])
	init := func() *kmsg.InitProducerIDResponse {
		req := kmsg.NewPtrInitProducerIDRequest()
		req.ProducerID, req.ProducerEpoch = -1, -1
		return tc.do(req).(*kmsg.InitProducerIDResponse)
	}
	a, b := init(), init()
	if a.ErrorCode != 0 || a.ProducerEpoch != math.MaxInt16 || b.ProducerEpoch != math.MaxInt16 || a.ProducerID == b.ProducerID {
		t.Fatalf("InitProducerId answered (%d, %d, code %d) then (%d, %d)", a.ProducerID, a.ProducerEpoch, a.ErrorCode, b.ProducerID, b.ProducerEpoch)
	}
	if ids := c.ProducerIDs(); len(ids) != 0 {
		t.Fatalf("producer ids before any produce: %v", ids)
	}
	for i, pid := range []int64{b.ProducerID, a.ProducerID} {
		raw := makeBatch(t, spec{pid: pid, epoch: math.MaxInt16, seq: 0, values: vals("v", 2)})
		if got := tc.produce("t", int32(i), -1, raw); got.ErrorCode != 0 {
			t.Fatalf("produce with epoch %d: code %d", math.MaxInt16, got.ErrorCode)
		}
	}
	ids := c.ProducerIDs()
	if len(ids) != 2 || ids[0] != min(a.ProducerID, b.ProducerID) || ids[1] != max(a.ProducerID, b.ProducerID) {
		t.Fatalf("ProducerIDs = %v, want sorted [%d %d]", ids, a.ProducerID, b.ProducerID)
	}
	c.ExpireProducer(a.ProducerID)
	if ids := c.ProducerIDs(); len(ids) != 1 || ids[0] != b.ProducerID {
		t.Fatalf("after expiring %d: %v", a.ProducerID, ids)
	}
}

func TestProducerEpochStartDefaultAndNegative(t *testing.T) {
	for _, opts := range [][]Option{nil, {ProducerEpochStart(-5)}} {
		c := newTestCluster(t, opts...)
		tc := dial(t, c.Addrs()[0])
		req := kmsg.NewPtrInitProducerIDRequest()
		req.ProducerID, req.ProducerEpoch = -1, -1
		if got := tc.do(req).(*kmsg.InitProducerIDResponse); got.ProducerEpoch != 0 {
			t.Fatalf("epoch %d, want 0", got.ProducerEpoch)
		}
	}
}

func TestReplicas(t *testing.T) {
	c := newTestCluster(t, Brokers(3), Topic("t", 3, 2))
	for p := int32(0); p < 3; p++ {
		rs, err := c.Replicas("t", p)
		if err != nil || len(rs) != 2 || rs[0] == rs[1] {
			t.Fatalf("replicas of t/%d: %v, %v", p, rs, err)
		}
		if leader, _ := c.Leader("t", p); leader != rs[0] {
			t.Fatalf("t/%d led by %d, first replica %d", p, leader, rs[0])
		}
	}
	if _, err := c.Replicas("t", 3); err == nil {
		t.Fatal("no error for an unknown partition")
	}
}
