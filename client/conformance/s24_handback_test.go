package conformance

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/sim"
)

// TestConformance24HandBackWithoutQueue: found on real Kafka (bench
// TestRealPeers' seed, every acks=all answer taking a replication round
// trip on a loaded machine). Kafka reads one request from a connection and
// answers it before it reads the next, so a produce request waits for every
// request queued before it on its connection. rollsafe pipelined up to five
// requests per partition — twenty on a connection to a broker leading four
// partitions, each carrying one batch — so every answer waited behind
// twenty replication round trips; when leadership moved back, the batches
// in flight to the old leader were answered NOT_LEADER_OR_FOLLOWER only
// after its whole queue, and their resends then queued behind the new
// leader's. Requests in flight per connection are now bounded like the
// peers' (five), each carrying the next batch of every partition waiting.
// Here each follower copies a batch 100 ms after its leader appended it
// (so every acks=all request costs 100 ms of its connection), 12
// partitions on 3 brokers take a steady 2,400 records/s, each 5 ms tick's
// records going to one partition (so batches close at different times on
// each, as on a real cluster), and partition 0's leadership moves to
// another replica. Before, twenty single-partition requests were queued on
// each connection and partition 0 went the remaining 3 s without an
// acknowledgement; now it is acknowledged again 1.0 s after the move (the
// old leader's five requests drained, the resend behind the new leader's
// five), and must be within 1.5 s; everything must be in the log once, in
// order.
func TestConformance24HandBackWithoutQueue(t *testing.T) {
	world(t, func(t *testing.T) {
		const parts = 12
		r := startT(t, cfg{partitions: parts, sim: []sim.Option{sim.FollowerLag(100 * time.Millisecond)}})
		ctx := context.Background()
		r.produceTo(ctx, "warm", 120, func(i int) int32 { return int32(i % parts) })
		r.check(t, r.wait(20*time.Second), "warm-up")

		// Each tick's records to one partition: batches close at
		// different times on each.
		stopLoad := r.steadyLoad(ctx, 12, func(tick int) int32 { return int32(tick % parts) })
		time.Sleep(2 * time.Second) // every pipeline full
		from, _ := r.c.Leader(topic, 0)
		to := r.otherInSync(t, 0, from)
		moved := time.Now()
		if err := r.c.MoveLeader(topic, 0, to); err != nil {
			t.Fatal(err)
		}
		time.Sleep(3 * time.Second)
		stopLoad()
		ended := time.Now()
		r.check(t, r.wait(20*time.Second), "acknowledgements")
		_, err := r.verify()
		r.check(t, err, "read-back")
		gap, at := r.longestGap(0, moved, ended)
		t.Logf("partition 0 moved from broker %d to %d; longest gap without an acknowledgement on it %v (from %v after the move)", from, to, gap, at.Sub(moved))
		if gap > 1500*time.Millisecond {
			t.Fatalf("partition 0 went %v without an acknowledgement after its leader moved from %d to %d (from %v after the move), want at most 1.5 s", gap, from, to, at.Sub(moved))
		}
		r.check(t, r.goesOn("after", 600), "after the move")
	})
}

// otherInSync returns a replica of partition p in its ISR other than not.
func (r *rig) otherInSync(t *testing.T, p int32, not int32) int32 {
	t.Helper()
	isr, err := r.c.ISR(topic, p)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range isr {
		if b != not {
			return b
		}
	}
	t.Fatalf("partition %d: no replica in sync but %d (ISR %v)", p, not, isr)
	return -1
}

// longestGap returns the longest time partition p went without an
// acknowledgement between from and to (a gap straddling from counts from
// from), and when it began.
func (r *rig) longestGap(p int32, from, to time.Time) (gap time.Duration, at time.Time) {
	r.mu.Lock()
	acks := slices.Clone(r.ackTimes[p])
	r.mu.Unlock()
	prev := from
	at = from
	for _, a := range acks {
		if a.After(to) {
			break
		}
		if d := a.Sub(prev); d > gap {
			gap, at = d, prev
		}
		if a.After(prev) {
			prev = a
		}
	}
	if d := to.Sub(prev); d > gap {
		gap, at = d, prev
	}
	return gap, at
}

// TestConformance24DeadlineWhileQueued: with requests in flight bounded per
// connection, a batch handed to the network can wait in the producer's
// outbox behind them, and its delivery deadline can pass there: it is
// reported ErrOutcomeUnknown (it may still be written) but stays queued,
// and is written when its turn comes. Its bytes must stay its own until
// then: released at the report, they would be reused for later batches and
// written under the waiting batch's header — duplicates or corrupt
// batches. Every broker here answers each request 300 ms late (each
// request costs its connection 300 ms), records expire after 150 ms, and
// 12 partitions take records one partition per 5 ms tick for 2 s; then the
// brokers recover and production goes on. Records must have been reported
// unknown, and the log must hold every acknowledged record once, in order,
// and no record twice.
func TestConformance24DeadlineWhileQueued(t *testing.T) {
	world(t, func(t *testing.T) {
		const parts = 12
		r := startT(t, cfg{partitions: parts, client: []client.Option{client.DeliveryTimeout(150 * time.Millisecond)}})
		ctx := context.Background()
		r.produceTo(ctx, "warm", 120, func(i int) int32 { return int32(i % parts) })
		r.check(t, r.wait(20*time.Second), "warm-up")
		for b := range int32(3) {
			if err := r.c.DelayResponses(b, 300*time.Millisecond); err != nil {
				t.Fatal(err)
			}
		}
		for tick := range 400 {
			r.produceTo(ctx, "slow"+strconv.Itoa(tick), 12, one(int32(tick%parts)))
			time.Sleep(5 * time.Millisecond)
		}
		for b := range int32(3) {
			if err := r.c.DelayResponses(b, 0); err != nil {
				t.Fatal(err)
			}
		}
		r.check(t, r.wait(30*time.Second), "outcomes")
		unknown := 0
		for tick := range 400 {
			_, u, _ := r.outcomes(t, "slow"+strconv.Itoa(tick))
			unknown += u
		}
		if unknown == 0 {
			t.Fatalf("no record was reported ErrOutcomeUnknown: nothing expired while queued\n%s", r.dump())
		}
		_, err := r.verify()
		r.check(t, err, "read-back")
		r.check(t, r.goesOn("after", 600), "after the slow brokers")
		_, err = r.verify()
		r.check(t, err, "final read-back")
		t.Logf("%d records reported unknown at their deadline", unknown)
	})
}
