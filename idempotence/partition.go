package idempotence

import (
	"slices"
	"time"
)

// historySize is how many acknowledged batches a partition remembers, to
// check after a log read that they are still there.
const historySize = 64

// ackRec is an acknowledged batch: its header and its place in the log.
// untold: the caller was told its outcome is unknown (a deadline, a purge)
// before the acknowledgement came, so it never heard it was written; its
// loss is not reported (the place it held still tells a truncation).
type ackRec struct {
	base    int64
	records int32
	key     tailKey
	untold  bool
	order   uint64  // the batch's numbering order (batch.order)
	id      BatchID // the batch; listed in byID until delivered
}

func (a ackRec) end() int64 { return a.base + int64(a.records) - 1 }

// partition is the sequence state machine of one partition.
type partition struct {
	tp      TopicPartition
	batches []*batch // unfinished batches in enqueue order; head is first unfinished
	byID    map[BatchID]*batch

	nNumbered int       // batches in the list holding a sequence (bounded by MaxInFlight)
	nextDue   time.Time // no deadline of a listed batch is before this

	hasID   bool // writing under pid/epoch
	pid     int64
	epoch   int16
	nextSeq int32

	hasLeader   bool
	leader      int32
	leaderEpoch int32
	knownEpoch  bool // leaderEpoch was learnt (>= 0); older ones are ignored
	// incarnation is the topic's incarnation (LeaderChanged.Incarnation),
	// 0 until one is told.
	incarnation uint64
	heldLoss    []DataLoss // found, reported at the next LeaderChanged of the same incarnation
	// looked: a LeaderChanged came, with a leader or without one: the
	// partition's metadata has been read at least once.
	looked bool

	// state is what the partition owes before it sends again (state.go:
	// the states, the transition table, and why the flags below stay
	// beside it).
	state    pstate
	inFlight int
	cautious bool      // after an error: one in flight until a success
	desync   bool      // the read is for a desynchronised broker state: renumber what is absent
	stopped  error     // non-nil: every batch fails with it
	retryAt  time.Time // hold until then
	fails    int       // failures in a row (produce errors, failed tail reads): the backoff grows with them

	ackedPID    int64 // a producer id with an acknowledged batch here
	hasAckedPID bool

	lastAckedSeq int32
	hasAckedSeq  bool
	anchor       ackRec // last batch of the delivered prefix with a known offset
	hasAnchor    bool
	anchorGap    int64    // records delivered after the anchor without a known offset
	readFrom     int64    // FromOffset of the pending tail read
	wideRead     bool     // the pending read does not start at the anchor
	shortReads   int      // reads in a row whose high watermark trailed what was acknowledged
	heldReads    int      // reads in a row repeated for a batch the leader holds uncommitted
	openReads    int      // reads in a row whose high watermark stayed below the leader's log end
	logStart     int64    // as last reported, -1 unknown
	history      []ackRec // recent acknowledged batches with known offsets, oldest first
	// forgot is the run of offsets, ours alone and without a gap, of the
	// acknowledged batches evicted from history up to its oldest: what a
	// truncation below the whole history took of them can still be told.
	forgot     forgotRun
	historyCap int    // len(history) at most
	numberings uint64 // batches numbered so far (batch.order)
}

func newPartition(tp TopicPartition, history int) *partition {
	if history <= 0 {
		history = historySize
	}
	return &partition{tp: tp, byID: map[BatchID]*batch{}, logStart: -1, historyCap: history}
}

// head is the first batch not yet acknowledged, or nil.
func (p *partition) head() *batch {
	for _, b := range p.batches {
		if b.st != stAcked {
			return b
		}
	}
	return nil
}

// numbered counts batches holding a sequence number (the broker's dedup
// window must cover all of them).
func (p *partition) numbered() int { return p.nNumbered }

// hasNumberedUnacked reports a batch that holds a sequence and is not acked.
func (p *partition) hasNumberedUnacked() bool {
	for _, b := range p.batches {
		if b.numbered && b.st != stAcked {
			return true
		}
	}
	return false
}

func (p *partition) hasUnknown() bool {
	for _, b := range p.batches {
		if b.unknown {
			return true
		}
	}
	return false
}

func (p *partition) has(st status) bool {
	for _, b := range p.batches {
		if b.st == st {
			return true
		}
	}
	return false
}

// number gives b the next sequence under the partition's identity.
func (p *partition) number(b *batch) {
	b.numbered, b.pid, b.epoch, b.seq = true, p.pid, p.epoch, p.nextSeq
	p.numberings++
	b.order = p.numberings
	p.nNumbered++
	p.nextSeq = addSeq(p.nextSeq, b.records)
}

// remove drops b from the partition.
func (p *partition) remove(b *batch) {
	for i, x := range p.batches {
		if x == b {
			p.batches = append(p.batches[:i], p.batches[i+1:]...)
			if b.numbered {
				p.nNumbered--
			}
			break
		}
	}
	delete(p.byID, b.id)
}

// acked records an acknowledgement of b at base (-1 unknown).
func (p *partition) acked(b *batch, base int64) {
	b.st, b.unknown, b.offset = stAcked, false, base
	p.fails = 0
	if b.numbered {
		p.lastAckedSeq, p.hasAckedSeq = addSeq(b.seq, b.records-1), true
		if b.pid == p.pid {
			p.ackedPID, p.hasAckedPID = b.pid, true
		}
	}
	if base >= 0 && b.numbered {
		// The history is kept in numbering order, which is the order of
		// our batches in an intact log, not in the order of the
		// acknowledgements: a batch answered REQUEST_TIMED_OUT and
		// deduplicated on its resend is acknowledged after the batches
		// pipelined behind it, at a lower offset. Evicting in log order
		// keeps the forgotten run contiguous below the history.
		a := ackRec{base: base, records: b.records, key: tailKey{b.pid, b.epoch, b.seq}, untold: b.reported, order: b.order, id: b.id}
		i := len(p.history)
		for i > 0 && p.history[i-1].order > a.order {
			i--
		}
		p.history = slices.Insert(p.history, i, a)
		if !p.state.readOwed() {
			p.trimHistory()
		}
	}
}

// trimHistory evicts the oldest remembered batches beyond the bound into
// the forgotten run, once delivered: one acknowledged but not delivered
// that a truncation takes is written again, not lost, which only the
// history can tell. While a read is due it is not called: the read must
// see every batch remembered when the truncation was noticed (at most
// MaxInFlight more are acknowledged before it).
func (p *partition) trimHistory() {
	for len(p.history) > p.historyCap && p.byID[p.history[0].id] == nil {
		p.forget(p.history[0])
		p.history = slices.Delete(p.history, 0, 1)
	}
}

// minNextOffset returns the lowest offset b can have in an intact log: past
// the nearest batch before it whose offset is known (an acknowledged batch
// still listed, or else the last delivered one), plus the records of the
// batches acknowledged between them without an offset
// (DUPLICATE_SEQUENCE_NUMBER), which occupy offsets too. ok is false when
// no offset before b is known.
func (p *partition) minNextOffset(b *batch) (next int64, ok bool) {
	if p.hasAnchor {
		next, ok = p.anchor.end()+1+p.anchorGap, true
	}
	for _, x := range p.batches {
		if x == b {
			break
		}
		if x.st != stAcked || x.old {
			continue
		}
		if x.offset >= 0 {
			next, ok = x.offset+int64(x.records), true
		} else {
			next += int64(x.records)
		}
	}
	return next, ok
}

// renumberAll clears the numbering of every unfinished batch; they are
// numbered again, in order, when next sent. Only called when none of them
// can be in the log.
func (p *partition) renumberAll() {
	for _, b := range p.batches {
		if b.st != stAcked && b.st != stAwaitSplit {
			if b.numbered {
				p.nNumbered--
			}
			b.numbered, b.st = false, stQueued
		}
	}
}

// forget records an acknowledged batch leaving history in the forgotten
// run.
func (p *partition) forget(a ackRec) { p.forgot.add(a) }

// overlapsRemembered reports an acknowledgement at offsets the partition
// remembers another of its acknowledged batches at (history or forgotten
// run): two of our batches never share an offset in one log, so the older
// one was truncated — even when the batch acknowledged before this one is
// no longer there to compare with (a read after a loss clears the anchor).
func (p *partition) overlapsRemembered(base int64, records int32, key tailKey) bool {
	end := base + int64(records) - 1
	for _, a := range p.history {
		if a.key != key && a.base <= end && base <= a.end() {
			return true
		}
	}
	return p.forgot.overlaps(base, end)
}

// rememberedAbove reports an acknowledgement of b at base below offsets
// the partition remembers of a batch numbered before b (history, anchor or
// forgotten run): in an intact log our batches lie in numbering order, so
// the log was cut below them before b was written — the proof a broker
// that cannot show its log end gives no read of. (One numbered after b may
// lie above it: acknowledgements come out of order.)
func (p *partition) rememberedAbove(b *batch, base int64) bool {
	end := base + int64(b.records) - 1
	for _, a := range p.history {
		if a.order < b.order && a.base > end {
			return true
		}
	}
	if p.hasAnchor && p.anchor.order < b.order && p.anchor.base > end {
		return true
	}
	return !p.forgot.empty() && p.forgot.from() > end
}

// truncatedUnder handles the proof of a truncation an acknowledgement of b
// at base gives when it lands over offsets of ours remembered: the log was
// cut to base or below before b was written there, so every batch of ours
// numbered before b and acknowledged at base or above is gone (numbered
// before b, it was appended before b — in the log's order — unless it was
// truncated first). Those the caller heard delivered are returned as the
// loss, with the forgotten offsets at and above base; those not yet
// delivered are written again (after the read, under a fresh epoch); the
// anchor, if gone, is dropped. Decided now, not by a read: a broker that
// cannot show its log end leaves a short read unbelieved, and this needs
// none.
func (p *partition) truncatedUnder(b *batch, base int64) DataLoss {
	loss := DataLoss{TP: p.tp, FromOffset: -1}
	kept := p.history[:0]
	for _, a := range p.history {
		if a.order >= b.order || a.base < base {
			kept = append(kept, a)
			continue
		}
		if x := p.byID[a.id]; x != nil {
			p.writeAgain(x) // acknowledged, not delivered: written again
			continue
		}
		if !a.untold {
			addLoss(&loss, DataLoss{TP: p.tp, FromOffset: a.base, ToOffset: a.end(), Records: int64(a.records)})
		}
	}
	p.history = kept
	if p.hasAnchor && p.anchor.order < b.order && p.anchor.base >= base {
		p.hasAnchor = false
	}
	l, _ := p.forgot.cut(p.tp, base)
	addLoss(&loss, l)
	return loss
}

// remembered returns the acknowledged batches with known offsets the
// partition remembers one by one: the history and the anchor.
func (p *partition) remembered() []ackRec {
	r := slices.Clip(p.history)
	if p.hasAnchor {
		r = append(r, p.anchor)
	}
	return r
}
