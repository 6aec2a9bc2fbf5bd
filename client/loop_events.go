package client

import (
	"errors"
	"fmt"
	"time"

	"github.com/rollsafe/rollsafe/idempotence"
)

// event carries out one decision of the idempotence machine.
func (l *loop) event(ev idempotence.Event) {
	p := l.p
	switch e := ev.(type) {
	case idempotence.Delivered:
		bs := l.take(e.ID)
		if bs == nil {
			return
		}
		p.hooks.BatchAcked(e.TP.Topic, e.TP.Partition, bs.b.Records, e.BaseOffset)
		if len(l.failing) > 0 {
			l.acknowledged(e.TP)
		}
		l.finish(e.ID, bs, e.BaseOffset, nil)
	case idempotence.Failed:
		if bs := l.take(e.ID); bs != nil {
			l.finish(e.ID, bs, -1, brokerError(e.Err))
		}
	case idempotence.ReadTail:
		p.hooks.TailRead(e.TP.Topic, e.TP.Partition, e.FromOffset)
		p.startTailRead(e.TP, e.FromOffset)
	case idempotence.DataLoss:
		dl := DataLoss{Topic: e.TP.Topic, Partition: e.TP.Partition, FromOffset: e.FromOffset, ToOffset: e.ToOffset, Records: e.Records}
		p.log.Warn("rollsafe: acknowledged records lost from the log", "topic", dl.Topic, "partition", dl.Partition, "from", dl.FromOffset, "to", dl.ToOffset, "records", dl.Records)
		p.hooks.DataLossDetected(dl)
		if f := p.cfg.onDataLoss; f != nil {
			p.calls.pushFunc(func() { f(dl) })
		}
	case idempotence.EpochBumped:
		p.log.Info("rollsafe: partition moved to a new producer epoch", "topic", e.TP.Topic, "partition", e.TP.Partition, "producer_id", e.ProducerID, "epoch", e.Epoch)
		p.hooks.EpochBumped(e.TP.Topic, e.TP.Partition, e.ProducerID, e.Epoch)
	case idempotence.NeedProducerID:
		l.initProducerID()
	case idempotence.NeedSplit:
		l.later = append(l.later, l.split(e.TP, e.ID))
	case idempotence.RefreshMetadata:
		l.awaitMeta[e.TP] = true
		p.kickMetadata()
	default:
		l.txnEvent(ev)
	}
}

// finish hands a finished batch's records to their callbacks and releases
// the batch, unless an attempt of it is still in an outbox or at a sender
// (a batch reported at its deadline, or at Close): then it is pinned until
// that attempt is answered, so its bytes are never reused while they may
// still be written. base is the offset of the batch's first record, or -1.
func (l *loop) finish(id idempotence.BatchID, bs *batchState, base int64, err error) {
	l.p.resolved(bs.b.TP, bs.b.Records)
	var perr error
	if err != nil {
		perr = publicError(err)
	}
	l.p.hooks.BatchDone(bs.b.TP.Topic, bs.b.TP.Partition, bs.b.Records, bs.b.UncompressedBytes(), time.Since(bs.born), perr)
	if bs.outstanding {
		l.pinned[id] = bs
		l.p.calls.pushTokens(bs.b.Sources(), base, err, nil)
		return
	}
	l.p.calls.pushTokens(bs.b.Sources(), base, err, func() { l.p.acc.Release(bs.b) })
}

// take removes a finished batch from the loop's keeping.
func (l *loop) take(id idempotence.BatchID) *batchState {
	bs := l.batches[id]
	if bs != nil {
		delete(l.batches, id)
	}
	return bs
}

// split cuts a batch the broker found too large in two halves by
// uncompressed size (a record larger than the half gets a batch of its own;
// halves still too large are split again when refused), and returns the machine's input for
// them (no parts, with the reason, when a single record is too large).
func (l *loop) split(tp idempotence.TopicPartition, id idempotence.BatchID) idempotence.Input {
	bs := l.batches[id]
	if bs == nil {
		return idempotence.SplitBatch{TP: tp, ID: id, Err: errors.New("batch unknown to the producer")}
	}
	parts, err := bs.b.Split(bs.b.UncompressedBytes())
	if err != nil || len(parts) < 2 {
		for _, nb := range parts {
			l.p.acc.Release(nb)
		}
		if err == nil {
			err = errors.New("a single record exceeds the broker's message size limit")
		}
		return idempotence.SplitBatch{TP: tp, ID: id, Err: fmt.Errorf("%w: %w", ErrRecordTooLarge, err)}
	}
	ps := make([]idempotence.Part, len(parts))
	for i, nb := range parts {
		l.nextID++
		l.batches[l.nextID] = &batchState{b: nb, born: bs.born}
		ps[i] = idempotence.Part{ID: l.nextID, Records: int32(nb.Records)}
	}
	delete(l.batches, id)
	l.p.acc.Release(bs.b)
	return idempotence.SplitBatch{TP: tp, ID: id, Parts: ps}
}
