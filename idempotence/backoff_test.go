package idempotence

import (
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

// TestBackoffGrowsWithFailures: each NOT_ENOUGH_REPLICAS in a row doubles
// the pause before the partition sends again, from RetryBackoff up to
// RetryBackoffMax, within ±20% jitter; nothing is sent before the pause
// ends; an acknowledgement brings the pause back to RetryBackoff.
func TestBackoffGrowsWithFailures(t *testing.T) {
	const base, most = 10 * time.Millisecond, 160 * time.Millisecond
	r := newRig(t, Config{RetryBackoff: base, RetryBackoffMax: most})
	r.enqueue(tp0, 3, 1)
	r.sendsAre(r.send(tp0), "1@3/0")
	pause := func(id BatchID, sent string, want time.Duration) time.Duration {
		t.Helper()
		r.answer(tp0, id, kafkaerr.NotEnoughReplicas, NotAppended, -1)
		got := r.pr.parts[tp0].retryAt.Sub(r.now)
		lo, hi := time.Duration(float64(want)*0.8), min(time.Duration(float64(want)*1.2), most)
		r.is(got >= lo && got <= hi, "pause %v after a failure, want %v ±20%% (at most %v)", got, want, most)
		r.now = r.now.Add(got - time.Nanosecond)
		r.sendsAre(r.send(tp0)) // not before the pause ends
		r.now = r.now.Add(time.Nanosecond)
		r.pr.tick(r.now)
		r.sendsAre(r.send(tp0), sent)
		return got
	}
	var pauses []time.Duration
	for i := range 8 {
		pauses = append(pauses, pause(1, "1@3/0", min(base<<i, most)))
	}
	t.Logf("pauses after 8 failures in a row: %v", pauses)
	r.ok(tp0, 1, 0)
	r.delivered(r.take(), "1@0")
	r.enqueue(tp0, 1, 2)
	r.sendsAre(r.send(tp0), "2@3/3")
	pause(2, "2@3/3", base)
}

// TestBackoffJitterSpreadsPartitions: two partitions failing at the same
// moment, as often as each other, come back at different times.
func TestBackoffJitterSpreadsPartitions(t *testing.T) {
	r := newRig(t, Config{RetryBackoff: 100 * time.Millisecond})
	r.enqueue(tp0, 1, 1)
	r.enqueue(tp1, 1, 2)
	r.sendsAre(r.send(tp0), "1@3/0")
	r.sendsAre(r.send(tp1), "2@3/0")
	r.answer(tp0, 1, kafkaerr.NotEnoughReplicas, NotAppended, -1)
	r.answer(tp1, 2, kafkaerr.NotEnoughReplicas, NotAppended, -1)
	a, b := r.pr.parts[tp0].retryAt, r.pr.parts[tp1].retryAt
	r.is(!a.Equal(b), "both partitions paused until %v", a)
	r.is(New(Config{}).cfg.RetryBackoffMax == DefaultRetryBackoffMax, "default RetryBackoffMax")
	static := New(Config{RetryBackoff: 2 * time.Second})
	r.is(static.cfg.RetryBackoff == DefaultRetryBackoffMax && static.cfg.RetryBackoffMax == DefaultRetryBackoffMax, "RetryBackoffMax below RetryBackoff: a static pause of RetryBackoffMax")
}

// TestBackoffOncePerRound: the batches in flight when the leader refuses
// them all fail together; the pause grows once for that round, not once
// per batch.
func TestBackoffOncePerRound(t *testing.T) {
	const base = 10 * time.Millisecond
	r := newRig(t, Config{RetryBackoff: base})
	r.enqueue(tp0, 1, 1, 2, 3)
	r.sendsAre(r.send(tp0), "1@3/0", "2@3/1", "3@3/2")
	for _, id := range []BatchID{1, 2, 3} {
		r.answer(tp0, id, kafkaerr.NotLeaderOrFollower, NotAppended, -1)
	}
	got := r.pr.parts[tp0].retryAt.Sub(r.now)
	r.is(got >= base*8/10 && got <= base*12/10, "pause %v after one round of three failures, want %v ±20%%", got, base)
}
