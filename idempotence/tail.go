package idempotence

import (
	"errors"
	"fmt"
	"slices"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

// tailKey identifies a batch written by an idempotent producer.
type tailKey struct {
	pid   int64
	epoch int16
	seq   int32
}

// tailRead hands over the log read asked for by ReadTail. Numbered batches
// found there (same producer id, epoch, base sequence and record count) are
// delivered at their offsets. One the leader holds above the high
// watermark (its producer state shows the sequence appended) is not absent:
// the read is repeated until it commits or the leader changes. One the
// leader proves absent was never written and is renumbered under a fresh
// epoch, unless an attempt of it may still land somewhere: a batch whose
// outcome is unknown is only renumbered on the leader's word
// (Tail.Described); without it, it fails with ErrOutcomeUnknown rather
// than risk a second copy. Acknowledged records missing from the log are
// reported as DataLoss, unless the log start moved past them (retention)
// or a later batch of this producer is still there (compaction removes
// whole batches from the middle; truncation removes a suffix); those not
// yet delivered are written again instead. A read whose high watermark is
// below what was acknowledged (a lagging new leader) is repeated a few
// times before it is believed; one whose high watermark is below the
// leader's log end (appended, not committed) proves nothing absent and is
// repeated until it reaches it. A failed read fails the expired
// unknown-outcome batches with ErrOutcomeUnknown and asks again after the
// backoff.
func (pr *Producer) tailRead(tp TopicPartition, t Tail) {
	p := pr.parts[tp]
	if p == nil || !p.state.reading() {
		return
	}
	stale := p.state == psReadingStale
	p.on(evReadAnswered)
	if stale {
		pr.settle(p) // of a deleted topic's log: dropped
		return
	}
	if t.Err != nil && !t.Unreadable {
		pr.tailFailed(p)
		pr.settle(p)
		return
	}
	if t.Unreadable {
		t = Tail{LogStartOffset: -1, HighWatermark: -1, Unreadable: true}
	} else {
		if pr.incomplete(p, t) {
			return
		}
		if pr.uncommitted(p, t) {
			return
		}
		p.logStart = t.LogStartOffset
		pr.rewriteLostUndelivered(p, t)
		if !pr.checkLoss(p, t) {
			return // read again from the log start
		}
	}
	p.shortReads = 0
	// Without a desync the broker's sequence state still matches ours: a
	// batch the read does not show is resent unchanged (the broker
	// appends it in order or recognises a copy that landed meanwhile), and
	// the partition moves to a new epoch only if the read leaves a hole.
	keep := !p.desync && !p.state.bumpOwed()
	gap := false
	forgotten := pr.mayBeForgotten(p)
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
		held := t.Described && leaderHolds(t.Producers, b)
		if held && p.heldReads < maxHeldReads {
			// Appended, not yet committed: not absent. Read again.
			p.heldReads++
			pr.readAgain(p)
			return
		}

		// (A leader whose state stays ahead of a batch it never shows
		// may have accepted a later batch without state for the producer
		// — after expiry: the batch stays unknown below.)
		// A broker that may have forgotten this producer accepts a resend
		// as a new batch; without the leader's log end the read may not
		// have reached the earlier attempt: unprovable. Such a broker
		// (before 2.3) predates 2.5's sequence rules: having forgotten the
		// producer it refuses any sequence but 0 (UNKNOWN_PRODUCER_ID), so
		// only a batch opening its epoch's sequence is at risk.
		blind := b.unknown && t.LogEndOffset < 0 && forgotten && b.seq == 0
		if keep && !blind && !b.reported && b.fatal == nil && !b.tooLarge && !b.expired && p.stopped == nil {
			continue // resent unchanged: in order after what the log holds
		}
		gap = true
		if b.reported || blind || (b.unknown && (!t.Described || held)) {
			// Its outcome stays unknown (already reported as such, or
			// unprovable): it leaves, never to be written again.
			err := errUnknownUnproven
			if b.expired {
				err = errTimeoutUnknown
			}
			pr.fail(p, b, err)
			i--
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
	p.heldReads = 0
	p.fails = 0
	if !keep || gap {
		p.on(evReadHole) // what follows the hole (or the desync) is renumbered
	} else {
		p.on(evReadClean)
	}
	p.desync = false
	pr.wake(p)
	pr.settle(p)
}

// maxOpenReads is how many reads in a row whose high watermark stays below
// the leader's log end are repeated before the read counts as failed.
const maxOpenReads = 20

// uncommitted reports a read that saw less than the leader holds: batches
// appended above its high watermark (waiting for replication, or held by a
// leader just elected whose high watermark trails) are invisible to a
// read, and one of them may be a copy of a batch the read did not find —
// which a broker that has forgotten this producer (records stamped long
// ago) would accept again. Such a read proves nothing absent: it is
// repeated until the high watermark reaches the log end, and after
// maxOpenReads it counts as a failed read (expired unknown batches end
// ErrOutcomeUnknown; the rest wait for the next read).
func (pr *Producer) uncommitted(p *partition, t Tail) bool {
	if t.LogEndOffset <= t.HighWatermark {
		p.openReads = 0
		return false
	}
	return pr.openRead(p, &p.openReads)
}

// readAgain asks for the same read after the backoff.
func (pr *Producer) readAgain(p *partition) {
	if pr.cfg.RetryBackoff > 0 {
		p.retryAt = pr.now.Add(pr.cfg.RetryBackoff)
	}
	p.on(evNeedRead)
	pr.settle(p)
}

// ackedEnd is the offset past the last batch known acknowledged with an
// offset, or 0.
func (p *partition) ackedEnd() int64 {
	var end int64
	for _, a := range p.history {
		end = max(end, a.end()+1)
	}
	if p.hasAnchor {
		end = max(end, p.anchor.end()+1)
	}
	return end
}

// leaderHolds reports whether the leader's producer state shows b appended:
// same producer id and epoch, last sequence at or past b's last.
func leaderHolds(states []ProducerState, b *batch) bool {
	last := addSeq(b.seq, b.records-1)
	for _, s := range states {
		if s.ProducerID == b.pid && s.Epoch == b.epoch && s.LastSequence >= 0 {
			d := (int64(s.LastSequence) - int64(last) + (1 << 31)) % (1 << 31)
			return d < 1<<30 // at or after, allowing for wrap-around
		}
	}
	return false
}

// rewriteLostUndelivered handles batches acknowledged but not yet delivered
// that the read shows gone (the log was truncated under them): the caller
// never heard they were written, so they are written again rather than
// reported lost.
func (pr *Producer) rewriteLostUndelivered(p *partition, t Tail) {
	present := make(map[tailKey]int64, len(t.Batches))
	for _, tb := range t.Batches {
		present[tailKey{tb.ProducerID, tb.Epoch, tb.BaseSequence}] = tb.BaseOffset
	}
	for _, b := range p.batches {
		if b.st != stAcked || b.offset < 0 || !b.numbered || b.offset < p.readFrom || b.offset < t.LogStartOffset {
			continue
		}
		if off, ok := present[tailKey{b.pid, b.epoch, b.seq}]; ok && off == b.offset {
			continue
		}
		if compacted(t, b.pid, b.offset) {
			continue // compacted away, not lost
		}
		// Gone: forget its acknowledgement, write it again.
		p.writeAgain(b)
	}
}

// writeAgain takes back the acknowledgement of b, not yet delivered, which
// the log no longer holds: it is written again.
func (p *partition) writeAgain(b *batch) {
	key := tailKey{b.pid, b.epoch, b.seq}
	kept := p.history[:0]
	for _, a := range p.history {
		if a.key != key || a.base != b.offset {
			kept = append(kept, a)
		}
	}
	p.history = kept
	b.st, b.offset, b.unknown = stNotAppended, -1, false
	// Unfinished again: its deadline counts (expire skipped it while
	// acknowledged).
	if !b.deadline.IsZero() && !b.expired && (p.nextDue.IsZero() || b.deadline.Before(p.nextDue)) {
		p.nextDue = b.deadline
	}
}

// compacted reports whether a batch of producer id pid at offset, missing
// from the read, was removed by compaction rather than truncation:
// compaction deletes whole batches and leaves their offsets unused, and
// keeps the last batch of every producer id; a truncation removes a suffix
// of the log, whose offsets are then given to new batches. So: nothing in
// the read covers the offset, and a later batch of the same producer id is
// there.
func compacted(t Tail, pid int64, offset int64) bool {
	later := false
	for _, tb := range t.Batches {
		if tb.BaseOffset <= offset && offset < tb.BaseOffset+int64(tb.Records) {
			return false
		}
		later = later || (tb.ProducerID == pid && tb.BaseOffset > offset)
	}
	return later
}

// askTail emits ReadTail.
func (pr *Producer) askTail(p *partition, from int64) {
	p.on(evReadAsked)
	p.readFrom, p.wideRead = from, false
	pr.emit(ReadTail{TP: p.tp, FromOffset: from})
}

// askWideTail asks for the read that does not start at the anchor (there
// is none, or it is gone): from the oldest acknowledged batch still
// remembered — no check needs anything older, and a long log is not read
// from its start — or from the log start when none is.
func (pr *Producer) askWideTail(p *partition) {
	from := int64(-1)
	for _, a := range p.history {
		if from < 0 || a.base < from {
			from = a.base
		}
	}
	pr.askTail(p, from)
	p.wideRead = true
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
	// Present, removed by retention, or removed by compaction (a later
	// batch of the same producer id is still there).
	has := func(a ackRec) bool {
		return present[at{a.key, a.base, a.records}] || a.base < t.LogStartOffset || compacted(t, a.key.pid, a.base)
	}
	if !p.wideRead && p.hasAnchor && p.anchor.base >= p.readFrom && !has(p.anchor) {
		pr.askWideTail(p)
		return false
	}
	loss := DataLoss{TP: p.tp, FromOffset: -1}
	var oldest ackRec
	oldestGone := false
	if len(p.history) > 0 {
		oldest = p.history[0]
		oldestGone = oldest.base >= p.readFrom && !has(oldest)
	}
	kept := p.history[:0]
	for _, a := range p.history {
		if a.base < p.readFrom || has(a) {
			kept = append(kept, a)
			continue
		}
		if p.hasAnchor && a == p.anchor {
			p.hasAnchor = false // later reads start from the log start
		}
		if a.untold {
			continue // reported unknown to the caller: not theirs to hear lost
		}
		if loss.FromOffset < 0 || a.base < loss.FromOffset {
			loss.FromOffset = a.base
		}
		loss.ToOffset = max(loss.ToOffset, a.end())
		loss.Records += int64(a.records)
	}
	p.history = kept
	pr.lossBeforeHistory(p, t, oldestGone, oldest, &loss)
	p.trimHistory()
	pr.reportLoss(p, loss)
	return true
}

// reportLoss emits loss, if it counts any record, and stops the partition
// when so configured.
func (pr *Producer) reportLoss(p *partition, loss DataLoss) {
	if loss.Records == 0 {
		return
	}
	if p.incarnation != 0 {
		// The caller tells topic incarnations: a log that lost what we
		// wrote may be a new topic's (deleted and created again while
		// the metadata did not show it yet). Held until metadata says
		// which (releaseLoss, or recreated drops it).
		p.heldLoss = append(p.heldLoss, loss)
		if p.hasLeader {
			p.hasLeader = false
			pr.emit(RefreshMetadata{TP: p.tp})
		}
		return
	}
	pr.emit(loss)
	if pr.cfg.StopOnDataLoss {
		p.stopped = errStoppedLoss
	}
}

// releaseLoss reports the losses held for a metadata answer that showed
// the topic the same.
func (pr *Producer) releaseLoss(p *partition) {
	held := p.heldLoss
	p.heldLoss = nil
	for _, loss := range held {
		pr.emit(loss)
		if pr.cfg.StopOnDataLoss {
			p.stopped = errStoppedLoss
		}
	}
	if len(held) > 0 {
		pr.settle(p) // the deliveries that waited for it
	}
}

// lossBeforeHistory extends loss below the history: when its oldest batch
// is gone and the log now ends at or before it, the run of our forgotten
// offsets just below it is gone from where the log ends (retention aside)
// — a truncation takes a suffix, and those offsets were ours alone.
func (pr *Producer) lossBeforeHistory(p *partition, t Tail, oldestGone bool, oldest ackRec, loss *DataLoss) {
	if !oldestGone || p.forgot.empty() || p.forgot.to()+1 != oldest.base {
		return
	}
	// Where the log's old content ends: the high watermark, below the
	// batches of ours written after the truncation (they may end past the
	// oldest remembered batch: one large batch, or several pipelined).
	end := rewrittenFrom(p, t)
	if end > oldest.base {
		return
	}
	l, _ := p.forgot.cut(p.tp, max(end, t.LogStartOffset))
	addLoss(loss, l)
}

// rewrittenFrom is where the read shows the log's content to end as far
// as the forgotten offsets go: the high watermark, lowered past the batches
// just below it that are this producer's own acknowledged batches (in the
// history, at the offsets read). Such a batch sitting over forgotten
// offsets was written after the truncation (the write that revealed it,
// say): the offsets it holds had older records of ours, now gone.
func rewrittenFrom(p *partition, t Tail) int64 {
	ours := make(map[ackRec]bool, len(p.history))
	for _, a := range p.history {
		a.untold, a.order, a.id = false, 0, 0
		ours[a] = true
	}
	end := t.HighWatermark
	for {
		i := slices.IndexFunc(t.Batches, func(tb TailBatch) bool {
			return tb.Records > 0 && tb.BaseOffset+int64(tb.Records) == end
		})
		if i < 0 {
			return end
		}
		tb := t.Batches[i]
		if !ours[ackRec{base: tb.BaseOffset, records: tb.Records, key: tailKey{tb.ProducerID, tb.Epoch, tb.BaseSequence}}] {
			return end
		}
		end = tb.BaseOffset
	}
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
		var err error = &CodeError{Code: kafkaerr.MessageTooLarge, Err: ErrNotWritten}
		if why != nil {
			err = fmt.Errorf("%w: %w", err, why)
		}
		pr.fail(p, b, err)
		pr.settle(p)
		return true
	}
	pr.replace(p, b, parts)
	if pr.txn != nil && pr.txn.state == TxnFatal {
		// The transactional producer ended while the batch awaited its
		// split: the parts are never sent.
		for _, part := range parts {
			if nb := p.byID[part.ID]; nb != nil {
				pr.fail(p, nb, errAbortedNotWritten)
			}
		}
	}
	pr.wake(p)
	pr.settle(p)
	return true
}

// replace puts parts, unnumbered and with b's deadline and stamp, in b's
// place in p's queue. A part without records or whose id is taken fails
// at once.
func (pr *Producer) replace(p *partition, b *batch, parts []Part) {
	repl := make([]*batch, 0, len(parts))
	seen := make(map[BatchID]bool, len(parts))
	for _, part := range parts {
		if part.Records <= 0 || (p.byID[part.ID] != nil && part.ID != b.id) || seen[part.ID] {
			pr.emit(Failed{TP: p.tp, ID: part.ID, Err: errNoRecordsOrDup(part.Records)})
			continue
		}
		seen[part.ID] = true
		repl = append(repl, &batch{id: part.ID, records: part.Records, deadline: b.deadline, stamp: b.stamp, offset: -1})
		if !b.deadline.IsZero() && (p.nextDue.IsZero() || b.deadline.Before(p.nextDue)) {
			p.nextDue = b.deadline
		}
	}
	i := 0
	for p.batches[i] != b {
		i++
	}
	delete(p.byID, b.id)
	if b.numbered {
		p.nNumbered--
	}
	rest := append(repl, p.batches[i+1:]...)
	p.batches = append(p.batches[:i], rest...)
	for _, x := range repl {
		p.byID[x.id] = x
	}
}

func errNoRecordsOrDup(records int32) error {
	if records <= 0 {
		return errNoRecords
	}
	return errDuplicateID
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
		pr.holdOff(p)
		return // the read stays due: ask again
	}
	// Nothing uncertain is left: every other batch is known not written.
	p.on(evReadFailed)
}
