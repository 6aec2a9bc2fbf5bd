package conformance

import (
	"context"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/sim"
)

// TestConformance15TruncatedThenRefilled: as in
// TestConformance15TruncatedBeforeDelivery, B1 is appended and its
// response lost, B2 behind it is acknowledged by the broker but cannot be
// delivered before B1 is settled, and an unclean election truncates B1-B3
// away. Then another producer writes to the new leader, so the offsets B2
// was acknowledged at now hold someone else's records, and B1's retry is
// answered OUT_OF_ORDER_SEQUENCE_NUMBER: the producer reads the partition
// to settle it. B1 is absent; B2's offsets exist but hold another
// producer's batch. B2 must not be delivered as success unless it is in
// the log; every record delivered is in the log exactly once, at the
// offset reported (verify checks offsets, so B2 delivered at the offsets
// the broker first gave would fail it: they hold another producer's
// records).
//
// The old client (afa526a) passes this one: B2's answer came on the
// connection where B1's was lost, with a correlation id other than the one
// awaited, so the connection was dropped and B2 never held acknowledged;
// it was written again. TestConformance15TimedOutThenRefilled
// is the schedule that reaches the old fault.
func TestConformance15TruncatedThenRefilled(t *testing.T) {
	world(t, func(t *testing.T) {
		r := startT(t, cfg{partitions: 1, client: []client.Option{
			client.RequestTimeout(600 * time.Millisecond), client.DeliveryTimeout(3 * time.Second),
			client.Linger(time.Millisecond), client.RetryBackoff(300 * time.Millisecond),
		}})
		ctx := context.Background()
		behind, slow := r.stopOneFollower(t)
		r.check(t, r.c.DropResponses(topic, 0, 1), "drop")
		r.produceTo(ctx, "b1", 3, one(0))
		time.Sleep(200 * time.Millisecond)
		r.produceTo(ctx, "b2", 3, one(0))
		time.Sleep(5 * time.Millisecond)
		r.produceTo(ctx, "b3", 3, one(0))
		ackedB2 := func(pr sim.ProduceRecord) bool {
			return pr.Appended && pr.ErrorCode == codeNone && pr.Outcome == "sent" && pr.BaseSequence == 53
		}
		if !waitUntil(3*time.Second, func() bool { return r.count(0, ackedB2) == 1 }) {
			t.Fatalf("b2 not acknowledged by the broker\n%s", r.dump())
		}
		lost, err := r.c.UncleanElect(topic, 0, behind)
		r.check(t, err, "unclean election")
		r.check(t, r.c.SetFollowerLag(slow, 0), "no lag")
		if len(lost) == 0 {
			t.Fatalf("the election truncated nothing\n%s", r.dump())
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

// otherOpts configures a second producer on the rig's cluster, over the
// rig's network (in-memory in a world, sockets otherwise).
func (r *rig) otherOpts() []client.Option {
	opts := []client.Option{client.Brokers(r.c.Addrs()...), client.Linger(time.Millisecond)}
	if r.dial != nil {
		opts = append(opts, client.Dialer(r.dial), client.SyncTest(r.settle))
	}
	return opts
}
