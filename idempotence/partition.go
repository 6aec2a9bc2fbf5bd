package idempotence

import "time"

// historySize is how many acknowledged batches a partition remembers to count
// lost records.
const historySize = 64

// extent is an acknowledged batch's place in the log.
type extent struct {
	base    int64
	records int32
}

// partition is the sequence state machine of one partition.
type partition struct {
	tp      TopicPartition
	batches []*batch // unfinished batches in enqueue order; head is first unfinished
	byID    map[BatchID]*batch

	hasID   bool // writing under pid/epoch
	pid     int64
	epoch   int16
	nextSeq int32

	hasLeader   bool
	leader      int32
	leaderEpoch int32

	inFlight int
	cautious bool      // after an error: one in flight until a success
	needBump bool      // drain, then resend every unfinished batch from 0 under a fresh epoch
	needRead bool      // drain, then read the tail before anything else
	reading  bool      // ReadTail asked, TailRead pending
	stopped  error     // non-nil: every batch fails with it
	retryAt  time.Time // hold until then

	ackedPID    int64 // a producer id with an acknowledged batch here
	hasAckedPID bool

	lastAckedSeq int32
	hasAckedSeq  bool
	lastAckedEnd int64 // last offset of the delivered prefix, -1 unknown
	maxAckedEnd  int64 // last offset of any acknowledged batch, -1 unknown
	logStart     int64 // as last reported, -1 unknown
	history      []extent
	historyNext  int
}

func newPartition(tp TopicPartition) *partition {
	return &partition{tp: tp, byID: map[BatchID]*batch{}, lastAckedEnd: -1, maxAckedEnd: -1, logStart: -1}
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
func (p *partition) numbered() int {
	n := 0
	for _, b := range p.batches {
		if b.numbered {
			n++
		}
	}
	return n
}

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
	p.nextSeq = addSeq(p.nextSeq, b.records)
}

// remove drops b from the partition.
func (p *partition) remove(b *batch) {
	for i, x := range p.batches {
		if x == b {
			p.batches = append(p.batches[:i], p.batches[i+1:]...)
			break
		}
	}
	delete(p.byID, b.id)
}

// acked records an acknowledgement of b at base (-1 unknown).
func (p *partition) acked(b *batch, base int64) {
	b.st, b.unknown, b.offset = stAcked, false, base
	if b.numbered {
		p.lastAckedSeq, p.hasAckedSeq = addSeq(b.seq, b.records-1), true
		if b.pid == p.pid {
			p.ackedPID, p.hasAckedPID = b.pid, true
		}
	}
	if base >= 0 {
		end := base + int64(b.records) - 1
		p.maxAckedEnd = max(p.maxAckedEnd, end)
		e := extent{base: base, records: b.records}
		if len(p.history) < historySize {
			p.history = append(p.history, e)
		} else {
			p.history[p.historyNext] = e
			p.historyNext = (p.historyNext + 1) % historySize
		}
	}
}

// lostRecords counts remembered acknowledged records within [from, to].
func (p *partition) lostRecords(from, to int64) int64 {
	var n int64
	for _, e := range p.history {
		lo, hi := max(e.base, from), min(e.base+int64(e.records)-1, to)
		if hi >= lo {
			n += hi - lo + 1
		}
	}
	return n
}

// renumberAll clears the numbering of every unfinished batch; they are
// numbered again, in order, when next sent. Only called when none of them
// can be in the log.
func (p *partition) renumberAll() {
	for _, b := range p.batches {
		if b.st != stAcked && b.st != stAwaitSplit {
			b.numbered, b.st = false, stQueued
		}
	}
}
