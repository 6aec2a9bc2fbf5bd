package sim

import (
	"math"
	"time"
)

// TxnState is a transaction coordinator's state for a transactional id,
// Kafka's TransactionState, named as DescribeTransactions names it.
type TxnState int8

// The coordinator's states. PrepareEpochFence is only ever passed
// through: an InitProducerId or a timeout fencing an ongoing transaction
// bumps the epoch and aborts at once, the transaction log never holding
// it, as in Kafka.
const (
	TxnEmpty TxnState = iota
	TxnOngoing
	TxnPrepareCommit
	TxnPrepareAbort
	TxnCompleteCommit
	TxnCompleteAbort
	TxnDead
	TxnPrepareEpochFence
)

func (s TxnState) String() string {
	switch s {
	case TxnEmpty:
		return "Empty"
	case TxnOngoing:
		return "Ongoing"
	case TxnPrepareCommit:
		return "PrepareCommit"
	case TxnPrepareAbort:
		return "PrepareAbort"
	case TxnCompleteCommit:
		return "CompleteCommit"
	case TxnCompleteAbort:
		return "CompleteAbort"
	case TxnDead:
		return "Dead"
	case TxnPrepareEpochFence:
		return "PrepareEpochFence"
	}
	return "Unknown"
}

// noEpoch is a producer epoch not yet given (RecordBatch.NO_PRODUCER_EPOCH).
const noEpoch = -1

// epochExhausted reports whether epoch leaves no room for a client epoch
// and a fence above it: the producer id must be rotated (Kafka's
// isEpochExhausted).
func epochExhausted(epoch int16) bool { return epoch >= math.MaxInt16-1 }

// txnMeta is the coordinator's record of one transactional id (Kafka's
// TransactionMetadata, transactions v1). Its changes are written to the
// transaction log at once and never lost: the sim's __transaction_state is
// always fully replicated.
type txnMeta struct {
	id        string
	pid       int64
	prevPID   int64 // the id before the last rotation (or the same)
	epoch     int16
	lastEpoch int16 // the epoch before the last bump a retry may name (KIP-360)
	timeout   time.Duration
	state     TxnState
	parts     map[tp]bool // the partitions in the transaction
	started   time.Time   // when its first partition was added (zero: none)
	updated   time.Time
	// markers are, in PrepareCommit and PrepareAbort, the marker each
	// partition was last written (nil: not yet); done the partitions whose
	// marker is below their high watermark.
	markers map[tp]*entry
	done    map[tp]bool
	// offsets are TxnOffsetCommit's offsets, by group, committed with the
	// transaction and dropped if it aborts.
	offsets map[string]map[tp]int64
	// nextPID is, while a transactions v2 end that exhausted the epoch
	// completes, the producer id it rotates to (else -1).
	nextPID int64
}

// pidEpoch is a producer id and epoch a request names.
type pidEpoch struct {
	pid   int64
	epoch int16
}

// newTxnMeta is a transactional id seen for the first time, given pid.
func newTxnMeta(id string, pid int64, timeout time.Duration, now time.Time) *txnMeta {
	return &txnMeta{id: id, pid: pid, prevPID: -1, nextPID: -1, epoch: noEpoch, lastEpoch: noEpoch,
		timeout: timeout, state: TxnEmpty, parts: map[tp]bool{}, updated: now}
}

// initDecision is what InitProducerId does to a transactional id.
type initDecision int8

const (
	initRefused initDecision = iota // the code says why
	initBumped                      // the epoch (or id) moved: answer it
	initFence                       // an ongoing transaction: fence and abort it, answer CONCURRENT_TRANSACTIONS
)

// initProducerID decides InitProducerId as Kafka's coordinator does for
// transactions v1: a request naming a producer (KIP-360) must name this
// transactional id's, the previous one after a rotation, or find it new;
// a transaction ending is CONCURRENT_TRANSACTIONS; an ongoing one is
// fenced; otherwise the epoch goes up (a retry naming the last epoch gets
// the current one again), or, once exhausted, a new producer id starts at
// epoch 0. newPID allocates a producer id.
func (m *txnMeta) initProducerID(timeout time.Duration, expected *pidEpoch, newPID func() int64, now time.Time) (initDecision, int16) {
	if expected != nil && m.epoch != noEpoch && expected.pid != m.pid &&
		!(expected.pid == m.prevPID && epochExhausted(expected.epoch)) {
		return initRefused, errProducerFenced
	}
	switch m.state {
	case TxnPrepareCommit, TxnPrepareAbort:
		return initRefused, errConcurrentTransactions
	case TxnOngoing:
		if m.epoch == math.MaxInt16 {
			return initRefused, errUnknownServerError // Kafka cannot fence past it either
		}
		return initFence, errConcurrentTransactions
	}
	if epochExhausted(m.epoch) && (expected == nil || expected.epoch == m.epoch) {
		last := int16(noEpoch)
		if expected != nil {
			last = m.epoch
		}
		m.prevPID, m.pid, m.epoch, m.lastEpoch = m.pid, newPID(), 0, last
	} else {
		next, last := m.epoch+1, int16(noEpoch)
		switch {
		case expected == nil:
		case m.epoch == noEpoch || expected.epoch == m.epoch:
			last = m.epoch
		case expected.epoch == m.lastEpoch:
			next, last = m.epoch, m.lastEpoch // a retry of a bump already made
		default:
			return initRefused, errProducerFenced
		}
		m.prevPID, m.epoch, m.lastEpoch = m.pid, next, last
	}
	m.state, m.timeout, m.updated = TxnEmpty, timeout, now
	m.parts, m.started = map[tp]bool{}, time.Time{}
	return initBumped, errNone
}

// check is the producer check every transactional request after
// InitProducerId makes (AddPartitionsToTxn, AddOffsetsToTxn, EndTxn):
// the id must be this transactional id's and the epoch its current one.
func (m *txnMeta) check(pid int64, epoch int16) int16 {
	switch {
	case m == nil || m.pid != pid:
		return errInvalidProducerIDMapping
	case m.epoch != epoch:
		return errProducerFenced
	}
	return errNone
}

// addPartitions adds parts to the transaction, starting it if none is
// ongoing (Kafka's handleAddPartitionsToTransaction).
func (m *txnMeta) addPartitions(pid int64, epoch int16, parts []tp, now time.Time) int16 {
	if code := m.check(pid, epoch); code != errNone {
		return code
	}
	switch m.state {
	case TxnPrepareCommit, TxnPrepareAbort:
		return errConcurrentTransactions
	case TxnEmpty, TxnCompleteCommit, TxnCompleteAbort:
		m.started = now
		m.parts = map[tp]bool{}
		m.offsets = nil
	}
	for _, p := range parts {
		m.parts[p] = true
	}
	m.state, m.updated = TxnOngoing, now
	return errNone
}

// endTxn decides EndTxn (transactions v1): an ongoing transaction moves
// to PrepareCommit or PrepareAbort (its markers then to be written); a
// retry of the transaction's completed outcome is answered NONE, of one
// being completed CONCURRENT_TRANSACTIONS; anything else
// INVALID_TXN_STATE. prepared reports a move to Prepare.
func (m *txnMeta) endTxn(pid int64, epoch int16, commit bool, now time.Time) (prepared bool, code int16) {
	if code := m.check(pid, epoch); code != errNone {
		return false, code
	}
	switch m.state {
	case TxnOngoing:
		m.prepare(commit, now)
		return true, errNone
	case TxnCompleteCommit, TxnCompleteAbort:
		if commit == (m.state == TxnCompleteCommit) {
			return false, errNone
		}
	case TxnPrepareCommit, TxnPrepareAbort:
		if commit == (m.state == TxnPrepareCommit) {
			return false, errConcurrentTransactions
		}
	}
	return false, errInvalidTxnState
}

// fence bumps the epoch of an ongoing transaction and aborts it, as
// Kafka's PrepareEpochFence does for InitProducerId and for a transaction
// past its timeout: the producer's requests at the old epoch are refused
// from then on, and the markers carry the new epoch. On a transactions v2
// cluster (v2) the abort is a v2 end, which keeps the old epoch as the
// last one: a retry naming it (InitProducerId, EndTxn v5's abort) is
// answered the new epoch.
func (m *txnMeta) fence(v2 bool, now time.Time) {
	m.state = TxnPrepareEpochFence
	last := int16(noEpoch)
	if v2 {
		last = m.epoch
	}
	m.epoch, m.lastEpoch = m.epoch+1, last
	m.prepare(false, now)
}

// prepare moves an ongoing (or fencing) transaction to PrepareCommit or
// PrepareAbort.
func (m *txnMeta) prepare(commit bool, now time.Time) {
	m.state = TxnPrepareAbort
	if commit {
		m.state = TxnPrepareCommit
	}
	m.updated = now
	m.markers, m.done = map[tp]*entry{}, map[tp]bool{}
}

// complete moves a transaction whose markers are all written to
// CompleteCommit or CompleteAbort.
func (m *txnMeta) complete(now time.Time) {
	if m.state == TxnPrepareCommit {
		m.state = TxnCompleteCommit
	} else {
		m.state = TxnCompleteAbort
	}
	m.updated = now
	m.parts, m.markers, m.done, m.offsets = map[tp]bool{}, nil, nil, nil
	if m.nextPID >= 0 {
		// Transactions v2 exhausted the epoch: the markers carried 32767,
		// the producer goes on as the new id at epoch 0.
		m.prevPID, m.pid, m.epoch, m.nextPID = m.pid, m.nextPID, 0, -1
	}
}

// timedOut reports whether the transaction is ongoing past its timeout.
func (m *txnMeta) timedOut(now time.Time) bool {
	return m.state == TxnOngoing && !m.started.IsZero() && now.Sub(m.started) > m.timeout
}

// verify answers a broker's check, before appending a transactional
// batch, that the producer's transaction holds partition p (KIP-890 part
// 1, Kafka 3.6+): TRANSACTION_ABORTABLE when it does not (which Produce
// before v11 answers INVALID_TXN_STATE).
func (m *txnMeta) verify(pid int64, epoch int16, p tp) int16 {
	if code := m.check(pid, epoch); code != errNone {
		return code
	}
	switch {
	case m.state == TxnPrepareCommit || m.state == TxnPrepareAbort:
		return errConcurrentTransactions
	case !m.parts[p]:
		return errTransactionAbortable
	}
	return errNone
}
