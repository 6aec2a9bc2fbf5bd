package sim

import (
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestCloseWithPendingRequests(t *testing.T) {
	c := newTestCluster(t, Brokers(2), Topic("t", 1, 2), FollowerLag(time.Hour))
	leader, _ := c.Leader("t", 0)
	tc := dial(t, c.Addrs()[leader])
	preq := produceReq("t", 0, -1, makeBatch(t, spec{pid: 1, seq: 0, values: vals("a", 1)}))
	pcorr := tc.send(preq)
	tf := dial(t, c.Addrs()[leader])
	freq := fetchReq("t", 0, 0, 10*time.Second)
	fcorr := tf.send(freq)
	waitState(t, c, "append", func() bool { return c.topics["t"].parts[0].logs[leader].leo == 1 })
	start := time.Now()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("Close took %s", d)
	}
	if _, err := tc.recv(preq, pcorr, 2*time.Second); err == nil {
		t.Fatal("pending acks=-1 produce answered after Close")
	}
	if _, err := tf.recv(freq, fcorr, 2*time.Second); err == nil {
		t.Fatal("parked fetch answered after Close")
	}
	if err := c.MoveLeader("t", 0, 0); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestSeedIsDeterministic(t *testing.T) {
	layout := func(seed int64) (string, []int32, int64) {
		c := newTestCluster(t, Brokers(3), Topic("t", 4, 2), Seed(seed))
		var leaders []int32
		for p := int32(0); p < 4; p++ {
			l, _ := c.Leader("t", p)
			leaders = append(leaders, l)
		}
		resp := dial(t, c.Addrs()[0]).do(kmsg.NewPtrInitProducerIDRequest()).(*kmsg.InitProducerIDResponse)
		return c.ClusterID(), leaders, resp.ProducerID
	}
	id1, l1, p1 := layout(42)
	id2, l2, p2 := layout(42)
	if id1 != id2 || p1 != p2 || len(l1) != len(l2) {
		t.Fatalf("seed 42 twice: %s %v %d vs %s %v %d", id1, l1, p1, id2, l2, p2)
	}
	for i := range l1 {
		if l1[i] != l2[i] {
			t.Fatalf("placement differs: %v vs %v", l1, l2)
		}
	}
	if id3, _, _ := layout(43); id3 == id1 {
		t.Fatal("different seeds, same cluster id")
	}
}

func TestSinkModeDiscards(t *testing.T) {
	c := newTestCluster(t, Brokers(1), Topic("t", 1, 1), SinkMode())
	tc := dial(t, c.Addrs()[0])
	raw := makeBatch(t, spec{pid: 1, seq: 0, values: vals("a", 3)})
	for i := int64(0); i < 3; i++ {
		// The same batch three times: no dedup in sink mode.
		if p := tc.produce("t", 0, -1, raw); p.ErrorCode != 0 || p.BaseOffset != 3*i {
			t.Fatalf("produce %d: %+v", i, p)
		}
	}
	if rb, _ := c.Records("t", 0); len(rb) != 0 {
		t.Fatalf("sink kept %d batches", len(rb))
	}
	bad := append([]byte(nil), raw...)
	bad[len(bad)-1] ^= 1
	if p := tc.produce("t", 0, -1, bad); p.ErrorCode != errCorruptMessage {
		t.Fatalf("corrupt batch in sink mode: %d", p.ErrorCode)
	}
}

func TestNewClusterBadConfig(t *testing.T) {
	for name, opts := range map[string][]Option{
		"no brokers":    {Brokers(0)},
		"replication":   {Brokers(2), Topic("t", 1, 3)},
		"partitions":    {Topic("t", 0, 1)},
		"dup topic":     {Topic("t", 1, 1), Topic("t", 1, 1)},
		"listen":        {Listen("nonsense")},
		"empty topic":   {Topic("", 1, 1)},
		"port overflow": {Brokers(3), Listen("127.0.0.1:65535")},
	} {
		if c, err := NewCluster(opts...); !errors.Is(err, ErrBadConfig) {
			if c != nil {
				_ = c.Close()
			}
			t.Errorf("%s: %v", name, err)
		}
	}
}
