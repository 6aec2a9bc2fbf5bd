package conformance

import (
	"context"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/sim"
)

// TestConformance04Kafka15591: KAFKA-15591. A leader with no state for the
// producer accepts any first sequence (Kafka 2.5+ until the fix), so if the
// first batch to a fresh partition is refused while a later one is already
// in flight, the later one lands first and the earlier is lost or
// reordered. The producer must keep the first batch under a producer id
// alone until it is acknowledged; with the fix the broker itself refuses.
func TestConformance04Kafka15591(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []sim.Option
	}{{"kafka-2.5", nil}, {"kafka-15591-fix", []sim.Option{sim.Kafka15591Fix()}}} {
		t.Run(tc.name, func(t *testing.T) {
			world(t, func(t *testing.T) {
				r := startT(t, cfg{partitions: 2, sim: tc.opts, client: []client.Option{client.BatchBytes(1 << 10), client.Linger(0)}})
				// The partition's first request is refused, not written.
				r.check(t, r.c.InjectError(topic, 0, codeNotLeader, 1), "inject")
				r.check(t, r.c.DelayResponses(0, 3*time.Millisecond), "delay")
				r.check(t, r.c.DelayResponses(1, 3*time.Millisecond), "delay")
				r.check(t, r.c.DelayResponses(2, 3*time.Millisecond), "delay")
				r.produceTo(context.Background(), "fresh", 3000, one(0))
				r.check(t, r.wait(20*time.Second), "fresh partition")
				r.check(t, r.goesOn("after", 200), "after")
				_, err := r.verify()
				r.check(t, err, "read-back")
				recs := r.produces(0)
				if len(recs) == 0 || recs[0].ErrorCode != codeNotLeader {
					t.Fatalf("the first batch was not refused\n%s", r.dump())
				}
				// No batch beyond sequence 0 reached the broker before
				// sequence 0 was written.
				for _, pr := range recs {
					if pr.BaseSequence == 0 && pr.Appended {
						break
					}
					if pr.BaseSequence > 0 {
						t.Fatalf("sequence %d reached the stateless leader before sequence 0 was written\n%s", pr.BaseSequence, r.dump())
					}
				}
			})
		})
	}
}

// TestConformance05RestartShrinksDedupWindow: a restarted broker loads a
// snapshot keeping only the last batch per producer. Five batches written
// but unanswered are retried after the restart: only the last is in the
// dedup window, the first meets OUT_OF_ORDER. The producer must resolve them
// from the log (they are all there) without writing any twice.
func TestConformance05RestartShrinksDedupWindow(t *testing.T) {
	world(t, func(t *testing.T) {
		r := startT(t, cfg{partitions: 1, client: []client.Option{client.BatchBytes(512), client.Linger(0)}})
		restart := r.unansweredThenRestartAlone(t, 5)
		r.check(t, r.goesOn("after", 200), "after")
		_, err := r.verify()
		r.check(t, err, "read-back")
		after := r.produces(0)[restart:]
		ooo := false
		for _, pr := range after {
			if pr.ErrorCode == codeOutOfOrderSequence && pr.Fault == "" {
				ooo = true
				break
			}
		}
		if !ooo {
			t.Fatalf("no retry met the shrunk window (OUT_OF_ORDER) after the restart\n%s", r.dump())
		}
		if r.h.tailReads(0) == 0 {
			t.Fatal("no tail read resolved the retried batches")
		}
	})
}

// unansweredThenRestartAlone is the fault of scenarios 05 and 21 on a
// one-partition rig (512-byte batches, no linger): 100 records warm up,
// then n batches are appended and left unanswered, the followers stop,
// the leader stops and comes back alone from its snapshot and leads, the
// producer settles, and the followers start again. It returns where the
// recorder stood at the restart.
func (r *rig) unansweredThenRestartAlone(t *testing.T, n int) (restart int) {
	t.Helper()
	ctx := context.Background()
	r.produceTo(ctx, "warm", 100, one(0))
	r.check(t, r.wait(10*time.Second), "warm-up")
	leader, _ := r.c.Leader(topic, 0)
	base := len(r.produces(0))
	r.check(t, r.c.DropResponses(topic, 0, n), "drop")
	r.produceTo(ctx, "fault", 300, one(0))
	// Wait until n batches are written and unanswered.
	if !waitUntil(10*time.Second, func() bool {
		k := 0
		for _, pr := range r.produces(0)[base:] {
			if pr.Appended {
				k++
			}
		}
		return k >= n
	}) {
		t.Fatalf("%d batches never in flight\n%s", n, r.dump())
	}
	// Followers first, then the leader: it comes back alone, from its
	// snapshot.
	for b := range int32(3) {
		if b != leader {
			r.check(t, r.c.StopBroker(b), "stop follower")
		}
	}
	r.check(t, r.c.StopBroker(leader), "stop leader")
	restart = len(r.produces(0))
	r.check(t, r.c.StartBroker(leader), "restart")
	if l, _ := r.c.Leader(topic, 0); l != leader {
		t.Fatalf("the restarted broker does not lead (leader %d)", l)
	}
	r.check(t, r.wait(20*time.Second), "after restart")
	for b := range int32(3) {
		if b != leader {
			r.check(t, r.c.StartBroker(b), "start follower")
		}
	}
	return restart
}
