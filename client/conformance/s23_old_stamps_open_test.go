package conformance

import (
	"context"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/sim"
)

// TestConformance23OldStampsAboveHighWatermark: Kafka's periodic producer
// expiry (producer.id.expiration.check.interval.ms) drops, at every check,
// a producer whose records are stamped longer ago than
// producer.id.expiration.ms — while it is writing. A batch the leader
// appended but could not commit (its followers stalled) is answered
// REQUEST_TIMED_OUT and sits above the high watermark, where no read can
// see it; the leader, having forgotten the producer, accepts a resend at
// any sequence. Found on real Kafka (kafkatest/conformance's random
// schedule 4 with records stamped 48 h ago: 15 duplicates after a paused
// broker). A read that stops short of the leader's log end must prove
// nothing absent. Here the expiry check runs every second, both followers
// stall for 20 seconds under 300 records stamped two days ago, then catch
// up: every record once, in order.
func TestConformance23OldStampsAboveHighWatermark(t *testing.T) {
	world(t, func(t *testing.T) {
		r := startT(t, cfg{partitions: 1,
			sim:    []sim.Option{sim.ProducerIDExpirationCheck(time.Second)},
			client: []client.Option{client.BatchBytes(512), client.Linger(0), client.RequestTimeout(2 * time.Second)}})
		r.age = 48 * time.Hour
		ctx := context.Background()
		r.produceTo(ctx, "warm", 100, one(0))
		r.check(t, r.wait(10*time.Second), "warm-up")
		r.replicated(t, 0)
		_, fs := r.followers(t, 0)
		for _, f := range fs {
			r.check(t, r.c.SetFollowerLag(f, time.Hour), "stall follower")
		}
		r.produceTo(ctx, "fault", 300, one(0))
		time.Sleep(20 * time.Second)
		for _, f := range fs {
			r.check(t, r.c.SetFollowerLag(f, 0), "resume follower")
		}
		r.check(t, r.goesOn("after", 200), "after")
		_, err := r.verify()
		r.check(t, err, "read-back")
		if n := r.count(0, natural(answered(codeRequestTimedOut, true))); n == 0 {
			t.Fatalf("no batch was answered REQUEST_TIMED_OUT above the high watermark\n%s", r.dump())
		}
		if r.h.tailReads(0) == 0 {
			t.Fatal("no tail read settled the timed-out batches")
		}
	})
}
