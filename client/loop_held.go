package client

import (
	"maps"
	"slices"
)

// heldQueue is the loop's side of one topic whose records wait for its
// metadata (topicwait.go): the records, in the order Produce accepted them,
// until the wait ends; then they are appended (or failed) in one go, and so
// is every later record the loop receives for the topic until Produce's
// side lets the topic go.
type heldQueue struct {
	recs     []holdIn
	received int   // records received for the topic (held, appended or failed)
	ended    bool  // the wait for the metadata ended
	err      error // why it failed, if it did
}

// purgeHeldIn: Purge fails every held record; done is closed once their
// callbacks are queued.
type purgeHeldIn struct{ done chan struct{} }

func (l *loop) heldQueue(topic string) *heldQueue {
	q := l.held[topic]
	if q == nil {
		q = &heldQueue{}
		l.held[topic] = q
	}
	return q
}

// hold keeps a record until its topic's metadata is known, or places it
// at once if the wait has ended.
func (l *loop) hold(h holdIn) {
	q := l.heldQueue(h.r.Topic)
	q.received++
	if !q.ended {
		q.recs = append(q.recs, h)
		return
	}
	l.release(h, q.err)
	l.retire(h.r.Topic, q)
}

// topicEnded releases the records held for a topic whose wait ended.
func (l *loop) topicEnded(t topicIn) {
	q := l.heldQueue(t.topic)
	q.ended, q.err = true, t.err
	for _, h := range q.recs {
		l.release(h, t.err)
	}
	clear(q.recs)
	q.recs = nil
	l.retire(t.topic, q)
}

// release appends a held record to its partition, or fails it with err.
func (l *loop) release(h holdIn, err error) {
	if err != nil {
		l.p.acc.Unreserve(h.rv)
		l.p.finish(h.r, err)
		return
	}
	l.p.appendReserved(h.r, h.rv)
	l.placedHeld = true
}

// flushPlaced closes the batches of the held records placed in this pass
// of the loop if a Flush is under way: it waits for them (they were
// buffered when it began, or since), and would otherwise see them sent
// only after Linger or its own next pass (flushPoll) — the first records
// of a producer, held for their topic's metadata, would wait that long.
func (l *loop) flushPlaced() {
	if l.placedHeld && l.p.flushing.Load() > 0 {
		l.p.acc.Flush()
	}
	l.placedHeld = false
}

// retire forgets a topic whose wait has ended once the loop has had every
// record Produce posted for it.
func (l *loop) retire(topic string, q *heldQueue) {
	if l.p.heldDone(topic, q.received) {
		delete(l.held, topic)
	}
}

// failHeld fails every held record with err (Purge, Close).
func (l *loop) failHeld(err error) {
	for _, topic := range slices.Sorted(maps.Keys(l.held)) {
		q := l.held[topic]
		for _, h := range q.recs {
			l.release(h, err)
		}
		clear(q.recs)
		q.recs = q.recs[:0]
	}
}
