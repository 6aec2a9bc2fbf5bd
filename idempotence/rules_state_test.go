package idempotence

import (
	"testing"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

// A read under way when the topic is re-created (ReadingStale) is of the
// old log: its answer, whatever it shows, is dropped — another
// re-creation meanwhile changes nothing — and the batch, never written
// to the new topic, goes there from sequence 0 under a fresh epoch.
func TestRuleRecreatedWhileReading(t *testing.T) {
	r := newRig(t, Config{})
	r.pr.leaderChangedIn(tp0, 1, 7, 1)
	r.enqueue(tp0, 2, 1)
	r.sendsAre(r.send(tp0), "1@3/0")
	r.pr.respond(tp0, 1, Response{Code: kafkaerr.OutOfOrderSequenceNumber, LogStartOffset: -1}, r.now)
	ev := r.take()
	r.is(len(find[ReadTail](ev)) == 1, "a head OUT_OF_ORDER asks for a read: %v", ev)
	r.pr.leaderChangedIn(tp0, 2, 0, 2)
	r.pr.leaderChangedIn(tp0, 2, 0, 3)
	ev = r.take()
	r.none(ev, "bump before the stale read's answer", len(find[EpochBumped](ev)))
	r.sendsAre(r.send(tp0)) // the read is pending
	// The old log held it at 40: not the new topic's.
	r.pr.tailRead(tp0, Tail{Batches: []TailBatch{{BaseOffset: 40, ProducerID: 1000, Epoch: 3, BaseSequence: 0, Records: 2}},
		LogStartOffset: 0, HighWatermark: 42, LogEndOffset: 42})
	ev = r.take()
	r.delivered(ev)
	r.none(ev, "data loss", len(find[DataLoss](ev)))
	r.is(len(find[EpochBumped](ev)) == 1, "no bump after the stale read: %v", ev)
	r.sendsAre(r.send(tp0), "1@4/0")
	r.ok(tp0, 1, 0)
	r.delivered(r.take(), "1@0")
}

// Close with a read due (a batch still in flight) or under way: every
// batch fails at once — not written if every attempt was refused, outcome
// unknown if one is in flight — and the read's answer, when it comes, is
// ignored.
func TestRuleClosedWithReadOwed(t *testing.T) {
	r := newRig(t, Config{})
	r.enqueue(tp0, 1, 1, 2)
	r.sendsAre(r.send(tp0), "1@3/0", "2@3/1")
	r.pr.respond(tp0, 1, Response{Code: kafkaerr.OutOfOrderSequenceNumber, LogStartOffset: -1}, r.now)
	ev := r.take()
	r.none(ev, "read while 2 is in flight", len(find[ReadTail](ev)))
	r.pr.close()
	ev = r.take()
	r.failed(ev, 1, ErrClosed, ErrNotWritten)
	r.failed(ev, 2, ErrClosed, ErrOutcomeUnknown)

	r = newRig(t, Config{})
	r.enqueue(tp1, 1, 1)
	r.sendsAre(r.send(tp1), "1@3/0")
	r.pr.respond(tp1, 1, Response{Code: kafkaerr.OutOfOrderSequenceNumber, LogStartOffset: -1}, r.now)
	ev = r.take()
	r.is(len(find[ReadTail](ev)) == 1, "a head OUT_OF_ORDER asks for a read: %v", ev)
	r.pr.close()
	r.failed(r.take(), 1, ErrClosed, ErrNotWritten)
	r.pr.tailRead(tp1, Tail{Batches: []TailBatch{{BaseOffset: 7, ProducerID: 1000, Epoch: 3, BaseSequence: 0, Records: 1}},
		LogStartOffset: 0, HighWatermark: 8, LogEndOffset: 8})
	ev = r.take()
	r.is(len(ev) == 0, "the read's answer after Close was applied: %v", ev)
	r.sendsAre(r.send(tp1))
}
