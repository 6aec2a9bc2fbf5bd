package idempotence

import (
	"errors"
	"testing"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

func TestRulePurge(t *testing.T) {
	runRules(t, []ruleCase{
		{name: "the queue: batches never sent fail not written, the one in flight goes on, numbering continues", run: func(r *rig) {
			r.pr.cfg.MaxInFlight = 1
			r.enqueue(tp0, 2, 1, 2, 3)
			r.sendsAre(r.send(tp0), "1@3/0")
			r.pr.purge(true, false)
			ev := r.take()
			r.failed(ev, 2, ErrPurged, ErrNotWritten)
			r.failed(ev, 3, ErrPurged, ErrNotWritten)
			r.is(len(find[Failed](ev)) == 2, "failed %v", ev)
			r.ok(tp0, 1, 10)
			r.delivered(r.take(), "1@10")
			r.enqueue(tp0, 2, 4)
			r.sendsAre(r.send(tp0), "4@3/2") // no hole: the same epoch goes on
		}},
		{name: "the queue leaves a sent batch every attempt of which was refused: it holds a sequence", run: func(r *rig) {
			r.enqueue(tp0, 1, 1, 2)
			r.sendsAre(r.send(tp0), "1@3/0", "2@3/1")
			r.answer(tp0, 1, kafkaerr.NotEnoughReplicas, NotAppended, -1)
			r.answer(tp0, 2, kafkaerr.OutOfOrderSequenceNumber, NotAppended, -1)
			r.enqueue(tp0, 1, 3)
			r.pr.purge(true, false)
			ev := r.take()
			r.failed(ev, 3, ErrPurged, ErrNotWritten)
			r.is(len(find[Failed](ev)) == 1, "failed %v", ev)
			r.later()
			r.sendsAre(r.send(tp0), "1@3/0")
		}},
		{name: "in flight: reported unknown at once, its later success is not delivered, the next batch follows its sequence", run: func(r *rig) {
			r.enqueue(tp0, 1, 1, 2)
			r.sendsAre(r.send(tp0), "1@3/0", "2@3/1")
			r.pr.purge(true, true)
			ev := r.take()
			r.failed(ev, 1, ErrPurged, ErrOutcomeUnknown)
			r.failed(ev, 2, ErrPurged, ErrOutcomeUnknown)
			for _, f := range find[Failed](ev) {
				r.is(!errors.Is(f.Err, ErrNotWritten), "in flight, yet %v", f.Err)
			}
			r.ok(tp0, 1, 20)
			r.ok(tp0, 2, 21)
			ev = r.take()
			r.none(ev, "a second outcome", len(find[Failed](ev))+len(find[Delivered](ev)))
			r.enqueue(tp0, 1, 3)
			r.sendsAre(r.send(tp0), "3@3/2")
			r.ok(tp0, 3, 22)
			r.delivered(r.take(), "3@22")
		}},
		{name: "in flight: a refused batch fails not written, its hole is closed by a bump", run: func(r *rig) {
			r.enqueue(tp0, 1, 1, 2)
			r.sendsAre(r.send(tp0), "1@3/0", "2@3/1")
			r.answer(tp0, 1, kafkaerr.NotEnoughReplicas, NotAppended, -1)
			r.answer(tp0, 2, kafkaerr.OutOfOrderSequenceNumber, NotAppended, -1)
			r.pr.purge(true, true)
			ev := r.take()
			r.failed(ev, 1, ErrPurged, ErrNotWritten)
			r.failed(ev, 2, ErrPurged, ErrNotWritten)
			r.enqueue(tp0, 1, 3)
			r.later()
			r.sendsAre(r.send(tp0), "3@4/0")
		}},
		{name: "in flight: an unknown outcome is reported and settled by a read, never resent", run: func(r *rig) {
			r.enqueue(tp0, 1, 1)
			r.sendsAre(r.send(tp0), "1@3/0")
			r.answer(tp0, 1, kafkaerr.Transport, MaybeAppended, -1)
			r.pr.purge(true, true)
			ev := r.take()
			r.failed(ev, 1, ErrPurged, ErrOutcomeUnknown)
			r.enqueue(tp0, 1, 2)
			r.later()
			ev = r.take()
			r.is(len(find[ReadTail](ev)) == 1, "no tail read: %v", ev)
			r.sendsAre(r.send(tp0))
			r.pr.tailRead(tp0, Tail{HighWatermark: 1, Batches: []TailBatch{{BaseOffset: 0, ProducerID: 1000, Epoch: 3, Records: 1}}, Described: true})
			ev = r.take()
			r.none(ev, "a second outcome", len(find[Failed](ev))+len(find[Delivered](ev)))
			r.pr.leaderChanged(tp0, 1, 7) // the transport error asked for metadata
			r.sendsAre(r.send(tp0), "2@3/1")
		}},
		{name: "in flight only: the queue stays and is sent after the batch in flight", run: func(r *rig) {
			r.pr.cfg.MaxInFlight = 1
			r.enqueue(tp0, 1, 1, 2)
			r.sendsAre(r.send(tp0), "1@3/0")
			r.pr.purge(false, true)
			ev := r.take()
			r.failed(ev, 1, ErrPurged, ErrOutcomeUnknown)
			r.is(len(find[Failed](ev)) == 1, "failed %v", ev)
			r.ok(tp0, 1, 5)
			ev = r.take()
			r.none(ev, "a second outcome", len(find[Failed](ev))+len(find[Delivered](ev)))
			r.sendsAre(r.send(tp0), "2@3/1")
			r.ok(tp0, 2, 6)
			r.delivered(r.take(), "2@6")
		}},
		{name: "a batch purged in flight, acknowledged after and lost to a truncation, is not reported lost", run: func(r *rig) {
			r.enqueue(tp0, 3, 1)
			r.sendsAre(r.send(tp0), "1@3/0")
			r.pr.purge(true, true)
			r.failed(r.take(), 1, ErrPurged, ErrOutcomeUnknown)
			r.ok(tp0, 1, 10)
			r.enqueue(tp0, 2, 2)
			r.sendsAre(r.send(tp0), "2@3/3")
			r.ok(tp0, 2, 10) // where batch 1 was: the log was truncated under it
			ev := r.take()
			r.is(len(find[ReadTail](ev)) == 1, "no tail read after the truncation: %v", ev)
			tail := Tail{HighWatermark: 12, LogEndOffset: 12, Described: true,
				Batches:   []TailBatch{{BaseOffset: 10, ProducerID: 1000, Epoch: 3, BaseSequence: 3, Records: 2}},
				Producers: []ProducerState{{ProducerID: 1000, Epoch: 3, LastSequence: 4}}}
			// The read is repeated while its high watermark trails what
			// was acknowledged (batch 1's end), then believed.
			for range 30 {
				r.pr.tailRead(tp0, tail)
				r.later()
				more := r.take()
				ev = append(ev, more...)
				if len(find[ReadTail](more)) == 0 {
					break
				}
			}
			r.none(ev, "a loss of records the caller never heard were written", len(find[DataLoss](ev)))
			r.delivered(ev, "2@10")
		}},
		{name: "a batch awaiting its split is left; a closed producer purges nothing", run: func(r *rig) {
			r.enqueue(tp0, 2, 1)
			r.send(tp0)
			r.answer(tp0, 1, kafkaerr.MessageTooLarge, NotAppendedFatal, -1)
			r.is(len(find[NeedSplit](r.take())) == 1, "no split asked")
			r.pr.purge(true, true)
			ev := r.take()
			r.none(ev, "a purge of the batch being split", len(find[Failed](ev)))
			r.is(r.pr.split(tp0, 1, []Part{{ID: 2, Records: 1}, {ID: 3, Records: 1}}), "split refused")
			r.pr.close()
			r.take()
			r.pr.purge(true, true)
			ev = r.take()
			r.none(ev, "events after close", len(ev))
		}},
	})
}
