package client

import (
	"maps"
	"slices"

	"github.com/rollsafe/rollsafe/batching"
	"github.com/rollsafe/rollsafe/idempotence"
)

// Records whose Produce context ended (cancel.go) are taken back by the
// loop, wherever it finds them before their batch is numbered:
//
//   - held for their topic's metadata: removed from the held queue;
//   - in a batch that reaches the loop (closed by the accumulator): the
//     batch is rebuilt without them before the machine sees it;
//   - in a batch the machine holds without a sequence (queued behind the
//     requests in flight, or for a leader): rebuilt without them and put
//     in its place (idempotence.Withdraw), so that the numbering has no
//     hole.
//
// A record still in an open batch is taken back when that batch closes
// (Linger, a full batch, Flush). Once its batch is numbered, a record
// goes on to its outcome as if its context had not ended.

// noteCancels registers the cancellations among items and, if there are
// any, takes back the cancelled records the loop holds now — before any
// other input of the pass can number their batches.
func (l *loop) noteCancels(items []any) {
	found := false
	for _, x := range items {
		if c, ok := x.(cancelIn); ok && !c.reg.done.Load() {
			if l.cancelled == nil {
				l.cancelled = make(map[*Record]*cancelReg)
			}
			l.cancelled[c.reg.r] = c.reg
			found = true
		}
	}
	if !found {
		return
	}
	l.withdrawHeld()
	ids := slices.Sorted(maps.Keys(l.batches))
	for _, id := range ids {
		bs := l.batches[id]
		tp := idempotence.TopicPartition{Topic: bs.b.TP.Topic, Partition: bs.b.TP.Partition}
		if bs.outstanding || !l.idem.Withdrawable(tp, id) || !l.anyCancelled(bs.b) {
			continue
		}
		nb, ok := l.without(bs.b)
		if !ok {
			continue
		}
		delete(l.batches, id)
		var parts []idempotence.Part
		if nb != nil {
			l.nextID++
			l.batches[l.nextID] = &batchState{b: nb, born: bs.born}
			parts = []idempotence.Part{{ID: l.nextID, Records: int32(nb.Records)}}
		}
		l.step(idempotence.Withdraw{TP: tp, ID: id, Parts: parts})
	}
	l.pruneCancelled()
}

// cancelledReg returns r's registration if its context ended and its
// callback has not begun.
func (l *loop) cancelledReg(r *Record) *cancelReg {
	reg := l.cancelled[r]
	if reg == nil || reg.done.Load() {
		return nil
	}
	return reg
}

func (l *loop) anyCancelled(b *batching.Batch) bool {
	for _, src := range b.Sources() {
		if l.cancelledReg(recordOf(src)) != nil {
			return true
		}
	}
	return false
}

// withdrawArriving takes the cancelled records out of a batch the
// accumulator closed; it returns the batch to hand to the machine, or nil
// when none is left.
func (l *loop) withdrawArriving(b *batching.Batch) *batching.Batch {
	if len(l.cancelled) == 0 || !l.anyCancelled(b) {
		return b
	}
	nb, ok := l.without(b)
	if !ok {
		return b
	}
	return nb
}

// without rebuilds b without its cancelled records, fails those (not
// written, with their context's error) and releases b. ok is false when b
// could not be rebuilt (it is then left as it is).
func (l *loop) without(b *batching.Batch) (nb *batching.Batch, ok bool) {
	srcs := b.Sources()
	var taken []*cancelReg
	nb, err := b.Without(func(i int) bool {
		reg := l.cancelledReg(recordOf(srcs[i]))
		if reg != nil {
			taken = append(taken, reg)
		}
		return reg != nil
	})
	if err != nil {
		l.p.log.Warn("rollsafe: could not take cancelled records out of their batch; they are sent", "topic", b.TP.Topic, "partition", b.TP.Partition, "err", err)
		return nil, false
	}
	tp := b.TP
	l.p.acc.Release(b)
	l.p.resolved(tp, len(taken))
	for _, reg := range taken {
		delete(l.cancelled, reg.r)
		err := withdrawnError(reg.ctx)
		l.p.hooks.BatchDone(tp.Topic, tp.Partition, 1, 0, 0, publicError(err))
		l.p.finish(reg.r, err)
	}
	return nb, true
}

// withdrawHeld takes the cancelled records out of the held queues.
func (l *loop) withdrawHeld() {
	for _, topic := range slices.Sorted(maps.Keys(l.held)) {
		q := l.held[topic]
		kept := q.recs[:0]
		for _, h := range q.recs {
			if reg := l.cancelledReg(h.r); reg != nil {
				delete(l.cancelled, h.r)
				l.p.acc.Unreserve(h.rv)
				err := withdrawnError(reg.ctx)
				l.p.hooks.BatchDone(topic, h.r.Partition, 1, 0, 0, publicError(err))
				l.p.finish(h.r, err)
				continue
			}
			kept = append(kept, h)
		}
		clear(q.recs[len(kept):])
		q.recs = kept
	}
}

// pruneCancelled forgets the cancellations of records already called
// back (their batch was numbered, or they failed otherwise).
func (l *loop) pruneCancelled() {
	for r, reg := range l.cancelled {
		if reg.done.Load() {
			delete(l.cancelled, r)
		}
	}
}
