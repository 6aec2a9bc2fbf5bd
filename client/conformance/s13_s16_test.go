package conformance

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/client/readback"
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

// TestConformance13StalledFollower: acks=all, an
// in-sync follower stalls, holding the high watermark behind the leader's
// log end past the request timeout. The batch is appended and answered
// REQUEST_TIMED_OUT; reads stop below it. At the delivery deadline it must
// be reported ErrOutcomeUnknown, never ErrNotWritten, and once the
// follower catches up the log holds it exactly once.
func TestConformance13StalledFollower(t *testing.T) {
	world(t, func(t *testing.T) {
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
	})
}

// TestConformance13StalledFollowerRefusedNext: as above, with two batches
// B1, B2 appended and unknown, then B3 refused before append for its own
// reason (a record without key on a compacted topic: INVALID_RECORD), so
// the partition's sequence must be settled before anything goes on. B1 and
// B2 are in the leader's log above the high watermark: they must not be
// written a second time; B3 is ErrNotWritten and absent.
func TestConformance13StalledFollowerRefusedNext(t *testing.T) {
	t.Run("DescribeProducers", func(t *testing.T) { world(t, func(t *testing.T) { stalledRefusedNext(t) }) })
	// Without DescribeProducers (brokers before 2.8) nothing can prove B1
	// and B2 absent: they end unknown at the latest, never written twice.
	t.Run("WithoutDescribeProducers", func(t *testing.T) {
		world(t, func(t *testing.T) { stalledRefusedNext(t, sim.WithoutDescribeProducers()) })
	})
}

func stalledRefusedNext(t *testing.T, opts ...sim.Option) {
	r := startT(t, stalledCfg(append([]sim.Option{sim.CompactTopic(topic)}, opts...)...))
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
	world(t, func(t *testing.T) {
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
		// The first attempt lands after the producer reported: appended then.
		late := func(pr sim.ProduceRecord) bool {
			return pr.Appended && strings.HasPrefix(pr.Fault, "connection dropped")
		}
		if !waitUntil(5*time.Second, func() bool { return r.count(0, late) > 0 }) {
			t.Fatalf("the request was never processed after its connection dropped\n%s", r.dump())
		}
		r.check(t, r.c.ClearFaults(topic, 0), "clear")
		r.check(t, r.goesOn("after", 100), "after")
		_, err := r.verify()
		r.check(t, err, "read-back")
		r.checkOnce(t, "b1", 5)
	})
}

// TestConformance15TruncatedBeforeDelivery: replica F
// has stopped copying (out of the ISR) and the other follower copies each
// batch 20 ms late. B1 is appended but its response is lost; B2 behind it
// is acknowledged by the broker, yet cannot be delivered before B1 is
// settled. An unclean election then makes F the leader: B1-B3 are
// truncated away. B1's retries are lost until its delivery deadline, so
// the producer must read the partition to settle it, and finds B2 gone. B2
// was never delivered, so it must not be delivered as success unless
// written again — and no data loss is reported: nothing delivered was lost.
func TestConformance15TruncatedBeforeDelivery(t *testing.T) {
	world(t, func(t *testing.T) {
		r := startT(t, cfg{partitions: 1, client: []client.Option{
			client.RequestTimeout(600 * time.Millisecond), client.DeliveryTimeout(1500 * time.Millisecond),
			// B1 is retried only a backoff after B2's answer shows its
			// response lost: the window in which the election strikes.
			client.Linger(time.Millisecond), client.RetryBackoff(300 * time.Millisecond),
		}})
		ctx := context.Background()
		behind, slow := r.stopOneFollower(t)
		r.check(t, r.c.DropResponses(topic, 0, 1), "drop")
		r.produceTo(ctx, "b1", 3, one(0))
		// B2 and B3 come later, so that B1's delivery deadline, which makes
		// the producer settle the partition, comes well before theirs.
		time.Sleep(500 * time.Millisecond)
		r.produceTo(ctx, "b2", 3, one(0))
		time.Sleep(5 * time.Millisecond)
		r.produceTo(ctx, "b3", 3, one(0))
		dropped := func(pr sim.ProduceRecord) bool { return pr.Appended && pr.Outcome == "dropped" }
		ackedB2 := func(pr sim.ProduceRecord) bool {
			return pr.Appended && pr.ErrorCode == codeNone && pr.Outcome == "sent" && pr.BaseSequence == 53
		}
		if !waitUntil(3*time.Second, func() bool { return r.count(0, ackedB2) == 1 }) {
			t.Fatalf("b2 not acknowledged by the broker\n%s", r.dump())
		}
		// B1's retries are lost from now on: each connection resets with the
		// request unprocessed (not before the test ends).
		r.check(t, r.c.ProcessAfterDisconnect(topic, 0, 1000, time.Hour), "lose retries")
		lost, err := r.c.UncleanElect(topic, 0, behind)
		r.check(t, err, "unclean election")
		r.check(t, r.c.SetFollowerLag(slow, 0), "no lag")
		if len(lost) == 0 || r.count(0, dropped) != 1 {
			t.Fatalf("b1's response was not lost or the election truncated nothing (lost %v)\n%s", lost, r.dump())
		}
		if n, _ := r.acked("b2"); n != 0 {
			t.Fatalf("b2 delivered before b1 was settled\n%s", r.dump())
		}
		if !waitUntil(5*time.Second, func() bool { return r.resolved("b1") == 3 }) {
			t.Fatalf("b1 not reported by its delivery deadline\n%s", r.dump())
		}
		if left, err := r.c.PendingFaults(topic, 0); err != nil || left >= 1000 {
			t.Fatalf("no retry of b1 was lost (%d strikes left, %v)", left, err)
		}
		r.check(t, r.c.ClearFaults(topic, 0), "clear")
		r.check(t, r.wait(10*time.Second), "b1-b3")
		r.check(t, r.goesOn("after", 100), "after")
		_, err = r.verify()
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

// inFlightAcked counts the records of b2 and b3 the broker appended and
// answered without error (as recorded).
func (r *rig) inFlightAcked(p int32) int {
	n := 0
	for _, pr := range r.produces(p) {
		if pr.Appended && pr.ErrorCode == codeNone && pr.Outcome == "sent" && pr.Fault == "" && pr.BaseSequence >= 53 {
			n += int(pr.NumRecords)
		}
	}
	return n
}

// resolved counts the records of prefix the producer has reported on.
func (r *rig) resolved(prefix string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, pr := range r.produced {
		if strings.HasPrefix(pr.ID, prefix+"-") && (pr.Acked || r.errs[pr.ID] != nil) {
			n++
		}
	}
	return n
}

func (r *rig) isAcked(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.produced[r.index[id]].Acked
}

// TestConformance16CompactedAnchor: on a compacted
// topic, the producer's acknowledged batches A are followed by B, appended
// but answered REQUEST_TIMED_OUT (unknown), and C, acknowledged, whose keys
// supersede A's and B's. The cleaner then removes A whole — the producer's
// last delivered batch among them — without moving the log start offset
// (B stays: C is the active segment), and B's retry is answered
// OUT_OF_ORDER_SEQUENCE_NUMBER: the producer must settle the partition
// from what the leader shows, where the batch it last saw delivered is
// gone. Compaction is not data loss: no DataLoss is reported
// (StopOnDataLoss would stop the partition), production carries on,
// nothing is duplicated.
func TestConformance16CompactedAnchor(t *testing.T) {
	world(t, func(t *testing.T) {
		r := startT(t, cfg{partitions: 1, sim: []sim.Option{sim.CompactTopic(topic)},
			client: []client.Option{client.StopOnDataLoss(), client.Linger(time.Millisecond), client.RetryBackoff(200 * time.Millisecond)}})
		ctx := context.Background()
		for i := range 6 {
			r.produceKeyed(ctx, "a"+itoa(i), 8, 8, 0)
			r.check(t, r.wait(10*time.Second), "a")
		}
		r.replicated(t, 0)
		r.check(t, r.c.InjectErrorAfterAppend(topic, 0, codeRequestTimedOut, 1), "b unknown")
		// Slow answers: C is sent before B's answer comes back.
		leader, _ := r.c.Leader(topic, 0)
		r.check(t, r.c.DelayResponses(leader, 50*time.Millisecond), "delay")
		r.produceKeyed(ctx, "b", 8, 8, 0)
		time.Sleep(10 * time.Millisecond)
		r.produceKeyed(ctx, "c", 8, 8, 0)
		ackedC := func(pr sim.ProduceRecord) bool {
			return pr.Appended && pr.ErrorCode == codeNone && pr.BaseSequence == 56
		}
		if !waitUntil(2*time.Second, func() bool { return r.count(0, ackedC) == 1 }) {
			t.Fatalf("c not acknowledged behind b\n%s", r.dump())
		}
		r.check(t, r.c.DelayResponses(leader, 0), "undelay")
		r.replicated(t, 0)
		removed, err := r.c.Compact(topic, 0)
		r.check(t, err, "compact")
		if len(removed) == 0 || removed[len(removed)-1].To < 48 {
			t.Fatalf("compaction did not remove A's last batch: %v", removed)
		}
		r.check(t, r.c.InjectError(topic, 0, codeOutOfOrderSequence, 1), "desync")
		r.check(t, r.wait(10*time.Second), "b, c")
		if r.count(0, answered(codeOutOfOrderSequence, false)) == 0 {
			t.Fatalf("no OUT_OF_ORDER_SEQUENCE_NUMBER answered\n%s", r.dump())
		}
		if d := r.dataLosses(); len(d) != 0 {
			t.Fatalf("compaction reported as data loss: %v (compacted %v)", d, removed)
		}
		// What the cleaner removed is no longer expected in the log.
		r.forget(func(pr readback.Produced) bool {
			for _, rg := range removed {
				if pr.Acked && pr.Offset >= rg.From && pr.Offset < rg.To {
					return true
				}
			}
			return false
		})
		r.check(t, r.goesOn("after", 200), "after")
		_, err = r.verify()
		r.check(t, err, "read-back")
		if n := len(r.inLog(t, "c")); n != 8 {
			t.Fatalf("%d of c's 8 records in the log", n)
		}
		a, u, nw := r.outcomes(t, "b")
		t.Logf("compaction removed %v; b: %d delivered, %d unknown, %d not written; %d tail reads", removed, a, u, nw, r.h.tailReads(0))
	})
}

// forget drops the produced records drop selects from what verify expects.
func (r *rig) forget(drop func(readback.Produced) bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	kept := r.produced[:0]
	for _, pr := range r.produced {
		if !drop(pr) {
			kept = append(kept, pr)
		}
	}
	r.produced = kept
	clear(r.index)
	for i, pr := range r.produced {
		r.index[pr.ID] = i
	}
}

// TestConformance14LaggingNewLeader: follower f2 stalls
// (in sync, copying nothing), so batch B, appended by the leader and
// copied by f1, is answered REQUEST_TIMED_OUT. Leadership then moves to f1,
// whose high watermark trails B (f2 has not fetched it), and B's retry is
// answered OUT_OF_ORDER_SEQUENCE_NUMBER. Reads of the new leader stop below
// B: B must not be taken for missing — no renumbered second copy, no
// DataLoss (StopOnDataLoss would stop the partition), never ErrNotWritten
// — and once f2 catches up the log holds B exactly once.
func TestConformance14LaggingNewLeader(t *testing.T) {
	world(t, func(t *testing.T) {
		c := stalledCfg()
		c.client = append(c.client, client.StopOnDataLoss())
		r := startT(t, c)
		ctx := context.Background()
		r.produceTo(ctx, "warm", 50, one(0))
		r.check(t, r.wait(10*time.Second), "warm-up")
		r.replicated(t, 0)
		_, fs := r.followers(t, 0)
		f1, f2 := fs[0], fs[1]
		r.check(t, r.c.SetFollowerLag(f2, time.Hour), "stall f2")
		r.produceTo(ctx, "b", 5, one(0))
		if !waitUntil(3*time.Second, func() bool { return r.count(0, appendedTimedOut) > 0 }) {
			t.Fatalf("b not appended and answered REQUEST_TIMED_OUT\n%s", r.dump())
		}
		if !waitUntil(2*time.Second, func() bool {
			bs, err := r.c.ReplicaRecords(topic, 0, f1)
			n := 0
			for _, b := range bs {
				n += len(b.Records)
			}
			return err == nil && n >= 55
		}) {
			t.Fatal("f1 did not copy b")
		}
		r.check(t, r.c.MoveLeader(topic, 0, f1), "move")
		hw, leo, err := r.c.HighWatermark(topic, 0)
		r.check(t, err, "hw")
		if hw > 50 || leo < 55 {
			t.Fatalf("new leader's high watermark %d, log end %d: want it trailing b", hw, leo)
		}
		r.check(t, r.c.InjectError(topic, 0, codeOutOfOrderSequence, 1), "desync")
		r.check(t, r.wait(10*time.Second), "b")
		if r.count(0, answered(codeOutOfOrderSequence, false)) == 0 {
			t.Fatalf("no OUT_OF_ORDER_SEQUENCE_NUMBER answered\n%s", r.dump())
		}
		if _, _, nw := r.outcomes(t, "b"); nw != 0 {
			t.Fatalf("%d records of b reported not written; b is in the new leader's log\n%s", nw, r.dump())
		}
		r.check(t, r.c.SetFollowerLag(f2, 0), "catch up")
		if d := r.dataLosses(); len(d) != 0 {
			t.Fatalf("false data loss: %v", d)
		}
		r.check(t, r.goesOn("after", 100), "after")
		_, err = r.verify()
		r.check(t, err, "read-back")
		r.checkOnce(t, "b", 5)
		a, u, _ := r.outcomes(t, "b")
		t.Logf("b: %d delivered, %d unknown; %d tail reads", a, u, r.h.tailReads(0))
	})
}
