package conformance

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/sim"
)

// stalledCfg: acks=all, short request and delivery timeouts.
func stalledCfg(extra ...sim.Option) cfg {
	return cfg{partitions: 1, sim: extra, client: []client.Option{
		client.RequestTimeout(250 * time.Millisecond), client.DeliveryTimeout(900 * time.Millisecond),
		client.Linger(time.Millisecond), client.RetryBackoff(20 * time.Millisecond),
	}}
}

// appendedTimedOut matches a batch the leader appended (on its own) and
// answered REQUEST_TIMED_OUT: in its log above the high watermark.
func appendedTimedOut(pr sim.ProduceRecord) bool {
	return pr.Fault == "" && pr.Appended && pr.ErrorCode == codeRequestTimedOut
}

// checkOnce fails unless every record of prefix is in the log exactly once.
func (r *rig) checkOnce(t *testing.T, prefix string, n int) {
	t.Helper()
	got := r.inLog(t, prefix)
	if len(got) != n {
		t.Fatalf("%d of the %d %s records in the log\n%s", len(got), n, prefix, r.dump())
	}
	for id, k := range got {
		if k != 1 {
			t.Fatalf("%s is in the log %d times\n%s", id, k, r.dump())
		}
	}
}

// TestConformance13StalledFollower (issue 12, item 1): acks=all, an
// in-sync follower stalls, holding the high watermark behind the leader's
// log end past the request timeout. The batch is appended and answered
// REQUEST_TIMED_OUT; reads stop below it. At the delivery deadline it must
// be reported ErrOutcomeUnknown, never ErrNotWritten, and once the
// follower catches up the log holds it exactly once.
func TestConformance13StalledFollower(t *testing.T) {
	r := startT(t, stalledCfg())
	ctx := context.Background()
	r.produceTo(ctx, "warm", 50, one(0))
	r.check(t, r.wait(10*time.Second), "warm-up")
	r.replicated(t, 0)
	_, fs := r.followers(t, 0)
	r.check(t, r.c.SetFollowerLag(fs[0], time.Hour), "stall")
	r.produceTo(ctx, "b1", 5, one(0))
	r.check(t, r.wait(10*time.Second), "b1")
	if r.count(0, appendedTimedOut) == 0 {
		t.Fatalf("no batch appended and answered REQUEST_TIMED_OUT\n%s", r.dump())
	}
	acked, unknown, notWritten := r.outcomes(t, "b1")
	if acked != 0 || notWritten != 0 || unknown != 5 {
		t.Fatalf("b1: %d acknowledged, %d unknown, %d not written; want all 5 unknown\n%s", acked, unknown, notWritten, r.dump())
	}
	r.check(t, r.c.SetFollowerLag(fs[0], 0), "catch up")
	r.check(t, r.goesOn("after", 100), "after")
	_, err := r.verify()
	r.check(t, err, "read-back")
	r.checkOnce(t, "b1", 5)
}

// TestConformance13StalledFollowerRefusedNext: as above, with two batches
// B1, B2 appended and unknown, then B3 refused before append for its own
// reason (a record without key on a compacted topic: INVALID_RECORD), so
// the partition's sequence must be settled before anything goes on. B1 and
// B2 are in the leader's log above the high watermark: they must not be
// written a second time; B3 is ErrNotWritten and absent.
func TestConformance13StalledFollowerRefusedNext(t *testing.T) {
	r := startT(t, stalledCfg(sim.CompactTopic(topic)))
	ctx := context.Background()
	r.produceKeyed(ctx, "warm", 50, 8, 0)
	r.check(t, r.wait(10*time.Second), "warm-up")
	r.replicated(t, 0)
	_, fs := r.followers(t, 0)
	r.check(t, r.c.SetFollowerLag(fs[0], time.Hour), "stall")
	r.produceKeyed(ctx, "b1", 4, 4, 0)
	if !waitUntil(2*time.Second, func() bool {
		return r.count(0, func(pr sim.ProduceRecord) bool { return pr.Appended }) > 0 && len(r.produces(0)) > 0
	}) {
		t.Fatal("b1 not sent")
	}
	time.Sleep(20 * time.Millisecond)
	r.produceKeyed(ctx, "b2", 4, 4, 0)
	time.Sleep(20 * time.Millisecond)
	r.produceRec(ctx, "b3-0", nil, 0)
	r.check(t, r.wait(10*time.Second), "b1-b3")
	if r.count(0, appendedTimedOut) < 2 {
		t.Fatalf("want two batches appended and answered REQUEST_TIMED_OUT\n%s", r.dump())
	}
	if r.count(0, natural(func(pr sim.ProduceRecord) bool { return pr.ErrorCode == codeInvalidRecord && !pr.Appended })) == 0 {
		t.Fatalf("b3 was not refused INVALID_RECORD\n%s", r.dump())
	}
	for _, pfx := range []string{"b1", "b2"} {
		if acked, unknown, notWritten := r.outcomes(t, pfx); notWritten != 0 || acked+unknown != 4 {
			t.Fatalf("%s: %d acknowledged, %d unknown, %d not written; it is in the leader's log\n%s", pfx, acked, unknown, notWritten, r.dump())
		}
	}
	if acked, _, notWritten := r.outcomes(t, "b3"); acked != 0 || notWritten != 1 {
		t.Fatalf("b3: %d acknowledged, %d not written; want ErrNotWritten", acked, notWritten)
	}
	r.check(t, r.c.SetFollowerLag(fs[0], 0), "catch up")
	r.produceKeyed(ctx, "after", 100, 8, 0)
	r.check(t, r.wait(10*time.Second), "after")
	if n, errs := r.acked("after"); n != 100 {
		t.Fatalf("production did not carry on: %d of 100: %v\n%s", n, errs[:min(3, len(errs))], r.dump())
	}
	_, err := r.verify()
	r.check(t, err, "read-back")
	r.checkOnce(t, "b1", 4)
	r.checkOnce(t, "b2", 4)
	r.checkOnce(t, "b3", 0)
}

// TestConformance13ProcessedAfterDisconnect: the connection drops as soon
// as the leader has read the produce request, and the leader processes it
// later — after the delivery deadline — as Kafka completes a request it had
// read. Every attempt meets the same fate until the deadline. The batch must
// be reported ErrOutcomeUnknown, never ErrNotWritten, and be in the log
// exactly once.
func TestConformance13ProcessedAfterDisconnect(t *testing.T) {
	r := startT(t, stalledCfg())
	ctx := context.Background()
	r.produceTo(ctx, "warm", 50, one(0))
	r.check(t, r.wait(10*time.Second), "warm-up")
	r.check(t, r.c.ProcessAfterDisconnect(topic, 0, 1000, 1200*time.Millisecond), "late")
	r.produceTo(ctx, "b1", 5, one(0))
	r.check(t, r.wait(10*time.Second), "b1")
	acked, unknown, notWritten := r.outcomes(t, "b1")
	if acked != 0 || notWritten != 0 || unknown != 5 {
		t.Fatalf("b1: %d acknowledged, %d unknown, %d not written; want all 5 unknown\n%s", acked, unknown, notWritten, r.dump())
	}
	r.check(t, r.c.ClearFaults(topic, 0), "clear")
	late := func(pr sim.ProduceRecord) bool {
		return pr.Appended && strings.HasPrefix(pr.Fault, "connection dropped")
	}
	if !waitUntil(5*time.Second, func() bool { return r.count(0, late) > 0 }) {
		t.Fatalf("the request was never processed after its connection dropped\n%s", r.dump())
	}
	r.check(t, r.goesOn("after", 100), "after")
	_, err := r.verify()
	r.check(t, err, "read-back")
	r.checkOnce(t, "b1", 5)
}
