package idempotence

import (
	"errors"
	"fmt"
)

// tailKey identifies a batch written by an idempotent producer.
type tailKey struct {
	pid   int64
	epoch int16
	seq   int32
}

// TailRead hands over the log read asked for by ReadTail. Numbered batches
// found there (same producer id, epoch, base sequence and record count) are
// delivered at their offsets; the others are known not written and are resent
// in order from sequence 0 under a fresh epoch. Acknowledged records missing
// from the log are reported as DataLoss, unless the log start moved past
// them (retention). A failed read fails the expired unknown-outcome batches
// with ErrOutcomeUnknown and asks again after the backoff.
func (pr *Producer) tailRead(tp TopicPartition, t Tail) {
	p := pr.parts[tp]
	if p == nil || !p.reading {
		return
	}
	if t.Err != nil {
		p.reading = false
		pr.tailFailed(p)
		pr.settle(p)
		return
	}
	p.reading = false
	p.logStart = t.LogStartOffset
	if !pr.checkLoss(p, t) {
		return // read again from the log start
	}
	found := make(map[tailKey]TailBatch, len(t.Batches))
	for _, tb := range t.Batches {
		found[tailKey{tb.ProducerID, tb.Epoch, tb.BaseSequence}] = tb
	}
	for i := 0; i < len(p.batches); i++ {
		b := p.batches[i]
		if b.st == stAcked || !b.numbered || b.st == stAwaitSplit {
			continue
		}
		if tb, ok := found[tailKey{b.pid, b.epoch, b.seq}]; ok && tb.Records == b.records {
			p.acked(b, tb.BaseOffset)
			continue
		}
		// Not in the log, and nothing of it is in flight: known not written.
		b.unknown = false
		b.st = stNotAppended
		var err error
		switch {
		case b.fatal != nil:
			err = b.fatal
		case b.expired:
			err = errTimeoutNotWritten
		case p.stopped != nil:
			err = p.stopped
		case b.tooLarge:
			b.st = stAwaitSplit
			pr.emit(NeedSplit{TP: p.tp, ID: b.id})
		}
		if err != nil {
			pr.fail(p, b, err)
			i--
		}
	}
	if p.stopped != nil {
		for i := 0; i < len(p.batches); i++ {
			if b := p.batches[i]; b.st != stAcked {
				pr.fail(p, b, p.stopped)
				i--
			}
		}
	}
	p.needRead = false
	p.needBump = true // the broker's sequence state is not trusted any more
	pr.settle(p)
}

// tailFailed handles a log that could not be read.
func (pr *Producer) tailFailed(p *partition) {
	for i := 0; i < len(p.batches); i++ {
		b := p.batches[i]
		if !b.unknown || !b.expired {
			continue
		}
		err := errTimeoutUnknown
		var ce *CodeError
		if errors.As(b.fatal, &ce) {
			err = &CodeError{Code: ce.Code, Err: errTimeoutUnknown}
		}
		pr.fail(p, b, err)
		i--
	}
	if p.hasUnknown() {
		if pr.cfg.RetryBackoff > 0 {
			p.retryAt = pr.now.Add(pr.cfg.RetryBackoff)
		}
		return // needRead stays: ask again
	}
	// Nothing uncertain is left: every other batch is known not written.
	p.needRead = false
	p.needBump = true
}

// askTail emits ReadTail.
func (pr *Producer) askTail(p *partition, from int64) {
	p.reading, p.readFrom = true, from
	pr.emit(ReadTail{TP: p.tp, FromOffset: from})
}

// checkLoss looks for the remembered acknowledged batches within the read
// and reports those missing (unless retention removed them) as DataLoss. It
// returns false when the read started at the anchor and the anchor is gone:
// the log was truncated below it and must be read from its start.
func (pr *Producer) checkLoss(p *partition, t Tail) bool {
	type at struct {
		key  tailKey
		base int64
		n    int32
	}
	present := make(map[at]bool, len(t.Batches))
	for _, tb := range t.Batches {
		present[at{tailKey{tb.ProducerID, tb.Epoch, tb.BaseSequence}, tb.BaseOffset, tb.Records}] = true
	}
	has := func(a ackRec) bool { return present[at{a.key, a.base, a.records}] || a.base < t.LogStartOffset }
	if p.readFrom >= 0 && p.hasAnchor && p.anchor.base >= p.readFrom && !has(p.anchor) {
		pr.askTail(p, -1)
		return false
	}
	loss := DataLoss{TP: p.tp, FromOffset: -1}
	kept := p.history[:0]
	for _, a := range p.history {
		if a.base < p.readFrom || has(a) {
			kept = append(kept, a)
			continue
		}
		if loss.FromOffset < 0 || a.base < loss.FromOffset {
			loss.FromOffset = a.base
		}
		loss.ToOffset = max(loss.ToOffset, a.end())
		loss.Records += int64(a.records)
		if p.hasAnchor && a == p.anchor {
			p.hasAnchor = false // later reads start from the log start
		}
	}
	p.history = kept
	if loss.Records == 0 {
		return true
	}
	pr.emit(loss)
	if pr.cfg.StopOnDataLoss {
		p.stopped = errStoppedLoss
	}
	return true
}

// Split answers NeedSplit: it replaces the batch by its parts, in its place.
// The parts are numbered when first sent and inherit the batch's deadline.
// No parts fails the batch with MESSAGE_TOO_LARGE (not written). It must be
// called for every NeedSplit (the partition holds until then) and reports
// false if id was not awaiting a split (nothing changed).
func (pr *Producer) split(tp TopicPartition, id BatchID, parts []Part) bool {
	return pr.splitWith(tp, id, parts, nil)
}

// splitWith is split with the reason a batch could not be split (joined to
// its failure when parts is empty).
func (pr *Producer) splitWith(tp TopicPartition, id BatchID, parts []Part, why error) bool {
	p := pr.parts[tp]
	if p == nil {
		return false
	}
	b := p.byID[id]
	if b == nil || b.st != stAwaitSplit {
		return false
	}
	if len(parts) == 0 {
		var err error = &CodeError{Code: CodeMessageTooLarge, Err: ErrNotWritten}
		if why != nil {
			err = fmt.Errorf("%w: %w", err, why)
		}
		pr.fail(p, b, err)
		pr.settle(p)
		return true
	}
	repl := make([]*batch, 0, len(parts))
	seen := make(map[BatchID]bool, len(parts))
	for _, part := range parts {
		if part.Records <= 0 || (p.byID[part.ID] != nil && part.ID != id) || seen[part.ID] {
			pr.emit(Failed{TP: tp, ID: part.ID, Err: errNoRecordsOrDup(part.Records)})
			continue
		}
		seen[part.ID] = true
		repl = append(repl, &batch{id: part.ID, records: part.Records, deadline: b.deadline, offset: -1})
		if !b.deadline.IsZero() && (p.nextDue.IsZero() || b.deadline.Before(p.nextDue)) {
			p.nextDue = b.deadline
		}
	}
	i := 0
	for p.batches[i] != b {
		i++
	}
	delete(p.byID, id)
	if b.numbered {
		p.nNumbered--
	}
	rest := append(repl, p.batches[i+1:]...)
	p.batches = append(p.batches[:i], rest...)
	for _, x := range repl {
		p.byID[x.id] = x
	}
	pr.wake(p)
	pr.settle(p)
	return true
}

func errNoRecordsOrDup(records int32) error {
	if records <= 0 {
		return errNoRecords
	}
	return errDuplicateID
}
