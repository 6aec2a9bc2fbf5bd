package conformance

import (
	"context"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/batching"
	"github.com/rollsafe/rollsafe/client"
)

// TestConformance27PinnedBatchMoved: a batch reported
// while it still waits in the producer's outbox for a broker connection (at
// its delivery deadline, or here by Purge(PurgeInFlight)) stays pinned until
// its attempt is answered, so that its bytes are never reused while they
// may still be written. When its partition then moves to another leader,
// the outbox answers it never written — and that answer must release it.
// It did not: Buffered() stayed above zero for good and every later batch
// of the partition waited the full send hold (batching.SendHold).
//
// Partitions 0 and 1 share a leader and one connection to it; with one
// request in flight per connection, partition 0's request, held 3 s by the
// leader, keeps partition 1's batch in the outbox. Purge reports both,
// outcome unknown; partition 1 moves; metadata (refreshed every 100 ms)
// tells the producer. Once the held request is answered nothing may stay
// buffered, and the log must hold the held batch once and the queued one
// not at all (never handed to a connection).
func TestConformance27PinnedBatchMoved(t *testing.T) {
	world(t, func(t *testing.T) {
		r := startT(t, cfg{partitions: 2, client: []client.Option{
			client.MaxInFlight(1), client.ProduceConnections(1), client.MetadataMaxAge(100 * time.Millisecond),
		}})
		ctx := context.Background()
		leader, _ := r.c.Leader(topic, 0)
		if l1, _ := r.c.Leader(topic, 1); l1 != leader {
			r.check(t, r.c.MoveLeader(topic, 1, leader), "partition 1 to partition 0's leader")
		}
		r.produceKeyed(ctx, "warm0", 5, 5, 0)
		r.produceKeyed(ctx, "warm1", 5, 5, 1)
		r.check(t, r.wait(10*time.Second), "warm-up")

		r.check(t, r.c.DelayProcessing(topic, 0, 1, 3*time.Second), "hold")
		r.produceKeyed(ctx, "held", 5, 5, 0)
		if !waitUntil(time.Second, func() bool { n, _ := r.c.PendingFaults(topic, 0); return n == 0 }) {
			t.Fatal("partition 0's request never reached its leader")
		}
		r.produceKeyed(ctx, "queued", 5, 5, 1)
		// Linger, then the loop queues the batch behind partition 0's
		// request (virtual time: the same instant on every run).
		time.Sleep(50 * time.Millisecond)
		r.check(t, r.p.Purge(ctx, client.PurgeInFlight), "purge")
		r.check(t, r.wait(time.Second), "purged callbacks")
		for _, prefix := range []string{"held", "queued"} {
			if acked, unknown, notWritten := r.outcomes(t, prefix); unknown != 5 {
				t.Fatalf("%s: %d acknowledged, %d unknown, %d not written; want all 5 purged in flight (outcome unknown)", prefix, acked, unknown, notWritten)
			}
		}

		to := r.otherInSync(t, 1, leader)
		r.check(t, r.c.MoveLeader(topic, 1, to), "partition 1 away")
		// The held request is answered 3 s after it reached the leader;
		// then neither batch may be buffered any more.
		if !waitUntil(10*time.Second, func() bool { n, _ := r.p.Buffered(); return n == 0 }) {
			n, b := r.p.Buffered()
			t.Fatalf("%d records (%d bytes) still buffered 10 s after partition 1 moved and every batch was reported", n, b)
		}

		// Partition 1's next batch goes out at once, not after the send
		// hold an unreleased batch imposed (virtual time: exact).
		start := time.Now()
		r.produceKeyed(ctx, "after", 5, 5, 1)
		r.check(t, r.wait(10*time.Second), "after")
		if took := time.Since(start); took >= batching.SendHold {
			t.Fatalf("partition 1's next records took %v, the send hold (%v) or more", took, batching.SendHold)
		}
		if n, _ := r.p.Buffered(); n != 0 {
			t.Fatalf("%d records buffered after everything was acknowledged", n)
		}

		_, err := r.verify()
		r.check(t, err, "read-back")
		held, queued := r.inLog(t, "held"), r.inLog(t, "queued")
		for i := range 5 {
			if n := held["held-"+itoa(i)]; n != 1 {
				t.Errorf("held-%d in the log %d times, want once (its request was appended after the purge)", i, n)
			}
			if n := queued["queued-"+itoa(i)]; n != 0 {
				t.Errorf("queued-%d in the log %d times, want absent (never handed to a connection)", i, n)
			}
		}
	})
}
