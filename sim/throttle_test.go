package sim

import (
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// A throttled broker answers a produce request at once with its throttle
// time, then reads nothing more from the connection for that long
// (KIP-219); other requests' responses carry none.
func TestThrottleProduce(t *testing.T) {
	c := newTestCluster(t, Brokers(1), Topic("t", 1, 1))
	tc := dial(t, c.Addrs()[0])
	if err := c.ThrottleProduce(0, 200*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	resp := tc.do(produceReq("t", 0, 1, makeBatch(t, spec{pid: -1, epoch: -1, seq: -1, values: vals("a", 1)}))).(*kmsg.ProduceResponse)
	if resp.ThrottleMillis != 200 {
		t.Fatalf("ThrottleMillis %d, want 200", resp.ThrottleMillis)
	}
	if p := resp.Topics[0].Partitions[0]; p.ErrorCode != 0 {
		t.Fatalf("throttled produce refused: %+v", p)
	}
	if d := time.Since(start); d > 150*time.Millisecond {
		t.Fatalf("the response itself waited %s", d)
	}
	meta := tc.do(kmsg.NewPtrMetadataRequest()).(*kmsg.MetadataResponse)
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Fatalf("the next request was answered after %s, inside the throttle", d)
	}
	if meta.ThrottleMillis != 0 {
		t.Fatalf("metadata throttled %d", meta.ThrottleMillis)
	}
	_ = c.ThrottleProduce(0, 0)
	resp = tc.do(produceReq("t", 0, 1, makeBatch(t, spec{pid: -1, epoch: -1, seq: -1, values: vals("b", 1)}))).(*kmsg.ProduceResponse)
	if resp.ThrottleMillis != 0 {
		t.Fatalf("ThrottleMillis %d after the throttle stopped", resp.ThrottleMillis)
	}
	if err := c.ThrottleProduce(9, time.Second); !errors.Is(err, ErrUnknownBroker) {
		t.Fatalf("unknown broker: %v", err)
	}
}
