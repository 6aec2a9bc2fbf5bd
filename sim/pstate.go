package sim

import (
	"math"
	"time"
)

// dedupWindow is how many batches per producer a partition remembers.
const dedupWindow = 5

// batchMeta is what producer state remembers of one batch.
type batchMeta struct {
	firstSeq, lastSeq       int32
	firstOffset, lastOffset int64
}

// producerEntry is one producer's state on one partition replica.
type producerEntry struct {
	epoch   int16
	batches []batchMeta // oldest first, at most dedupWindow
	// lastActive is when the producer last wrote here (or, on the leader,
	// last sent a batch here): what producer.id.expiration.ms measures.
	lastActive time.Time
	// lastTimestamp is the max timestamp of its last batch (ms), as
	// DescribeProducers reports it.
	lastTimestamp int64
	// txnFirst is the offset of its ongoing transaction's first batch
	// here, -1 when it has none (Kafka's currentTxnFirstOffset).
	txnFirst int64
	// coordEpoch is the transaction coordinator epoch of the last marker
	// written for it here, -1 before any.
	coordEpoch int32
}

// newProducerEntry is the state of a producer first seen at epoch.
func newProducerEntry(epoch int16) *producerEntry {
	return &producerEntry{epoch: epoch, txnFirst: -1, coordEpoch: -1}
}

// setEpoch moves the producer to epoch; a new epoch forgets its batches,
// as Kafka's maybeUpdateProducerEpoch does.
func (e *producerEntry) setEpoch(epoch int16) {
	if epoch != e.epoch {
		e.epoch = epoch
		e.batches = e.batches[:0]
	}
}

// lastSeq is the last sequence of the producer's last batch, -1 if none.
func (e *producerEntry) lastSeq() int32 {
	if len(e.batches) == 0 {
		return -1
	}
	return e.batches[len(e.batches)-1].lastSeq
}

// producerTable is a replica's producer-state table for one partition.
type producerTable map[int64]*producerEntry

// seqRules are the broker behaviours that differ between Kafka versions.
type seqRules struct {
	pre25    bool // UNKNOWN_PRODUCER_ID for an unknown producer at a nonzero sequence
	fix15591 bool // an empty partition rejects an unknown producer at a nonzero sequence
}

// check decides a produced batch as a Kafka 2.5+ leader does: a retry of
// one of the last batches returns it (dup); otherwise the code is 0 when
// the batch may be appended.
func (t producerTable) check(h *batchHeader, rules seqRules, partitionEmpty bool) (dup *batchMeta, code int16) {
	if h.producerID < 0 {
		return nil, errNone
	}
	e := t[h.producerID]
	if e == nil {
		if h.baseSequence != 0 {
			if rules.pre25 {
				return nil, errUnknownProducerID
			}
			if rules.fix15591 && partitionEmpty {
				return nil, errOutOfOrderSequence
			}
		}
		return nil, errNone
	}
	if h.producerEpoch == e.epoch {
		last := h.lastSequence()
		for i := range e.batches {
			if e.batches[i].firstSeq == h.baseSequence && e.batches[i].lastSeq == last {
				return &e.batches[i], errNone
			}
		}
	}
	switch {
	case h.producerEpoch < e.epoch:
		return nil, errInvalidProducerEpoch
	case h.producerEpoch > e.epoch:
		if h.baseSequence != 0 {
			return nil, errOutOfOrderSequence
		}
	case len(e.batches) == 0:
		// Known at this epoch from a transaction marker only: its first
		// batch here starts at sequence 0, as after any new epoch.
		if h.baseSequence != 0 {
			return nil, errOutOfOrderSequence
		}
	default:
		if h.baseSequence != nextSeq(e.batches[len(e.batches)-1].lastSeq) {
			return nil, errOutOfOrderSequence
		}
	}
	if e.txnFirst >= 0 && !h.transactional() {
		// A plain batch while the producer's transaction is open here.
		return nil, errInvalidTxnState
	}
	return nil, errNone
}

// nextSeq is the sequence after seq, wrapping MaxInt32 to 0.
func nextSeq(seq int32) int32 {
	if seq == math.MaxInt32 {
		return 0
	}
	return seq + 1
}

// update records an appended batch at base offset. It is also how
// followers and restarted brokers rebuild state from a log.
func (t producerTable) update(pid int64, epoch int16, firstSeq, lastSeq int32, base, last int64) {
	if pid < 0 {
		return
	}
	e := t[pid]
	if e == nil {
		e = newProducerEntry(epoch)
		t[pid] = e
	}
	e.setEpoch(epoch)
	if len(e.batches) == dedupWindow {
		copy(e.batches, e.batches[1:])
		e.batches = e.batches[:dedupWindow-1]
	}
	e.batches = append(e.batches, batchMeta{firstSeq: firstSeq, lastSeq: lastSeq, firstOffset: base, lastOffset: last})
	e.lastActive = time.Now()
}

// add records an appended (or replicated, or replayed) log entry. A
// transaction marker ends the producer's transaction here: done is then
// the transaction it ended, if it wrote anything here (ok).
func (t producerTable) add(e *entry) (done completedTxn, ok bool) {
	if e.h.control() {
		return t.endTxn(e)
	}
	t.update(e.h.producerID, e.h.producerEpoch, e.h.baseSequence, e.h.lastSequence(), e.base, e.end()-1)
	if pe := t[e.h.producerID]; pe != nil {
		pe.lastTimestamp = e.h.maxTimestamp
		if e.h.transactional() && pe.txnFirst < 0 {
			pe.txnFirst = e.base // a transaction begins here
		}
	}
	return completedTxn{}, false
}

// endTxn applies a transaction marker as Kafka's appendEndTxnMarker does:
// the producer takes the marker's epoch (a new one forgets its batches)
// and coordinator epoch, and its transaction here, if any, is complete.
func (t producerTable) endTxn(e *entry) (done completedTxn, ok bool) {
	pid := e.h.producerID
	if pid < 0 {
		return completedTxn{}, false
	}
	pe := t[pid]
	if pe == nil {
		pe = newProducerEntry(e.h.producerEpoch)
		t[pid] = pe
	}
	if pe.txnFirst >= 0 {
		done = completedTxn{pid: pid, first: pe.txnFirst, last: e.base, aborted: e.h.marker == markerAbort}
		ok = true
	}
	pe.setEpoch(e.h.producerEpoch)
	pe.txnFirst = -1
	pe.coordEpoch = e.h.coordEpoch
	pe.lastTimestamp = e.h.maxTimestamp
	pe.lastActive = time.Now()
	return done, ok
}

// touch marks a producer active on this replica (a batch of its arrived).
func (t producerTable) touch(pid int64, now time.Time) {
	if e := t[pid]; e != nil {
		e.lastActive = now
	}
}

// expireIdle forgets producers idle for at least idle, except those with a
// transaction open here (Kafka never expires them), and returns them.
func (t producerTable) expireIdle(idle time.Duration, now time.Time) []int64 {
	var out []int64
	for pid, e := range t {
		if e.txnFirst < 0 && now.Sub(e.lastActive) >= idle {
			delete(t, pid)
			out = append(out, pid)
		}
	}
	return out
}

// dropStamped forgets the producers whose last batch's largest timestamp
// is expiration or longer before now: Kafka's isProducerExpired, applied
// when a snapshot is loaded and by the periodic expiry check. A producer
// with a transaction open here is kept, as in Kafka.
func (t producerTable) dropStamped(expiration time.Duration, now time.Time) {
	for pid, e := range t {
		if e.txnFirst < 0 && now.UnixMilli()-e.lastTimestamp >= expiration.Milliseconds() {
			delete(t, pid)
		}
	}
}

// shrink keeps only each producer's last batch, as a Kafka snapshot does.
func (t producerTable) shrink() {
	for _, e := range t {
		if n := len(e.batches); n > 1 {
			e.batches = append(e.batches[:0], e.batches[n-1])
		}
	}
}
