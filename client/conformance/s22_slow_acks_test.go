package conformance

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/sim"
)

// TestConformance22SlowAcksKeepUp: found on real Kafka (bench
// TestRealPeers, a loaded machine): each acks=all answer took a few hundred
// milliseconds, and rollsafe closed a batch every linger whether or not the
// partition could send it. Five batches of one to five records per round
// trip fell ever further behind a steady 2,000 records/s that kgo carried,
// and the backlog of small batches drained no faster than it built. A
// partition with a batch closed but not yet sent must let its open batch
// fill instead. Here every acknowledgement waits 150 ms for the followers;
// 20,000 records are offered at 2,000/s over six partitions, and all of
// them must be acknowledged within two seconds of the last.
func TestConformance22SlowAcksKeepUp(t *testing.T) {
	world(t, func(t *testing.T) {
		r := startT(t, cfg{partitions: 6, sim: []sim.Option{sim.FollowerLag(150 * time.Millisecond)}})
		ctx := context.Background()
		r.produce(ctx, "warm", 60)
		r.check(t, r.wait(10*time.Second), "warm-up")
		for tick := range 2000 {
			r.produceTo(ctx, "load"+strconv.Itoa(tick), 10, func(i int) int32 { return int32(i % 6) })
			time.Sleep(5 * time.Millisecond)
		}
		r.check(t, r.wait(2*time.Second), "acknowledgements within 2 s of the last record")
		_, err := r.verify()
		r.check(t, err, "read-back")
	})
}
