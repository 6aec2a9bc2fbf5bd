package idempotence

import (
	"testing"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

// A topic deleted and created again (a new Incarnation) is a new topic:
// leader epochs start over, batches in flight or with an unknown outcome
// to the old one fail ErrOutcomeUnknown and are never written again, the
// acknowledged ones are delivered at their old offsets, and the batches
// never written go to the new topic from sequence 0 under a fresh epoch,
// once the old requests are answered; the new log's offsets are no
// truncation of the old.
func TestRuleTopicRecreated(t *testing.T) {
	r := newRig(t, Config{})
	r.pr.leaderChangedIn(tp0, 1, 7, 1)
	r.enqueue(tp0, 2, 1, 2, 3, 4)
	r.sendsAre(r.send(tp0), "1@3/0", "2@3/2", "3@3/4", "4@3/6")
	r.ok(tp0, 1, 100)
	r.ok(tp0, 3, 104) // acknowledged behind 2
	r.answer(tp0, 4, kafkaerr.RequestTimedOut, MaybeAppended, -1)
	r.delivered(r.take(), "1@100")
	r.enqueue(tp0, 1, 5, 6)
	// Re-created: epoch 0 < 7 is taken, as a new topic.
	r.pr.leaderChangedIn(tp0, 2, 0, 2)
	ev := r.take()
	r.failed(ev, 2, ErrTopicRecreated, ErrOutcomeUnknown) // in flight
	r.failed(ev, 4, ErrTopicRecreated, ErrOutcomeUnknown) // unknown
	r.delivered(ev)                                       // 3 waits for 2's answer
	r.sendsAre(r.send(tp0))                               // 2 still in flight
	// A stale answer about the old topic is ignored.
	r.pr.leaderChangedIn(tp0, 1, 9, 1)
	r.answer(tp0, 2, kafkaerr.None, Appended, 102)
	ev = r.take()
	r.delivered(ev, "3@104")
	// 5 and 6, never written, go to the new topic under a fresh epoch,
	// from sequence 0, one at a time until a success.
	r.later()
	r.sendsAre(r.send(tp0), "5@4/0")
	r.ok(tp0, 5, 0) // offset 0: a new log, no truncation
	r.sendsAre(r.send(tp0), "6@4/1")
	r.ok(tp0, 6, 1)
	ev = r.take()
	r.delivered(ev, "5@0", "6@1")
	r.none(ev, "data loss", len(find[DataLoss](ev)))
	r.none(ev, "read", len(find[ReadTail](ev)))
}

// A batch never written that stands before one written to the old topic
// fails ErrNotWritten: sent to the new topic it would follow records
// delivered after it.
func TestRuleTopicRecreatedNotWrittenBefore(t *testing.T) {
	r := newRig(t, Config{})
	r.pr.leaderChangedIn(tp0, 1, 7, 1)
	r.enqueue(tp0, 1, 1, 2)
	r.sendsAre(r.send(tp0), "1@3/0", "2@3/1")
	r.answer(tp0, 1, kafkaerr.NotEnoughReplicas, NotAppended, -1)
	r.ok(tp0, 2, 50) // a broker without our state took it anyway
	r.take()
	r.pr.leaderChangedIn(tp0, 1, 0, 2)
	ev := r.take()
	r.failed(ev, 1, ErrTopicRecreated, ErrNotWritten)
	r.delivered(ev, "2@50")
}
