package idempotence

import (
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

// Kafka expires a producer by its last batch's largest record timestamp,
// and a restarted broker that forgot it accepts a resend at any sequence:
// an unknown outcome on a partition holding a batch stamped ¾ of
// ProducerIDExpiration ago is settled by a tail read, never by resending
// unchanged. Fresh stamps, or the guard turned off, resend unchanged.
func TestRuleOldStampsSettleByRead(t *testing.T) {
	day := 24 * time.Hour
	cases := []struct {
		name string
		cfg  Config
		age  time.Duration
		read bool
	}{
		{"stamped two days ago", Config{}, 2 * day, true},
		{"stamped 19 hours ago (past three quarters of a day)", Config{}, 19 * time.Hour, true},
		{"stamped 17 hours ago", Config{}, 17 * time.Hour, false},
		{"fresh", Config{}, 0, false},
		{"an hour ago with a two-hour expiration", Config{ProducerIDExpiration: 2 * time.Hour}, time.Hour + time.Minute, false},
		{"two hours ago with a two-hour expiration", Config{ProducerIDExpiration: 2 * time.Hour}, 2 * time.Hour, true},
		{"two days ago, guard off", Config{ProducerIDExpiration: -1}, 2 * day, false},
	}
	var rules []ruleCase
	for _, c := range cases {
		rules = append(rules, ruleCase{name: c.name, cfg: c.cfg, run: func(r *rig) {
			r.enqueueStamped(tp0, 1, r.now.Add(-c.age), 1, 2)
			if c.read {
				// Stamped long ago: one batch in flight at a time.
				r.sendsAre(r.send(tp0), "1@3/0")
				r.ok(tp0, 1, 10)
				r.delivered(r.take(), "1@10")
				r.sendsAre(r.send(tp0), "2@3/1")
			} else {
				r.sendsAre(r.send(tp0), "1@3/0", "2@3/1")
				r.ok(tp0, 1, 10)
				r.delivered(r.take(), "1@10")
			}
			r.answer(tp0, 2, kafkaerr.RequestTimedOut, MaybeAppended, -1)
			r.take()
			r.later() // past the backoff
			if !c.read {
				r.sendsAre(r.send(tp0), "2@3/1") // resent unchanged
				ev := r.take()
				r.none(ev, "tail read", len(find[ReadTail](ev)))
				return
			}
			r.sendsAre(r.send(tp0)) // held for the read
			ev := r.take()
			rt := find[ReadTail](ev)
			r.is(len(rt) == 1 && rt[0].FromOffset == 10, "no tail read from the last delivered batch: %v", ev)
			// The first attempt landed: found, delivered, never resent.
			r.pr.tailRead(tp0, Tail{LogStartOffset: 0, HighWatermark: 12, Described: true,
				Producers: []ProducerState{{ProducerID: 1000, Epoch: 3, LastSequence: 1}},
				Batches: []TailBatch{
					{BaseOffset: 10, ProducerID: 1000, Epoch: 3, BaseSequence: 0, Records: 1},
					{BaseOffset: 11, ProducerID: 1000, Epoch: 3, BaseSequence: 1, Records: 1},
				}})
			ev = r.take()
			r.delivered(ev, "2@11")
			r.none(ev, "epoch bump", len(find[EpochBumped](ev)))
			r.sendsAre(r.send(tp0))
		}})
	}
	runRules(t, rules)
}

// A read whose high watermark is below the leader's log end has not seen
// what the leader holds uncommitted — there the first copy of a batch may
// sit, on a leader that has forgotten the producer (its state shows
// nothing). Found on real Kafka (a paused follower held the high watermark
// back; the resend was appended a second time): such a read settles
// nothing; it is repeated until the high watermark reaches the log end,
// and a batch never found there is only then resent.
func TestRuleReadBelowLogEndSettlesNothing(t *testing.T) {
	const age = 48 * time.Hour
	start := func(r *rig) {
		r.enqueueStamped(tp0, 1, r.now.Add(-age), 1, 2)
		r.sendsAre(r.send(tp0), "1@3/0") // one at a time
		r.ok(tp0, 1, 10)
		r.delivered(r.take(), "1@10")
		r.sendsAre(r.send(tp0), "2@3/1")
		r.answer(tp0, 2, kafkaerr.RequestTimedOut, MaybeAppended, -1)
		r.take()
		r.later()
		r.sendsAre(r.send(tp0))
		rt := find[ReadTail](r.take())
		r.is(len(rt) == 1, "no tail read: %v", rt)
	}
	// The leader has forgotten the producer (no producer state), and its
	// high watermark (11) is below its log end (12).
	open := Tail{LogStartOffset: 0, HighWatermark: 11, LogEndOffset: 12, Described: true,
		Batches: []TailBatch{{BaseOffset: 10, ProducerID: 1000, Epoch: 3, BaseSequence: 0, Records: 1}}}
	runRules(t, []ruleCase{
		{name: "copy above the high watermark, then committed", run: func(r *rig) {
			start(r)
			r.pr.tailRead(tp0, open)
			ev := r.take()
			r.none(ev, "delivery", len(find[Delivered](ev)))
			r.sendsAre(r.send(tp0)) // not resent
			r.later()
			r.sendsAre(r.send(tp0))
			rt := find[ReadTail](r.take())
			r.is(len(rt) == 1, "the read is not repeated: %v", rt)
			closed := open
			closed.HighWatermark = 12
			closed.Batches = append(closed.Batches, TailBatch{BaseOffset: 11, ProducerID: 1000, Epoch: 3, BaseSequence: 1, Records: 1})
			r.pr.tailRead(tp0, closed)
			ev = r.take()
			r.delivered(ev, "2@11")
			r.sendsAre(r.send(tp0))
		}},
		{name: "log end reached, copy absent: resent", run: func(r *rig) {
			start(r)
			r.pr.tailRead(tp0, open)
			r.take()
			r.later()
			r.sendsAre(r.send(tp0))
			r.take()
			closed := open
			closed.HighWatermark = 12 // another producer's batch at 11
			r.pr.tailRead(tp0, closed)
			r.take()
			r.later()
			r.is(len(r.send(tp0)) == 1, "the batch proven absent is not resent")
		}},
		{name: "the high watermark never reaches the log end: the read counts as failed", run: func(r *rig) {
			start(r)
			for range maxOpenReads {
				r.pr.tailRead(tp0, open)
				r.take()
				r.later()
				r.sendsAre(r.send(tp0))
				rt := find[ReadTail](r.take())
				r.is(len(rt) == 1, "the read is not repeated: %v", rt)
			}
			r.pr.tailRead(tp0, open) // failed: still unknown, not resent, asked again
			r.take()
			r.sendsAre(r.send(tp0))
			r.later()
			r.sendsAre(r.send(tp0))
			rt := find[ReadTail](r.take())
			r.is(len(rt) == 1, "no read after the failed one: %v", rt)
		}},
	})
}

// A broker completes a request it read even after the connection dropped:
// an attempt left without any answer (kafkaerr.Transport) may land after a
// read taken at once, and a broker that has forgotten the producer (records
// stamped long ago) then takes the resend as a second copy. On such a
// partition the read that settles the attempt waits until the attempt
// would have been answered (AnswerTimeout after it was sent); an answered
// attempt (REQUEST_TIMED_OUT: the broker processed it) is read after the
// backoff alone. Found by chaos seed 15540 (the late append 0.1 ms after
// the read, the resend appended again once the expiry check forgot the
// producer).
func TestRuleNoAnswerReadWaitsForTheAnswerTimeout(t *testing.T) {
	const age = 48 * time.Hour
	cfg := Config{AnswerTimeout: 5 * time.Second}
	start := func(r *rig, code kafkaerr.Code) {
		r.enqueueStamped(tp0, 1, r.now.Add(-age), 1, 2)
		r.sendsAre(r.send(tp0), "1@3/0")
		r.ok(tp0, 1, 10)
		r.delivered(r.take(), "1@10")
		r.sendsAre(r.send(tp0), "2@3/1") // sent at r.now
		r.answer(tp0, 2, code, MaybeAppended, -1)
		r.take()
	}
	landed := Tail{LogStartOffset: 0, HighWatermark: 12, LogEndOffset: 12, Described: true,
		Producers: []ProducerState{{ProducerID: 1000, Epoch: 3, LastSequence: 1}},
		Batches: []TailBatch{
			{BaseOffset: 10, ProducerID: 1000, Epoch: 3, BaseSequence: 0, Records: 1},
			{BaseOffset: 11, ProducerID: 1000, Epoch: 3, BaseSequence: 1, Records: 1},
		}}
	runRules(t, []ruleCase{
		{name: "no answer: no read before the answer timeout", cfg: cfg, run: func(r *rig) {
			start(r, kafkaerr.Transport)
			for range 4 { // 4 s: past the backoff, short of the 5 s
				r.later()
				r.sendsAre(r.send(tp0))
				ev := r.take()
				r.none(ev, "tail read", len(find[ReadTail](ev)))
			}
			r.later()
			r.sendsAre(r.send(tp0))
			rt := find[ReadTail](r.take())
			r.is(len(rt) == 1, "no tail read once the answer timeout passed: %v", rt)
			r.pr.tailRead(tp0, landed)
			ev := r.take()
			r.delivered(ev, "2@11")
			r.sendsAre(r.send(tp0))
		}},
		{name: "an answer: read after the backoff", cfg: cfg, run: func(r *rig) {
			start(r, kafkaerr.RequestTimedOut)
			r.later()
			r.sendsAre(r.send(tp0))
			rt := find[ReadTail](r.take())
			r.is(len(rt) == 1, "no tail read after the backoff: %v", rt)
		}},
		{name: "fresh stamps: resent after the backoff", cfg: cfg, run: func(r *rig) {
			r.enqueue(tp0, 1, 1, 2)
			r.sendsAre(r.send(tp0), "1@3/0", "2@3/1")
			r.ok(tp0, 1, 10)
			r.delivered(r.take(), "1@10")
			r.answer(tp0, 2, kafkaerr.Transport, MaybeAppended, -1)
			r.take()
			r.pr.leaderChanged(tp0, 1, 7) // the metadata the failure asked for
			r.later()
			r.sendsAre(r.send(tp0), "2@3/1")
		}},
	})
}

// A broker that cannot show its log end (before Kafka 2.3) predates 2.5's
// sequence rules too: having forgotten a producer, it refuses that
// producer's batch at a sequence other than 0 (UNKNOWN_PRODUCER_ID) rather
// than append it as a new one. So a read from it that does not show an
// unknown batch stamped long ago — unprovable, the read may not reach the
// earlier attempt — leaves a resend unchanged safe unless the batch starts
// its epoch's sequence (0), where a broker that forgot the producer would
// take it as a new batch. Found on a real Kafka 2.2.2 (`rollsafe demo
// -kafka -kafka-version 2.2`: 3,082 records failed ErrOutcomeUnknown at a
// leader's controlled shutdown, none of them needed to).
func TestRuleNoLogEndOldStampsResendUnlessSequenceZero(t *testing.T) {
	const age = 48 * time.Hour
	run := func(r *rig, unknownID BatchID, want func(r *rig, ev []Event)) {
		r.enqueueStamped(tp0, 1, r.now.Add(-age), 1, 2)
		r.sendsAre(r.send(tp0), "1@3/0")
		if unknownID == 2 {
			r.ok(tp0, 1, 10)
			r.delivered(r.take(), "1@10")
			r.sendsAre(r.send(tp0), "2@3/1")
		}
		r.answer(tp0, unknownID, kafkaerr.RequestTimedOut, MaybeAppended, -1)
		r.take()
		r.later()
		r.sendsAre(r.send(tp0))
		rt := find[ReadTail](r.take())
		r.is(len(rt) == 1, "no tail read: %v", rt)
		tail := Tail{LogStartOffset: 0, HighWatermark: 10, LogEndOffset: -1}
		if unknownID == 2 {
			tail.HighWatermark = 11
			tail.Batches = []TailBatch{{BaseOffset: 10, ProducerID: 1000, Epoch: 3, BaseSequence: 0, Records: 1}}
		}
		r.pr.tailRead(tp0, tail)
		want(r, r.take())
	}
	runRules(t, []ruleCase{
		{name: "sequence 1: resent unchanged", run: func(r *rig) {
			run(r, 2, func(r *rig, ev []Event) {
				r.none(ev, "failure", len(find[Failed](ev)))
				r.later()
				r.sendsAre(r.send(tp0), "2@3/1")
			})
		}},
		{name: "sequence 0: outcome unknown", run: func(r *rig) {
			run(r, 1, func(r *rig, ev []Event) {
				r.failed(ev, 1, ErrOutcomeUnknown)
			})
		}},
	})
}
