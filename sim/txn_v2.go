package sim

import (
	"math"
	"time"
)

// Transactions v2 (KIP-890 part 2, Kafka 4.0+, the cluster's finalized
// feature transaction.version at 2): a transactional Produce v12 or
// TxnOffsetCommit v5 adds its partition to the transaction itself (the
// leader asks the coordinator, Kafka's broker-to-coordinator
// AddPartitionsToTxn v5), and every EndTxn v5 bumps the producer's epoch,
// the markers carrying the new one and the response handing it to the
// producer.

// endV2 is what EndTxn v5 decided: the code, the producer id and epoch
// the response carries (-1 unless NONE), and whether the transaction moved
// to Prepare (its markers then to be written).
type endV2 struct {
	code     int16
	pid      int64
	epoch    int16
	prepared bool
}

// endTxnV2 decides EndTxn v5 as Kafka's coordinator does for
// transactions v2. The epoch named must be the current one, except for a
// retry of an end already made, which names the epoch before it (the one
// before a rotation: the previous producer id at 32766). A retry of the
// outcome reached is NONE with the current producer, of one still being
// completed CONCURRENT_TRANSACTIONS. An abort at the current epoch with
// no transaction ongoing is taken too: it bumps the epoch, no marker to
// write. Any other state or outcome is INVALID_TXN_STATE, any other epoch
// PRODUCER_FENCED. newPID allocates the producer id an exhausted epoch
// rotates to.
func (m *txnMeta) endTxnV2(pid int64, epoch int16, commit bool, newPID func() int64, now time.Time) endV2 {
	refuse := func(code int16) endV2 { return endV2{code: code, pid: -1, epoch: noEpoch} }
	if m == nil {
		return refuse(errInvalidProducerIDMapping)
	}
	retryOverflow := m.prevPID == pid && epoch == math.MaxInt16-1 && m.epoch == 0 && m.pid != pid
	retryBump := m.pid == pid && epoch+1 == m.epoch
	retry := retryBump || retryOverflow
	if m.pid != pid && !retryOverflow {
		return refuse(errInvalidProducerIDMapping)
	}
	var valid bool
	switch m.state {
	case TxnOngoing, TxnEmpty:
		valid = epoch == m.epoch
	case TxnPrepareCommit, TxnPrepareAbort:
		valid = retryBump
	default: // CompleteCommit, CompleteAbort
		valid = retry || epoch == m.epoch
	}
	if !valid {
		return refuse(errProducerFenced)
	}
	current := endV2{code: errNone, pid: m.pid, epoch: m.epoch}
	switch m.state {
	case TxnOngoing:
		return m.prepareV2(commit, newPID, now)
	case TxnPrepareCommit, TxnPrepareAbort:
		if commit == (m.state == TxnPrepareCommit) {
			return refuse(errConcurrentTransactions)
		}
	case TxnCompleteCommit, TxnCompleteAbort:
		reached := commit == (m.state == TxnCompleteCommit)
		switch {
		case retry && reached:
			return current
		case !retry && !commit:
			return m.prepareV2(false, newPID, now) // an abort with nothing ongoing
		}
	case TxnEmpty:
		if !commit {
			return m.prepareV2(false, newPID, now)
		}
	}
	return refuse(errInvalidTxnState)
}

// prepareV2 moves the transaction to PrepareCommit or PrepareAbort with
// the epoch bumped (transactions v2); an exhausted epoch is bumped to
// 32767 for the markers, and the producer id it rotates to at completion,
// with epoch 0, is what the producer is answered.
func (m *txnMeta) prepareV2(commit bool, newPID func() int64, now time.Time) endV2 {
	if m.state != TxnOngoing {
		m.started = now // an abort with nothing ongoing
		m.parts, m.offsets = map[tp]bool{}, nil
	}
	m.nextPID = -1
	if epochExhausted(m.epoch) {
		m.nextPID = newPID()
	}
	m.lastEpoch, m.epoch = m.epoch, m.epoch+1
	m.prepare(commit, now)
	if m.nextPID >= 0 {
		return endV2{code: errNone, pid: m.nextPID, epoch: 0, prepared: true}
	}
	return endV2{code: errNone, pid: m.pid, epoch: m.epoch, prepared: true}
}
