package conformance

import (
	"context"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/sim"
)

// TestConformance15TimedOutThenRefilled (fails on afa526a): replica F has stopped copying (out of the ISR) and
// the other follower copies each batch 20 ms late; answers are slow, so B2
// and B3 are sent before B1's answer. B1 is appended and answered
// REQUEST_TIMED_OUT (unknown); B2 and B3 are acknowledged — the producer
// holds them, undelivered, behind B1. An unclean election makes F the
// leader: B1-B3 are truncated away, and another producer then writes at
// the offsets they had. B1's retry reaches F and is answered
// OUT_OF_ORDER_SEQUENCE_NUMBER, so the producer reads the partition to
// settle it: B1 is absent, and so are B2 and B3 — their offsets hold the
// other producer's records. Acknowledged but undelivered, they must be
// written again, not delivered as success: the old client's read skipped
// acknowledged batches and delivered B2 and B3 at offsets holding someone
// else's records. Every record delivered is in the log exactly once, at
// its reported offset, and no data loss is reported (nothing delivered was
// lost).
func TestConformance15TimedOutThenRefilled(t *testing.T) {
	world(t, func(t *testing.T) {
		r := startT(t, cfg{partitions: 1, client: []client.Option{
			client.RequestTimeout(600 * time.Millisecond), client.DeliveryTimeout(6 * time.Second),
			client.Linger(time.Millisecond), client.RetryBackoff(1500 * time.Millisecond),
		}})
		ctx := context.Background()
		behind, slow := r.stopOneFollower(t)
		r.check(t, r.c.InjectErrorAfterAppend(topic, 0, codeRequestTimedOut, 1), "b1 unknown")
		// Slow answers: B2 is sent before B1's answer comes back.
		leader, _ := r.c.Leader(topic, 0)
		r.check(t, r.c.DelayResponses(leader, 300*time.Millisecond), "delay")
		r.produceTo(ctx, "b1", 3, one(0))
		time.Sleep(100 * time.Millisecond)
		r.produceTo(ctx, "b2", 3, one(0))
		time.Sleep(5 * time.Millisecond)
		r.produceTo(ctx, "b3", 3, one(0))
		ackedB2 := func(pr sim.ProduceRecord) bool {
			return pr.Appended && pr.ErrorCode == codeNone && pr.Outcome == "sent" && pr.BaseSequence == 53
		}
		if !waitUntil(3*time.Second, func() bool { return r.count(0, ackedB2) == 1 }) {
			t.Fatalf("b2 not acknowledged by the broker\n%s", r.dump())
		}
		// B2's answer reaches the producer (B1's, REQUEST_TIMED_OUT, before it).
		time.Sleep(400 * time.Millisecond)
		r.check(t, r.c.DelayResponses(leader, 0), "undelay")
		lost, err := r.c.UncleanElect(topic, 0, behind)
		r.check(t, err, "unclean election")
		r.check(t, r.c.SetFollowerLag(slow, 0), "no lag")
		if len(lost) == 0 {
			t.Fatalf("the election truncated nothing\n%s", r.dump())
		}
		if n, _ := r.acked("b2"); n != 0 {
			t.Fatalf("b2 delivered before b1 was settled\n%s", r.dump())
		}
		// Another producer fills the offsets B1-B3 had, before B1's retry.
		other, err := client.NewProducer(r.otherOpts()...)
		r.check(t, err, "other producer")
		var recs []*client.Record
		for i := range 20 {
			recs = append(recs, &client.Record{Topic: topic, Partition: 0, HasPartition: true, Value: []byte("other-" + itoa(i))})
		}
		r.check(t, other.ProduceSync(ctx, recs...).FirstErr(), "other producer")
		r.check(t, other.Close(ctx), "close other producer")
		r.check(t, r.c.InjectError(topic, 0, codeOutOfOrderSequence, 1), "desync b1's retry")
		r.check(t, r.wait(10*time.Second), "b1-b3")
		if r.count(0, answered(codeOutOfOrderSequence, false)) == 0 {
			t.Fatalf("b1's retry never answered OUT_OF_ORDER_SEQUENCE_NUMBER\n%s", r.dump())
		}
		r.check(t, r.goesOn("after", 100), "after")
		_, err = r.verify() // every delivered record at its reported offset, once
		r.check(t, err, "read-back")
		got := r.inLog(t, "b2")
		for i := range 3 {
			if id := "b2-" + itoa(i); r.isAcked(id) && got[id] != 1 {
				t.Fatalf("%s delivered as success, in the log %d times; truncated %v\n%s", id, got[id], lost, r.dump())
			}
		}
		if d := r.dataLosses(); len(d) != 0 {
			t.Fatalf("data loss reported for records never delivered before the truncation: %v", d)
		}
		for _, pfx := range []string{"b1", "b2", "b3"} {
			a, u, nw := r.outcomes(t, pfx)
			t.Logf("%s: %d delivered, %d unknown, %d not written, %d in the log", pfx, a, u, nw, len(r.inLog(t, pfx)))
		}
		if r.h.tailReads(0) == 0 {
			t.Fatalf("the partition was never read\n%s", r.dump())
		}
	})
}
