package idempotence

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

type ruleCase struct {
	name string
	cfg  Config
	run  func(r *rig)
}

func runRules(t *testing.T, cases []ruleCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.run(newRig(t, c.cfg)) })
	}
}

// Codes meaning "not appended": same id, epoch and sequence, rewound to the
// first unacknowledged batch, resent one at a time once the leader is known.
func TestRuleNotAppended(t *testing.T) {
	type code struct {
		code     kafkaerr.Code
		class    Class
		metadata bool
	}
	codes := []code{
		{kafkaerr.NotLeaderOrFollower, MaybeAppended, true}, // class ignored: decided by number
		{kafkaerr.UnknownTopicOrPartition, NotAppended, true},
		{kafkaerr.LeaderNotAvailable, NotAppended, true},
		{kafkaerr.FencedLeaderEpoch, NotAppended, true},
		{kafkaerr.UnknownLeaderEpoch, NotAppended, true},
		{kafkaerr.NotEnoughReplicas, MaybeAppended, false},
		{kafkaerr.KafkaStorageError, NotAppended, true},
		{kafkaerr.Transport, NotAppended, true}, // never written
		{999, NotAppended, false},
	}
	var cases []ruleCase
	for _, c := range codes {
		cases = append(cases, ruleCase{name: c.code.String(), run: func(r *rig) {
			r.enqueue(tp0, 2, 1, 2, 3)
			r.sendsAre(r.send(tp0), "1@3/0", "2@3/2", "3@3/4")
			r.answer(tp0, 1, c.code, c.class, -1)
			r.answer(tp0, 2, kafkaerr.OutOfOrderSequenceNumber, NotAppended, -1)
			r.answer(tp0, 3, kafkaerr.OutOfOrderSequenceNumber, NotAppended, -1)
			ev := r.take()
			r.is(len(find[RefreshMetadata](ev)) == map[bool]int{true: 1, false: 0}[c.metadata], "refresh metadata: %v", ev)
			r.none(ev, "tail read", len(find[ReadTail](ev)))
			r.sendsAre(r.send(tp0)) // backing off
			r.later()
			if c.metadata {
				r.sendsAre(r.send(tp0)) // leader unknown
				r.take()
				r.pr.leaderChanged(tp0, 3, 8)
				r.is(r.pr.woken[tp0], "no wake after LeaderChanged")
				r.take()
			}
			s := r.send(tp0)
			r.sendsAre(s, "1@3/0")
			if c.metadata {
				r.is(s[0].Broker == 3 && s[0].LeaderEpoch == 8, "sent to %+v", s[0])
			}
			r.sendsAre(r.send(tp0)) // one in flight after an error
			r.ok(tp0, 1, 100)
			r.sendsAre(r.send(tp0), "2@3/2")
			r.ok(tp0, 2, 102)
			r.sendsAre(r.send(tp0), "3@3/4")
			r.ok(tp0, 3, 104)
			r.enqueue(tp0, 1, 4, 5)
			r.sendsAre(r.send(tp0), "4@3/6", "5@3/7") // pipelining again
			ev = r.take()
			r.delivered(ev, "1@100", "2@102", "3@104")
			r.none(ev, "bump", len(find[EpochBumped](ev)))
			r.none(ev, "failure", len(find[Failed](ev)))
		}})
	}
	runRules(t, cases)
}

// Unknown outcome: retried with the same id, epoch and sequence; never
// failed as not written, never renumbered.
func TestRuleMaybeAppended(t *testing.T) {
	var cases []ruleCase
	for _, c := range []struct {
		code  kafkaerr.Code
		class Class
	}{
		{kafkaerr.RequestTimedOut, NotAppended}, // class ignored: decided by number
		{kafkaerr.NotEnoughReplicasAfterAppend, NotAppendedFatal},
		{kafkaerr.Transport, MaybeAppended}, // connection lost after the write
		{kafkaerr.NetworkException, MaybeAppended},
		{998, MaybeAppended},
	} {
		cases = append(cases, ruleCase{name: c.code.String(), run: func(r *rig) {
			r.enqueue(tp0, 1, 1, 2)
			r.sendsAre(r.send(tp0), "1@3/0", "2@3/1")
			r.answer(tp0, 1, c.code, c.class, -1)
			r.answer(tp0, 2, kafkaerr.OutOfOrderSequenceNumber, NotAppended, -1)
			for range 3 {
				r.later()
				r.pr.leaderChanged(tp0, 1, 7)
				r.sendsAre(r.send(tp0), "1@3/0")
				r.answer(tp0, 1, c.code, c.class, -1)
			}
			r.later()
			r.pr.leaderChanged(tp0, 1, 7)
			r.sendsAre(r.send(tp0), "1@3/0")
			r.ok(tp0, 1, 40)
			r.sendsAre(r.send(tp0), "2@3/1")
			r.ok(tp0, 2, 41)
			ev := r.take()
			r.delivered(ev, "1@40", "2@41")
			r.none(ev, "failure", len(find[Failed](ev)))
			r.none(ev, "bump", len(find[EpochBumped](ev)))
			r.none(ev, "tail read", len(find[ReadTail](ev)))
		}})
	}
	runRules(t, cases)
}

func TestRuleDesync(t *testing.T) {
	runRules(t, []ruleCase{
		{name: "out of order behind the head is retried in order", run: func(r *rig) {
			r.enqueue(tp0, 1, 1, 2, 3)
			r.sendsAre(r.send(tp0), "1@3/0", "2@3/1", "3@3/2")
			r.answer(tp0, 1, kafkaerr.NotEnoughReplicas, NotAppended, -1)
			r.answer(tp0, 2, kafkaerr.OutOfOrderSequenceNumber, NotAppended, -1)
			r.answer(tp0, 3, kafkaerr.OutOfOrderSequenceNumber, NotAppended, -1)
			r.later()
			r.sendsAre(r.send(tp0), "1@3/0")
			r.ok(tp0, 1, 0)
			r.sendsAre(r.send(tp0), "2@3/1")
			ev := r.take()
			r.none(ev, "tail read", len(find[ReadTail](ev)))
			r.none(ev, "bump", len(find[EpochBumped](ev)))
		}},
		{name: "out of order at the head quarantines only its partition and resolves from the log", run: func(r *rig) {
			r.enqueue(tp0, 1, 1, 2, 3)
			r.sendsAre(r.send(tp0), "1@3/0", "2@3/1", "3@3/2")
			r.enqueue(tp1, 1, 7, 8)
			r.sendsAre(r.send(tp1), "7@3/0", "8@3/1")
			r.ok(tp0, 1, 10)
			r.answer(tp0, 2, kafkaerr.RequestTimedOut, MaybeAppended, -1)
			r.answer(tp0, 3, kafkaerr.OutOfOrderSequenceNumber, NotAppended, -1)
			r.later()
			r.sendsAre(r.send(tp0), "2@3/1")
			// The leader restarted and lost its window: the retry of 2 is out of order.
			r.answer(tp0, 2, kafkaerr.OutOfOrderSequenceNumber, NotAppended, -1)
			ev := r.take()
			rt := find[ReadTail](ev)
			r.is(len(rt) == 1 && rt[0].TP == tp0 && rt[0].FromOffset == 10, "read tail: %v", ev)
			r.sendsAre(r.send(tp0)) // quarantined
			// The other partition keeps flowing under its epoch meanwhile.
			r.ok(tp1, 7, 500)
			r.enqueue(tp1, 1, 10)
			r.sendsAre(r.send(tp1), "10@3/2")
			r.pr.tailRead(tp0, Tail{LogStartOffset: 0, HighWatermark: 13, Batches: []TailBatch{
				{BaseOffset: 10, ProducerID: 1000, Epoch: 3, BaseSequence: 0, Records: 1},
				{BaseOffset: 11, ProducerID: 1000, Epoch: 3, BaseSequence: 1, Records: 1},
				{BaseOffset: 12, ProducerID: 55, Epoch: 0, BaseSequence: 2, Records: 1},
			}})
			ev = r.take()
			r.delivered(ev, "7@500", "2@11")
			bumps := find[EpochBumped](ev)
			r.is(len(bumps) == 1 && bumps[0] == EpochBumped{TP: tp0, ProducerID: 1000, Epoch: 4}, "bumps %v", bumps)
			r.sendsAre(r.send(tp0), "3@4/0")
			// tp1's in-flight batch kept its epoch; it adopts 4 at its next boundary.
			r.ok(tp1, 8, 501)
			r.ok(tp1, 10, 502)
			r.enqueue(tp1, 1, 9)
			r.sendsAre(r.send(tp1), "9@4/0")
			r.is(len(find[EpochBumped](r.take())) == 1, "tp1 adoption not reported")
		}},
		{name: "unknown producer id resolves from the log start when nothing was acknowledged", run: func(r *rig) {
			r.enqueue(tp0, 1, 1)
			r.sendsAre(r.send(tp0), "1@3/0")
			r.answer(tp0, 1, kafkaerr.UnknownProducerID, NotAppended, -1)
			rt := find[ReadTail](r.take())
			r.is(len(rt) == 1 && rt[0].FromOffset == -1, "read tail %v", rt)
			r.pr.tailRead(tp0, Tail{HighWatermark: 0})
			r.later()
			r.sendsAre(r.send(tp0), "1@4/0")
		}},
		{name: "retention past the last acknowledged offset is no loss", run: func(r *rig) {
			r.enqueue(tp0, 1, 1, 2)
			r.sendsAre(r.send(tp0), "1@3/0", "2@3/1")
			r.ok(tp0, 1, 5)
			r.pr.respond(tp0, 2, Response{Code: kafkaerr.UnknownProducerID, LogStartOffset: 100}, r.now)
			rt := find[ReadTail](r.take())
			r.is(len(rt) == 1 && rt[0].FromOffset == 5, "read tail %v", rt)
			r.pr.tailRead(tp0, Tail{LogStartOffset: 100, HighWatermark: 120})
			ev := r.take()
			r.none(ev, "data loss", len(find[DataLoss](ev)))
			r.later()
			r.sendsAre(r.send(tp0), "2@4/0")
		}},
		{name: "stale epoch on a batch with an unknown outcome resolves from the log", run: func(r *rig) {
			r.enqueue(tp0, 1, 1)
			r.send(tp0)
			r.answer(tp0, 1, kafkaerr.Transport, MaybeAppended, -1)
			r.later()
			r.pr.leaderChanged(tp0, 1, 7)
			r.sendsAre(r.send(tp0), "1@3/0")
			r.answer(tp0, 1, kafkaerr.InvalidProducerEpoch, NotAppended, -1)
			r.is(len(find[ReadTail](r.take())) == 1, "no tail read")
			r.pr.tailRead(tp0, Tail{HighWatermark: 1, Batches: []TailBatch{{BaseOffset: 0, ProducerID: 1000, Epoch: 3, BaseSequence: 0, Records: 1}}})
			r.delivered(r.take(), "1@0")
			r.is(r.pr.Idle(), "not idle")
		}},
		{name: "stale epoch on a batch known not appended resends it under the current epoch", run: func(r *rig) {
			r.enqueue(tp0, 1, 1, 2)
			r.sendsAre(r.send(tp0), "1@3/0", "2@3/1")
			r.answer(tp0, 1, kafkaerr.InvalidProducerEpoch, NotAppended, -1)
			r.sendsAre(r.send(tp0)) // draining
			r.answer(tp0, 2, kafkaerr.InvalidProducerEpoch, NotAppended, -1)
			ev := r.take()
			r.none(ev, "tail read", len(find[ReadTail](ev)))
			r.sendsAre(r.send(tp0), "1@4/0")
			r.ok(tp0, 1, 0)
			r.sendsAre(r.send(tp0), "2@4/1")
		}},
		{name: "epoch per producer id: other partitions' old-epoch batches come back stale without duplicates", run: func(r *rig) {
			r.enqueue(tp0, 1, 1)
			r.enqueue(tp1, 1, 7, 8)
			r.sendsAre(r.send(tp0), "1@3/0")
			r.sendsAre(r.send(tp1), "7@3/0", "8@3/1")
			r.answer(tp1, 7, kafkaerr.RequestTimedOut, MaybeAppended, -1) // in fact appended at 0
			r.answer(tp1, 8, kafkaerr.OutOfOrderSequenceNumber, NotAppended, -1)
			// tp0 bumps to 4 and writes under it.
			r.answer(tp0, 1, kafkaerr.UnknownProducerID, NotAppended, -1)
			r.pr.tailRead(tp0, Tail{})
			r.later()
			r.sendsAre(r.send(tp0), "1@4/0")
			r.ok(tp0, 1, 0)
			r.take()
			// The broker now rejects epoch 3 for this producer id everywhere.
			r.pr.leaderChanged(tp1, 2, 9)
			r.sendsAre(r.send(tp1), "7@3/0")
			r.answer(tp1, 7, kafkaerr.InvalidProducerEpoch, NotAppended, -1)
			rt := find[ReadTail](r.take())
			r.is(len(rt) == 1 && rt[0].TP == tp1, "read tail %v", rt)
			r.pr.tailRead(tp1, Tail{HighWatermark: 1, Batches: []TailBatch{{BaseOffset: 0, ProducerID: 1000, Epoch: 3, BaseSequence: 0, Records: 1}}})
			r.delivered(r.take(), "7@0")
			r.sendsAre(r.send(tp1), "8@4/0") // adopts the current epoch, never used on tp1
		}},
	})
}

func TestRuleDataLoss(t *testing.T) {
	lose := func(r *rig) []Event {
		r.enqueue(tp0, 2, 1, 2, 3)
		r.sendsAre(r.send(tp0), "1@3/0", "2@3/2", "3@3/4")
		r.ok(tp0, 1, 0)
		r.ok(tp0, 2, 2)
		r.answer(tp0, 3, kafkaerr.OutOfOrderSequenceNumber, NotAppended, -1)
		rt := find[ReadTail](r.take())
		r.is(len(rt) == 1 && rt[0].FromOffset == 2, "read tail %v", rt)
		// An unclean leader election truncated the log to offset 2. A high
		// watermark below what was acknowledged may be a new leader's that
		// trails: the read is repeated a few times before it is believed.
		for range maxShortReads {
			r.pr.tailRead(tp0, Tail{LogStartOffset: 0, HighWatermark: 2, Described: true})
			ev := r.take()
			r.none(ev, "data loss from a short read", len(find[DataLoss](ev)))
			r.later()
			rt = find[ReadTail](r.take())
			r.is(len(rt) == 1 && rt[0].FromOffset == 2, "short read not repeated: %v", rt)
		}
		// The last delivered batch is gone: the log is read from the oldest
		// acknowledged batch remembered.
		r.pr.tailRead(tp0, Tail{LogStartOffset: 0, HighWatermark: 2, Described: true})
		rt = find[ReadTail](r.take())
		r.is(len(rt) == 1 && rt[0].FromOffset == 0, "read tail %v", rt)
		r.pr.tailRead(tp0, Tail{LogStartOffset: 0, HighWatermark: 2, Batches: []TailBatch{
			{BaseOffset: 0, ProducerID: 1000, Epoch: 3, BaseSequence: 0, Records: 2}}})
		ev := r.take()
		dl := find[DataLoss](ev)
		r.is(len(dl) == 1 && dl[0] == DataLoss{TP: tp0, FromOffset: 2, ToOffset: 3, Records: 2}, "data loss %v", ev)
		r.is(errors.Is(dl[0], ErrDataLoss) && dl[0].Error() != "", "DataLoss is not ErrDataLoss")
		return ev
	}
	runRules(t, []ruleCase{
		{name: "reported and the partition carries on", run: func(r *rig) {
			lose(r)
			r.later()
			r.sendsAre(r.send(tp0), "3@4/0")
		}},
		{name: "an offset below an acknowledged one reveals a truncation", run: func(r *rig) {
			r.enqueue(tp0, 2, 1, 2, 3)
			r.sendsAre(r.send(tp0), "1@3/0", "2@3/2", "3@3/4")
			r.ok(tp0, 1, 10)
			r.ok(tp0, 2, 12)
			// A new leader without the last two records (and without our
			// producer state) appends batch 3 where batch 2 stood.
			r.ok(tp0, 3, 12)
			ev := r.take()
			// Batch 2 cannot be where it was delivered (batch 3 is there):
			// its loss is reported at once. Batch 3 is delivered only
			// after the read (from the oldest acknowledged batch
			// remembered).
			r.delivered(ev, "1@10", "2@12")
			dl := find[DataLoss](ev)
			r.is(len(dl) == 1 && dl[0] == DataLoss{TP: tp0, FromOffset: 12, ToOffset: 13, Records: 2}, "data loss %v", dl)
			rt := find[ReadTail](ev)
			r.is(len(rt) == 1 && rt[0].FromOffset == 10, "read tail %v", ev)
			tail := []TailBatch{
				{BaseOffset: 10, ProducerID: 1000, Epoch: 3, BaseSequence: 0, Records: 2},
				{BaseOffset: 12, ProducerID: 1000, Epoch: 3, BaseSequence: 4, Records: 2}}
			r.pr.tailRead(tp0, Tail{LogStartOffset: 0, HighWatermark: 14, Batches: tail})
			ev = r.take()
			r.none(ev, "second data loss", len(find[DataLoss](ev)))
			r.delivered(ev, "3@12")
			r.later()
			r.enqueue(tp0, 1, 4)
			r.sendsAre(r.send(tp0), "4@4/0")
		}},
		{name: "records acknowledged without an offset still occupy the log", run: func(r *rig) {
			r.enqueue(tp0, 2, 1, 2, 3, 4)
			r.sendsAre(r.send(tp0), "1@3/0", "2@3/2", "3@3/4", "4@3/6")
			r.ok(tp0, 1, 10)
			r.answer(tp0, 2, kafkaerr.DuplicateSequenceNumber, Appended, -1) // somewhere at 12..13
			r.ok(tp0, 3, 14)                                                 // intact: no read
			ev := r.take()
			r.none(ev, "read tail", len(find[ReadTail](ev)))
			r.ok(tp0, 4, 12) // below 16: the log lost what stood at 12..15
			rt := find[ReadTail](r.take())
			r.is(len(rt) == 1, "a truncation hidden behind an offset-less ack is noticed: %v", rt)
		}},
		{name: "a retry acknowledged after later batches is no truncation", run: func(r *rig) {
			r.enqueue(tp0, 2, 1, 2)
			r.sendsAre(r.send(tp0), "1@3/0", "2@3/2")
			r.answer(tp0, 1, kafkaerr.RequestTimedOut, MaybeAppended, -1)
			r.ok(tp0, 2, 12)
			r.later()
			r.sendsAre(r.send(tp0), "1@3/0")
			r.ok(tp0, 1, 10) // the broker's dedup window answers with the original offset
			ev := r.take()
			r.delivered(ev, "1@10", "2@12")
			r.none(ev, "read tail", len(find[ReadTail](ev)))
		}},
		{name: "StopOnDataLoss stops the partition only", cfg: Config{StopOnDataLoss: true}, run: func(r *rig) {
			ev := lose(r)
			r.failed(ev, 3, ErrPartitionStopped, ErrDataLoss, ErrNotWritten)
			r.enqueue(tp0, 1, 4)
			r.failed(r.take(), 4, ErrPartitionStopped)
			r.sendsAre(r.send(tp0))
			r.enqueue(tp1, 1, 9)
			r.sendsAre(r.send(tp1), "9@3/0")
		}},
	})
}

func TestRuleOutcomes(t *testing.T) {
	runRules(t, []ruleCase{
		{name: "duplicate sequence number is success with unknown offset", run: func(r *rig) {
			r.enqueue(tp0, 1, 1)
			r.send(tp0)
			r.answer(tp0, 1, kafkaerr.DuplicateSequenceNumber, NotAppendedFatal, -1)
			r.delivered(r.take(), "1@-1")
		}},
		{name: "delivered in enqueue order", run: func(r *rig) {
			r.enqueue(tp0, 1, 1, 2)
			r.send(tp0)
			r.answer(tp0, 1, kafkaerr.RequestTimedOut, MaybeAppended, -1)
			r.ok(tp0, 2, 1)
			r.delivered(r.take())
			r.is(r.pr.Pending(tp0) == 2, "pending %d", r.pr.Pending(tp0))
			r.later()
			r.sendsAre(r.send(tp0), "1@3/0")
			r.ok(tp0, 1, 0)
			r.delivered(r.take(), "1@0", "2@1")
			r.is(r.pr.Idle() && r.pr.Pending(tp0) == 0, "not idle")
		}},
		{name: "at most five in flight", run: func(r *rig) {
			r.enqueue(tp0, 1, 1, 2, 3, 4, 5, 6, 7)
			r.is(len(r.send(tp0)) == 5, "not five")
			r.sendsAre(r.send(tp0))
			r.ok(tp0, 1, 0)
			r.sendsAre(r.send(tp0), "6@3/5")
		}},
		{name: "configured in-flight bound", cfg: Config{MaxInFlight: 2}, run: func(r *rig) {
			r.enqueue(tp0, 1, 1, 2, 3)
			r.sendsAre(r.send(tp0), "1@3/0", "2@3/1")
		}},
		{name: "sequence numbers wrap at MaxInt32", run: func(r *rig) {
			r.enqueue(tp0, 3, 1)
			r.send(tp0)
			r.ok(tp0, 1, 0)
			r.pr.parts[tp0].nextSeq = math.MaxInt32 - 1
			r.enqueue(tp0, 3, 2, 3)
			r.sendsAre(r.send(tp0), "2@3/2147483646", "3@3/1")
		}},
		{name: "non-retriable code fails the batch, then the partition bumps", run: func(r *rig) {
			r.enqueue(tp0, 1, 1, 2, 3)
			r.send(tp0)
			r.answer(tp0, 2, kafkaerr.TopicAuthorizationFailed, NotAppendedFatal, -1)
			ev := r.take()
			r.failed(ev, 2, ErrNotWritten)
			var ce *CodeError
			f := find[Failed](ev)[0]
			r.is(errors.As(f.Err, &ce) && ce.Code == kafkaerr.TopicAuthorizationFailed && ce.Error() != "", "code error %v", f.Err)
			r.answer(tp0, 3, kafkaerr.OutOfOrderSequenceNumber, NotAppended, -1)
			r.sendsAre(r.send(tp0)) // draining
			r.ok(tp0, 1, 0)
			r.later()
			r.sendsAre(r.send(tp0), "3@4/0")
		}},
		{name: "non-retriable code after an unknown outcome resolves from the log", run: func(r *rig) {
			r.enqueue(tp0, 1, 1)
			r.send(tp0)
			r.answer(tp0, 1, kafkaerr.RequestTimedOut, MaybeAppended, -1)
			r.later()
			r.sendsAre(r.send(tp0), "1@3/0")
			r.answer(tp0, 1, kafkaerr.InvalidRecord, NotAppendedFatal, -1)
			r.is(len(find[ReadTail](r.take())) == 1, "no tail read")
			r.pr.tailRead(tp0, Tail{HighWatermark: 0, Described: true}) // the leader holds nothing of ours
			r.failed(r.take(), 1, ErrNotWritten)
		}},
		{name: "an unknown outcome the broker cannot disprove stays unknown and is never rewritten", run: func(r *rig) {
			r.enqueue(tp0, 1, 1, 2)
			r.sendsAre(r.send(tp0), "1@3/0", "2@3/1")
			r.answer(tp0, 1, kafkaerr.RequestTimedOut, MaybeAppended, -1)
			r.answer(tp0, 2, kafkaerr.NotEnoughReplicas, NotAppended, -1)
			r.later()
			r.sendsAre(r.send(tp0), "1@3/0")
			r.answer(tp0, 1, kafkaerr.OutOfOrderSequenceNumber, NotAppended, -1)
			r.is(len(find[ReadTail](r.take())) == 1, "no tail read")
			// A broker without DescribeProducers: the read cannot show an
			// append above the high watermark, so absence proves nothing.
			r.pr.tailRead(tp0, Tail{HighWatermark: 0})
			ev := r.take()
			r.failed(ev, 1, ErrOutcomeUnknown)
			r.is(!errors.Is(find[Failed](ev)[0].Err, ErrNotWritten), "unprovable absence reported as not written")
			r.later()
			r.sendsAre(r.send(tp0), "2@4/0") // only the batch known not written is renumbered
		}},
		{name: "a batch the leader holds above the high watermark is read again, not rewritten", run: func(r *rig) {
			r.enqueue(tp0, 1, 1, 2)
			r.sendsAre(r.send(tp0), "1@3/0", "2@3/1")
			r.answer(tp0, 1, kafkaerr.RequestTimedOut, MaybeAppended, -1)
			r.answer(tp0, 2, kafkaerr.InvalidRecord, NotAppendedFatal, -1) // a hole after batch 1: a bump is needed
			r.failed(r.take(), 2, ErrNotWritten)
			r.later()
			r.sendsAre(r.send(tp0)) // batch 1 is resolved first
			r.is(len(find[ReadTail](r.take())) == 1, "no tail read")
			held := []ProducerState{{ProducerID: 1000, Epoch: 3, LastSequence: 0}}
			r.pr.tailRead(tp0, Tail{HighWatermark: 0, Described: true, Producers: held})
			ev := r.take()
			r.none(ev, "an outcome for batch 1 while the leader holds it", len(find[Failed](ev))+len(find[Delivered](ev)))
			r.sendsAre(r.send(tp0))
			r.later()
			r.is(len(find[ReadTail](r.take())) == 1, "no second read")
			r.pr.tailRead(tp0, Tail{HighWatermark: 1, Described: true, Producers: held,
				Batches: []TailBatch{{BaseOffset: 0, ProducerID: 1000, Epoch: 3, Records: 1}}})
			r.delivered(r.take(), "1@0")
		}},
		{name: "message too large: split in place, parts numbered under a new epoch", run: func(r *rig) {
			r.enqueue(tp0, 4, 1)
			r.enqueue(tp0, 1, 2)
			r.sendsAre(r.send(tp0), "1@3/0", "2@3/4")
			r.answer(tp0, 1, kafkaerr.MessageTooLarge, NotAppendedFatal, -1)
			r.answer(tp0, 2, kafkaerr.OutOfOrderSequenceNumber, NotAppended, -1)
			ns := find[NeedSplit](r.take())
			r.is(len(ns) == 1 && ns[0].ID == 1, "need split %v", ns)
			r.later()
			r.sendsAre(r.send(tp0))
			r.pr.split(tp0, 1, []Part{{ID: 11, Records: 2}, {ID: 12, Records: 2}})
			r.sendsAre(r.send(tp0), "11@4/0")
			r.ok(tp0, 11, 0)
			r.sendsAre(r.send(tp0), "12@4/2", "2@4/4")
		}},
		{name: "split into nothing fails the batch", run: func(r *rig) {
			r.enqueue(tp0, 4, 1)
			r.send(tp0)
			r.answer(tp0, 1, kafkaerr.MessageTooLarge, NotAppended, -1)
			r.pr.split(tp0, 1, nil)
			ev := r.take()
			r.failed(ev, 1, ErrNotWritten)
			var ce *CodeError
			r.is(errors.As(find[Failed](ev)[0].Err, &ce) && ce.Code == kafkaerr.MessageTooLarge, "not a too-large error")
		}},
		{name: "message too large after an unknown outcome is resolved first", run: func(r *rig) {
			r.enqueue(tp0, 4, 1)
			r.send(tp0)
			r.answer(tp0, 1, kafkaerr.RequestTimedOut, MaybeAppended, -1)
			r.later()
			r.send(tp0)
			r.answer(tp0, 1, kafkaerr.MessageTooLarge, NotAppended, -1)
			ev := r.take()
			r.none(ev, "split", len(find[NeedSplit](ev)))
			r.pr.tailRead(tp0, Tail{Described: true})
			r.is(len(find[NeedSplit](r.take())) == 1, "no split after resolution")
		}},
		{name: "epoch exhaustion asks for a new producer id", run: func(r *rig) {
			r.pr.setIdentity(1000, math.MaxInt16)
			r.enqueue(tp0, 1, 1)
			r.enqueue(tp1, 1, 2)
			r.sendsAre(r.send(tp0), "1@32767/0")
			r.answer(tp0, 1, kafkaerr.OutOfOrderSequenceNumber, NotAppended, -1)
			r.pr.tailRead(tp0, Tail{})
			r.is(len(find[NeedProducerID](r.take())) == 1, "no NeedProducerID")
			r.later()
			r.sendsAre(r.send(tp0))
			r.sendsAre(r.send(tp1), "2@32767/0") // others keep flowing
			r.pr.setIdentity(2000, 0)
			s := r.send(tp0)
			r.sendsAre(s, "1@0/0")
			r.is(s[0].ProducerID == 2000, "producer id %d", s[0].ProducerID)
			pid, epoch, ok := r.pr.Identity()
			r.is(pid == 2000 && epoch == 0 && ok, "identity %d %d", pid, epoch)
		}},
	})
}

func TestRuleLeaderMoveWithBatchesInFlight(t *testing.T) {
	r := newRig(t, Config{})
	r.enqueue(tp0, 1, 1, 2, 3)
	r.sendsAre(r.send(tp0), "1@3/0", "2@3/1", "3@3/2")
	r.pr.leaderChanged(tp0, 4, 8) // metadata moved the leader, no error seen yet
	r.enqueue(tp0, 1, 4)
	r.sendsAre(r.send(tp0)) // not while 1..3 are in flight to broker 1
	r.ok(tp0, 1, 0)
	r.sendsAre(r.send(tp0))
	r.ok(tp0, 2, 1)
	r.ok(tp0, 3, 2)
	s := r.send(tp0)
	r.sendsAre(s, "4@3/3")
	r.is(s[0].Broker == 4 && s[0].LeaderEpoch == 8, "sent to %+v", s[0])
	// Same leader again: no pause.
	r.pr.leaderChanged(tp0, 4, 8)
	r.enqueue(tp0, 1, 5)
	r.ok(tp0, 4, 3)
	r.sendsAre(r.send(tp0), "5@3/4")
}

func TestRuleNewProducerIDGoesAlone(t *testing.T) {
	pr := New(Config{})
	now := time.Unix(1, 0)
	pr.setIdentity(1, 0)
	pr.leaderChanged(tp0, 1, 0)
	for id := BatchID(1); id <= 3; id++ {
		pr.enqueue(tp0, id, 1, time.Time{}, time.Time{})
	}
	if s := pr.sendable(tp0, now); len(s) != 1 {
		t.Fatalf("first batch under an unknown producer id not alone: %v", s)
	}
	pr.respond(tp0, 1, Response{Code: kafkaerr.None, BaseOffset: 0}, now)
	if s := pr.sendable(tp0, now); len(s) != 2 {
		t.Fatalf("not pipelined after the first success: %v", s)
	}
}

func TestRuleDeadlines(t *testing.T) {
	deadline := func(r *rig) time.Time { return r.now.Add(3 * time.Second) }
	runRules(t, []ruleCase{
		{name: "a batch never written times out as not written", run: func(r *rig) {
			r.pr.enqueue(tp0, 1, 1, deadline(r), time.Time{})
			next, ok := r.pr.NextWake()
			r.is(ok && next.Equal(deadline(r)), "next wake %v", next)
			r.now = r.now.Add(5 * time.Second)
			r.pr.tick(r.now)
			r.failed(r.take(), 1, ErrDeliveryTimeout, ErrNotWritten)
			_, ok = r.pr.NextWake()
			r.is(!ok, "still a wake")
		}},
		{name: "an in-flight batch is reported unknown at its deadline; refused later, it leaves a hole and the partition bumps", run: func(r *rig) {
			r.pr.enqueue(tp0, 1, 1, deadline(r), time.Time{})
			r.enqueue(tp0, 1, 2)
			r.send(tp0)
			r.now = r.now.Add(5 * time.Second)
			r.pr.tick(r.now)
			ev := r.take()
			r.failed(ev, 1, ErrDeliveryTimeout, ErrOutcomeUnknown)
			r.is(!errors.Is(find[Failed](ev)[0].Err, ErrNotWritten), "in flight, yet reported not written")
			r.answer(tp0, 1, kafkaerr.NotEnoughReplicas, NotAppended, -1)
			r.answer(tp0, 2, kafkaerr.OutOfOrderSequenceNumber, NotAppended, -1)
			ev = r.take()
			r.none(ev, "a second outcome for batch 1", len(find[Failed](ev))+len(find[Delivered](ev)))
			r.later()
			r.sendsAre(r.send(tp0), "2@4/0")
		}},
		{name: "an unknown outcome is reported at the deadline; a read finding it settles the partition", run: func(r *rig) {
			r.pr.enqueue(tp0, 1, 1, deadline(r), time.Time{})
			r.enqueue(tp0, 1, 2)
			r.sendsAre(r.send(tp0), "1@3/0", "2@3/1")
			r.answer(tp0, 1, kafkaerr.RequestTimedOut, MaybeAppended, -1)
			r.answer(tp0, 2, kafkaerr.RequestTimedOut, MaybeAppended, -1)
			r.now = r.now.Add(5 * time.Second)
			r.pr.tick(r.now)
			ev := r.take()
			r.is(len(find[ReadTail](ev)) == 1, "no tail read")
			r.failed(ev, 1, ErrDeliveryTimeout, ErrOutcomeUnknown)
			r.sendsAre(r.send(tp0))
			r.pr.tailRead(tp0, Tail{HighWatermark: 2, Batches: []TailBatch{{BaseOffset: 0, ProducerID: 1000, Epoch: 3, Records: 1}, {BaseOffset: 1, ProducerID: 1000, Epoch: 3, BaseSequence: 1, Records: 1}}, Described: true})
			ev = r.take()
			r.delivered(ev, "2@1") // batch 1 was already reported
			r.none(ev, "failures", len(find[Failed](ev)))
		}},
		{name: "an unknown outcome reported at the deadline and absent from the log is not reported again", run: func(r *rig) {
			r.pr.enqueue(tp0, 1, 1, deadline(r), time.Time{})
			r.send(tp0)
			r.now = r.now.Add(5 * time.Second)
			r.answer(tp0, 1, kafkaerr.Transport, MaybeAppended, -1)
			r.later() // the deadline passes, the read waits for the backoff
			ev := r.take()
			r.failed(ev, 1, ErrDeliveryTimeout, ErrOutcomeUnknown)
			r.is(len(find[ReadTail](ev)) == 1, "no tail read")
			r.pr.tailRead(tp0, Tail{HighWatermark: 7, Batches: []TailBatch{{BaseOffset: 3, ProducerID: 1000, Epoch: 3, Records: 2}}, Described: true})
			ev = r.take()
			r.none(ev, "a second outcome", len(find[Failed](ev))+len(find[Delivered](ev)))
		}},
		{name: "an unreadable log reports the outcome unknown, never not written", run: func(r *rig) {
			r.pr.enqueue(tp0, 1, 1, deadline(r), time.Time{})
			r.pr.enqueue(tp0, 2, 1, r.now.Add(time.Hour), time.Time{})
			r.send(tp0)
			r.answer(tp0, 1, kafkaerr.RequestTimedOut, MaybeAppended, -1)
			r.answer(tp0, 2, kafkaerr.RequestTimedOut, MaybeAppended, -1)
			r.now = r.now.Add(5 * time.Second)
			r.pr.tick(r.now)
			ev := r.take()
			r.is(len(find[ReadTail](ev)) == 1, "no tail read")
			// The caller hears at the deadline, not after the read.
			r.failed(ev, 1, ErrDeliveryTimeout, ErrOutcomeUnknown)
			r.is(!errors.Is(find[Failed](ev)[0].Err, ErrNotWritten), "says not written")
			r.pr.tailRead(tp0, Tail{Err: errors.New("fetch: broker down")})
			ev = r.take()
			r.none(ev, "a second failure of batch 1", len(find[Failed](ev)))
			r.none(ev, "second tail read before the backoff", len(find[ReadTail](ev)))
			r.later()
			r.is(len(find[ReadTail](r.take())) == 1, "tail read not asked again") // 2 is still unresolved
			r.pr.tailRead(tp0, Tail{HighWatermark: 2, Batches: []TailBatch{{BaseOffset: 1, ProducerID: 1000, Epoch: 3, BaseSequence: 1, Records: 1}}})
			r.delivered(r.take(), "2@1")
		}},
		{name: "a failed read with nothing uncertain left moves on", run: func(r *rig) {
			r.enqueue(tp0, 1, 1)
			r.send(tp0)
			r.answer(tp0, 1, kafkaerr.OutOfOrderSequenceNumber, NotAppended, -1)
			r.pr.tailRead(tp0, Tail{Err: errors.New("nope")})
			r.later()
			r.sendsAre(r.send(tp0), "1@4/0")
		}},
		{name: "a non-retriable code after an unknown outcome with an unreadable log", run: func(r *rig) {
			r.pr.enqueue(tp0, 1, 1, deadline(r), time.Time{})
			r.send(tp0)
			r.answer(tp0, 1, kafkaerr.RequestTimedOut, MaybeAppended, -1)
			r.later()
			r.send(tp0)
			r.answer(tp0, 1, kafkaerr.InvalidRecord, NotAppendedFatal, -1)
			r.now = r.now.Add(5 * time.Second)
			r.pr.tick(r.now)
			r.pr.tailRead(tp0, Tail{Err: errors.New("nope")})
			ev := r.take()
			r.failed(ev, 1, ErrOutcomeUnknown, ErrDeliveryTimeout)
			var ce *CodeError
			r.is(errors.As(find[Failed](ev)[0].Err, &ce) && ce.Code == kafkaerr.InvalidRecord, "code error")
		}},
	})
}

func TestInputsValidatedAndStaleIgnored(t *testing.T) {
	r := newRig(t, Config{})
	r.enqueue(tp0, 1, 1)
	r.enqueue(tp0, 1, 1)
	r.failed(r.take(), 1, ErrInvalidBatch, ErrNotWritten)
	r.enqueue(tp0, 0, 2)
	r.failed(r.take(), 2, ErrInvalidBatch)
	other := TopicPartition{Topic: "x"}
	r.is(r.pr.sendable(other, r.now) == nil && r.pr.Pending(other) == 0, "unknown partition")
	r.pr.respond(other, 1, Response{}, r.now)
	r.pr.tailRead(other, Tail{})
	r.pr.split(other, 1, nil)
	r.pr.respond(tp0, 1, Response{}, r.now) // not in flight
	r.pr.respond(tp0, 77, Response{}, r.now)
	r.pr.tailRead(tp0, Tail{}) // not asked
	r.pr.split(tp0, 1, nil)    // not awaiting a split
	r.sendsAre(r.send(tp0), "1@3/0")
	r.ok(tp0, 1, 0)
	r.ok(tp0, 1, 0) // repeated
	r.delivered(r.take(), "1@0")
	r.is(r.pr.Idle(), "not idle")
	for _, c := range []Class{MaybeAppended, NotAppended, NotAppendedFatal, Appended, 9} {
		r.is(c.String() != "", "class name")
	}
	r.is(kafkaerr.Code(45).String() == "OUT_OF_ORDER_SEQUENCE_NUMBER" && kafkaerr.Code(4242).String() == "UNKNOWN_CODE_4242", "code names")
	r.is(stAwaitSplit.String() == "await-split" && status(99).String() != "", "status names")
}

func TestNoIdentityHolds(t *testing.T) {
	pr := New(Config{RetryBackoff: -1})
	pr.leaderChanged(tp0, 1, 0)
	pr.enqueue(tp0, 1, 1, time.Time{}, time.Time{})
	if s := pr.sendable(tp0, time.Unix(1, 0)); s != nil {
		t.Fatalf("sent without identity: %v", s)
	}
	pr.setIdentity(5, 0)
	if s := pr.sendable(tp0, time.Unix(1, 0)); len(s) != 1 || s[0].ProducerID != 5 {
		t.Fatalf("sends %v", s)
	}
	// No backoff configured: a retriable error resends at once.
	pr.respond(tp0, 1, Response{Code: kafkaerr.NotEnoughReplicas}, time.Unix(1, 0))
	if s := pr.sendable(tp0, time.Unix(1, 0)); len(s) != 1 {
		t.Fatalf("not resent at once: %v", s)
	}
}

func TestSplitRejectsBadParts(t *testing.T) {
	r := newRig(t, Config{})
	r.enqueue(tp0, 4, 1, 2)
	r.send(tp0)
	r.answer(tp0, 1, kafkaerr.MessageTooLarge, NotAppended, -1)
	r.answer(tp0, 2, kafkaerr.OutOfOrderSequenceNumber, NotAppended, -1)
	r.is(r.pr.split(tp0, 1, []Part{{ID: 2, Records: 1}, {ID: 3, Records: 0}, {ID: 4, Records: 4}, {ID: 4, Records: 1}}), "split refused")
	r.is(!r.pr.split(tp0, 1, nil), "split twice")
	ev := r.take()
	r.failed(ev, 3, ErrInvalidBatch)
	r.is(len(find[Failed](ev)) == 3, "failures %v", ev)
	r.later()
	r.sendsAre(r.send(tp0), "4@4/0")
}

func TestSplitAfterDeadline(t *testing.T) {
	r := newRig(t, Config{})
	r.pr.enqueue(tp0, 1, 4, r.now.Add(time.Second), time.Time{})
	r.send(tp0)
	r.answer(tp0, 1, kafkaerr.MessageTooLarge, NotAppended, -1)
	r.now = r.now.Add(2 * time.Second)
	r.pr.tick(r.now)
	ev := r.take()
	r.none(ev, "failure before the split", len(find[Failed](ev)))
	r.is(r.pr.split(tp0, 1, []Part{{ID: 2, Records: 2}, {ID: 3, Records: 2}}), "split refused")
	r.pr.tick(r.now)
	ev = r.take()
	r.failed(ev, 2, ErrDeliveryTimeout, ErrNotWritten)
	r.failed(ev, 3, ErrDeliveryTimeout, ErrNotWritten)
	r.is(r.pr.Idle(), "not idle")
}

func TestNotIdempotent(t *testing.T) {
	pr := New(Config{RetryBackoff: -1})
	now := time.Unix(1, 0)
	pr.setIdentity(-1, -1)
	pr.leaderChanged(tp0, 1, 0)
	pr.enqueue(tp0, 1, 2, time.Time{}, time.Time{})
	pr.enqueue(tp0, 2, 2, time.Time{}, time.Time{})
	s := pr.sendable(tp0, now)
	if len(s) != 1 || s[0].ProducerID != -1 || s[0].Epoch != -1 || s[0].BaseSequence != -1 {
		t.Fatalf("sends %+v", s)
	}
	pr.respond(tp0, 1, Response{Code: kafkaerr.TopicAuthorizationFailed, Class: NotAppendedFatal}, now)
	s = pr.sendable(tp0, now)
	if len(s) != 1 || s[0].ID != 2 || s[0].Epoch != -1 || s[0].BaseSequence != -1 {
		t.Fatalf("sends after a failure %+v", s)
	}
	for _, e := range pr.takeEvents() {
		if _, ok := e.(EpochBumped); ok {
			t.Fatalf("bumped without idempotence: %v", e)
		}
	}
}

// With acks=all a leader can append a batch, lose leadership while waiting
// for replication, and answer NOT_LEADER_OR_FOLLOWER: the caller says
// MaybeAppended, and a later INVALID_PRODUCER_EPOCH must not renumber the
// batch without reading the log first (the duplicate found by chaos seed 13).
func TestRuleNotLeaderAfterAppend(t *testing.T) {
	r := newRig(t, Config{})
	r.enqueue(tp0, 3, 1)
	r.sendsAre(r.send(tp0), "1@3/0")
	r.answer(tp0, 1, kafkaerr.NotLeaderOrFollower, MaybeAppended, -1)
	r.pr.leaderChanged(tp0, 2, 8)
	r.later()
	r.sendsAre(r.send(tp0), "1@3/0")
	r.answer(tp0, 1, kafkaerr.InvalidProducerEpoch, NotAppended, -1)
	ev := r.take()
	rt := find[ReadTail](ev)
	r.is(len(rt) == 1, "a stale epoch on a maybe-appended batch reads the log first: %v", ev)
	// The log holds the batch from the first attempt: delivered there, not resent.
	r.pr.tailRead(tp0, Tail{LogStartOffset: 0, HighWatermark: 3, Batches: []TailBatch{
		{BaseOffset: 0, ProducerID: 1000, Epoch: 3, BaseSequence: 0, Records: 3}}})
	r.delivered(r.take(), "1@0")
	r.later()
	r.sendsAre(r.send(tp0))
}

// A leader lost (metadata shows none) and then found elsewhere while a
// batch is in flight to the old one: nothing goes to the new leader until
// the old one has answered, so the partition never has two leaders' worth
// of batches in flight (they could land out of order).
func TestLeaderlessThenNewLeaderDrainsOld(t *testing.T) {
	r := newRig(t, Config{})
	r.pr.enqueue(tp0, 1, 1, time.Time{}, time.Time{})
	r.sendsAre(r.send(tp0), "1@3/0")
	r.pr.enqueue(tp0, 2, 1, time.Time{}, time.Time{})
	r.pr.leaderChanged(tp0, -1, -1)
	r.is(len(find[RefreshMetadata](r.take())) == 1, "no metadata refresh asked for a leaderless partition")
	r.sendsAre(r.send(tp0))
	r.pr.leaderChanged(tp0, 2, 8)
	r.sendsAre(r.send(tp0)) // batch 1 still in flight to broker 1
	r.ok(tp0, 1, 40)
	s := r.send(tp0)
	r.sendsAre(s, "2@3/1")
	r.is(s[0].Broker == 2 && s[0].LeaderEpoch == 8, "sent to %+v", s[0])
	r.pr.leaderChanged(tp0, 1, 7) // an older leader epoch: ignored
	r.is(r.pr.parts[tp0].leader == 2, "older leader epoch applied")
}

func TestRuleLogReads(t *testing.T) {
	runRules(t, []ruleCase{
		{name: "compaction removing a delivered batch is not data loss", run: func(r *rig) {
			r.enqueue(tp0, 2, 1, 2, 3)
			r.sendsAre(r.send(tp0), "1@3/0", "2@3/2", "3@3/4")
			r.ok(tp0, 1, 0)
			r.ok(tp0, 2, 2)
			r.answer(tp0, 3, kafkaerr.OutOfOrderSequenceNumber, NotAppended, -1)
			rt := find[ReadTail](r.take())
			r.is(len(rt) == 1 && rt[0].FromOffset == 2, "read tail %v", rt)
			// The cleaner removed batch 2 (offsets 2-3 unused now); a later
			// batch of ours at 6 is there, as is another producer's at 4.
			r.pr.tailRead(tp0, Tail{HighWatermark: 8, Described: true, Batches: []TailBatch{
				{BaseOffset: 4, ProducerID: 77, Epoch: 0, Records: 2},
				{BaseOffset: 6, ProducerID: 1000, Epoch: 3, BaseSequence: 4, Records: 2}}})
			ev := r.take()
			r.none(ev, "data loss", len(find[DataLoss](ev)))
			r.none(ev, "a read from the log start", len(find[ReadTail](ev)))
			r.delivered(ev, "3@6")
		}},
		{name: "a truncation whose offsets were reused is data loss", run: func(r *rig) {
			r.enqueue(tp0, 2, 1, 2, 3)
			r.sendsAre(r.send(tp0), "1@3/0", "2@3/2", "3@3/4")
			r.ok(tp0, 1, 0)
			r.ok(tp0, 2, 2)
			r.ok(tp0, 3, 2) // a new leader without batch 2 put batch 3 where it was
			ev := r.take()
			r.delivered(ev, "1@0", "2@2")
			// Batch 2 cannot be where it was delivered (batch 3 is
			// there): lost, reported at once; the read starts at the
			// oldest batch remembered.
			dl := find[DataLoss](ev)
			r.is(len(dl) == 1 && dl[0].FromOffset == 2 && dl[0].ToOffset == 3, "data loss %v", ev)
			rt := find[ReadTail](ev)
			r.is(len(rt) == 1 && rt[0].FromOffset == 0, "read tail %v", ev)
			r.pr.tailRead(tp0, Tail{HighWatermark: 4, Described: true, Batches: []TailBatch{
				{BaseOffset: 0, ProducerID: 1000, Epoch: 3, BaseSequence: 0, Records: 2},
				{BaseOffset: 2, ProducerID: 1000, Epoch: 3, BaseSequence: 4, Records: 2}}})
			ev = r.take()
			r.none(ev, "second data loss", len(find[DataLoss](ev)))
			r.delivered(ev, "3@2")
		}},
		{name: "an acknowledged batch not yet delivered that a truncation removed is written again, not delivered", run: func(r *rig) {
			r.enqueue(tp0, 2, 1, 2)
			r.sendsAre(r.send(tp0), "1@3/0", "2@3/2")
			r.answer(tp0, 1, kafkaerr.RequestTimedOut, MaybeAppended, -1)
			r.ok(tp0, 2, 2) // acknowledged, waits for batch 1
			r.later()
			r.sendsAre(r.send(tp0), "1@3/0")
			r.answer(tp0, 1, kafkaerr.OutOfOrderSequenceNumber, NotAppended, -1)
			r.is(len(find[ReadTail](r.take())) == 1, "no tail read")
			// The log lost everything (unclean election); the leader keeps
			// no state for us. A short log is believed after a few reads.
			for range maxShortReads {
				r.pr.tailRead(tp0, Tail{HighWatermark: 0, Described: true})
				r.later()
				r.is(len(find[ReadTail](r.take())) == 1, "short read not repeated")
			}
			r.pr.tailRead(tp0, Tail{HighWatermark: 0, Described: true})
			ev := r.take()
			r.none(ev, "a delivery of a batch the log does not hold", len(find[Delivered](ev)))
			r.none(ev, "data loss the caller never heard of", len(find[DataLoss](ev)))
			r.later()
			r.sendsAre(r.send(tp0), "1@4/0") // batch 1 proven absent: renumbered; 2 follows it
			r.ok(tp0, 1, 0)
			r.sendsAre(r.send(tp0), "2@4/2")
			r.ok(tp0, 2, 2)
			r.delivered(r.take(), "1@0", "2@2")
		}},
		{name: "a log the producer may not read leaves unknown outcomes unknown and moves on", run: func(r *rig) {
			r.enqueue(tp0, 1, 1, 2)
			r.sendsAre(r.send(tp0), "1@3/0", "2@3/1")
			r.answer(tp0, 1, kafkaerr.RequestTimedOut, MaybeAppended, -1)
			r.answer(tp0, 2, kafkaerr.NotEnoughReplicas, NotAppended, -1)
			r.later()
			r.sendsAre(r.send(tp0), "1@3/0")
			r.answer(tp0, 1, kafkaerr.OutOfOrderSequenceNumber, NotAppended, -1)
			r.is(len(find[ReadTail](r.take())) == 1, "no tail read")
			r.pr.tailRead(tp0, Tail{Unreadable: true, Err: errors.New("TOPIC_AUTHORIZATION_FAILED")})
			ev := r.take()
			r.failed(ev, 1, ErrOutcomeUnknown)
			r.none(ev, "another read", len(find[ReadTail](ev)))
			r.later()
			r.sendsAre(r.send(tp0), "2@4/0")
		}},
	})
}

// What a code means comes from one table (protocol's, after Kafka's Errors
// enum) and the producer's acks: NOT_LEADER_OR_FOLLOWER under acks=all may
// follow an append (the leader lost leadership while waiting for its
// followers), so a batch answered only that is never reported not written;
// under acks=1 it is.
func TestRuleCodesFollowAcks(t *testing.T) {
	expire := func(r *rig) []Event {
		r.pr.enqueue(tp0, 1, 1, r.now.Add(3*time.Second), time.Time{})
		r.sendsAre(r.send(tp0), "1@3/0")
		r.answer(tp0, 1, kafkaerr.NotLeaderOrFollower, MaybeAppended, -1)
		r.now = r.now.Add(5 * time.Second)
		r.pr.tick(r.now)
		return r.take()
	}
	runRules(t, []ruleCase{
		{name: "acks=all: unknown", run: func(r *rig) {
			ev := expire(r)
			r.failed(ev, 1, ErrDeliveryTimeout, ErrOutcomeUnknown)
		}},
		{name: "acks=1: not written", cfg: Config{LeaderAcks: true}, run: func(r *rig) {
			ev := expire(r)
			r.failed(ev, 1, ErrDeliveryTimeout, ErrNotWritten)
		}},
		{name: "a retriable code is retried, a non-retriable one is final", run: func(r *rig) {
			r.enqueue(tp0, 1, 1, 2)
			r.sendsAre(r.send(tp0), "1@3/0", "2@3/1")
			r.answer(tp0, 1, kafkaerr.CorruptMessage, NotAppendedFatal, -1) // retriable in Kafka, whatever the caller says
			r.answer(tp0, 2, kafkaerr.OutOfOrderSequenceNumber, NotAppended, -1)
			ev := r.take()
			r.none(ev, "a failure", len(find[Failed](ev)))
			r.later()
			r.sendsAre(r.send(tp0), "1@3/0")
			r.answer(tp0, 1, kafkaerr.TopicAuthorizationFailed, NotAppended, -1) // not retriable
			r.failed(r.take(), 1, ErrNotWritten)
		}},
	})
}

// A read made only to settle a batch that reached its deadline (no desync)
// leaves the sequence chain as it is when the log holds everything before
// the next unknown batch: that batch is resent unchanged — the broker
// appends it in order or recognises a copy that landed meanwhile (a request
// it had read before the connection dropped) — instead of being renumbered
// next to such a copy.
func TestRuleSettlingReadResendsUnchanged(t *testing.T) {
	runRules(t, []ruleCase{
		{name: "no hole: same epoch, same sequence", run: func(r *rig) {
			r.pr.enqueue(tp0, 1, 1, r.now.Add(3*time.Second), time.Time{})
			r.pr.enqueue(tp0, 2, 1, r.now.Add(time.Hour), time.Time{})
			r.sendsAre(r.send(tp0), "1@3/0", "2@3/1")
			r.answer(tp0, 1, kafkaerr.RequestTimedOut, MaybeAppended, -1)
			r.answer(tp0, 2, kafkaerr.Transport, MaybeAppended, -1)
			r.now = r.now.Add(5 * time.Second)
			r.pr.tick(r.now)
			ev := r.take()
			r.failed(ev, 1, ErrDeliveryTimeout, ErrOutcomeUnknown)
			r.is(len(find[ReadTail](ev)) == 1, "no tail read")
			r.pr.tailRead(tp0, Tail{HighWatermark: 1, Described: true,
				Batches:   []TailBatch{{BaseOffset: 0, ProducerID: 1000, Epoch: 3, Records: 1}},
				Producers: []ProducerState{{ProducerID: 1000, Epoch: 3, LastSequence: 0}}})
			ev = r.take()
			r.none(ev, "an epoch bump", len(find[EpochBumped](ev)))
			r.later()
			r.pr.leaderChanged(tp0, 1, 7) // the dropped connection asked for metadata
			r.sendsAre(r.send(tp0), "2@3/1")
		}},
		{name: "a hole (the expired batch is absent): what follows is renumbered", run: func(r *rig) {
			r.pr.enqueue(tp0, 1, 1, r.now.Add(3*time.Second), time.Time{})
			r.pr.enqueue(tp0, 2, 1, r.now.Add(time.Hour), time.Time{})
			r.sendsAre(r.send(tp0), "1@3/0", "2@3/1")
			r.answer(tp0, 1, kafkaerr.RequestTimedOut, MaybeAppended, -1)
			r.answer(tp0, 2, kafkaerr.NotEnoughReplicas, NotAppended, -1)
			r.now = r.now.Add(5 * time.Second)
			r.pr.tick(r.now)
			r.take()
			r.pr.tailRead(tp0, Tail{HighWatermark: 0, Described: true})
			r.later()
			r.sendsAre(r.send(tp0), "2@4/0")
		}},
	})
}

// A truncation below the whole history — more acknowledged batches lost
// than a partition remembers one by one (a lone leader's power cut,
// conformance 26): the run of our forgotten offsets just below the
// history is reported from where the log now ends. With another
// producer's records between ours there, that run is not known, and the
// report covers what the history shows (Records a lower bound).
func TestLossBelowTheHistory(t *testing.T) {
	for _, foreign := range []bool{false, true} {
		t.Run(fmt.Sprintf("foreign=%v", foreign), func(t *testing.T) {
			r := newRig(t, Config{})
			n := historySize + 10
			bases := ackTwoRecordBatches(r, n, foreign)
			r.enqueue(tp0, 2, BatchID(n+1))
			r.send(tp0)
			r.answer(tp0, BatchID(n+1), kafkaerr.OutOfOrderSequenceNumber, NotAppended, -1)
			// The log now ends at 20: every batch of ours from there on is gone.
			dl := readUntilLoss(r, Tail{LogStartOffset: 0, HighWatermark: 20, LogEndOffset: 20, Described: true})
			r.is(len(dl) == 1, "no data loss reported")
			want := DataLoss{TP: tp0, FromOffset: 20, ToOffset: bases[n-1] + 1, Records: int64(2*n - 10)}
			if foreign {
				oldest := bases[n-historySize]
				want = DataLoss{TP: tp0, FromOffset: oldest, ToOffset: bases[n-1] + 1, Records: 2 * historySize}
			}
			r.is(dl[0] == want, "data loss %v, want %v", dl[0], want)
		})
	}
}

// TestLossBelowTheHistoryRewritten: the truncation is found by the next
// batch, acknowledged where the lost ones were; the read shows it over
// the truncated offsets. Those offsets held acknowledged batches of ours,
// forgotten from the history: they are lost too, and reported (a read's
// high watermark above them is the producer's own rewrite, not proof that
// they are there).
func TestLossBelowTheHistoryRewritten(t *testing.T) {
	r := newRig(t, Config{})
	n := historySize + 10
	bases := ackTwoRecordBatches(r, n, false)
	// The log was cut back to offset 20; the next batch lands there.
	r.enqueue(tp0, 3, BatchID(n+1))
	r.sendsAre(r.send(tp0), fmt.Sprintf("%d@3/%d", n+1, 2*n))
	r.ok(tp0, BatchID(n+1), 20)
	dl := readUntilLoss(r, Tail{LogStartOffset: 0, HighWatermark: 23, LogEndOffset: 23, Described: true,
		Batches:   []TailBatch{{BaseOffset: 20, ProducerID: 1000, Epoch: 3, BaseSequence: int32(2 * n), Records: 3}},
		Producers: []ProducerState{{ProducerID: 1000, Epoch: 3, LastSequence: int32(2*n + 2)}}})
	r.is(len(dl) == 1, "no data loss reported")
	want := DataLoss{TP: tp0, FromOffset: 20, ToOffset: bases[n-1] + 1, Records: int64(2*n - 10)}
	r.is(dl[0] == want, "data loss %v, want %v", dl[0], want)
}

// ackTwoRecordBatches has n batches of two records acknowledged on tp0
// from offset 10 on (with a record of another producer after each when
// foreign) and returns their base offsets.
func ackTwoRecordBatches(r *rig, n int, foreign bool) []int64 {
	off := int64(10)
	var bases []int64
	for i := 1; i <= n; i++ {
		r.enqueue(tp0, 2, BatchID(i))
		r.send(tp0)
		r.ok(tp0, BatchID(i), off)
		bases = append(bases, off)
		off += 2
		if foreign {
			off++ // a record of another producer between ours
		}
	}
	r.take()
	return bases
}

// readUntilLoss answers every tail read of tp0 with tail, passing time
// between, until a DataLoss comes (at most 20 rounds), and returns it.
func readUntilLoss(r *rig, tail Tail) []DataLoss {
	var dl []DataLoss
	for range 20 {
		ev := r.take()
		if dl = find[DataLoss](ev); len(dl) > 0 {
			break
		}
		if len(find[ReadTail](ev)) == 0 {
			r.later()
			continue
		}
		r.pr.tailRead(tp0, tail)
	}
	return dl
}
