package idempotence

// The next coordinator request a transaction needs, sent from the end of
// every Step.

import (
	"time"
)

// txnAdvance sends the coordinator request the transaction needs next,
// and, while it must abort, fails its batches never sent. It runs at the
// end of every Step.
func (pr *Producer) txnAdvance() {
	t := pr.txn
	if t == nil || pr.closed || t.state == TxnFatal {
		return
	}
	if t.state == TxnAbortableError || t.state == TxnAborting {
		pr.txnSweep()
	}
	if !t.retryAt.IsZero() && !pr.now.Before(t.retryAt) {
		t.retryAt = time.Time{} // the pause is over (NextWake no longer counts it)
	}
	// A step may end the transaction here (nothing to ask the
	// coordinator): the next state's request goes in the same Step.
	for range numTxnStates {
		from := t.state
		if t.req != reqNone || !t.retryAt.IsZero() || t.state == TxnFatal {
			return
		}
		pr.txnNextRequest()
		if t.state == from {
			return
		}
	}
}

// txnNextRequest sends the request the state needs, or ends the
// transaction when none is needed.
func (pr *Producer) txnNextRequest() {
	t := pr.txn
	switch t.state {
	case TxnInitializing:
		pr.txnSend(reqInit, -1, -1, false)
	case TxnBumping:
		pr.txnSend(reqInit, pr.pid, pr.epoch, false)
	case TxnInTransaction, TxnCommitting:
		if pr.txnSendAdds() {
			return
		}
		if t.state == TxnCommitting && pr.txnDrained() {
			if !t.started {
				pr.txnReport(true, false)
				pr.txnTo(tvCommitted, nil) // nothing reached the coordinator
				return
			}
			pr.txnSend(reqEnd, pr.pid, pr.epoch, true)
		}
	case TxnSendingOffsets:
		if !pr.txnSendAdds() {
			pr.txnSendOffsets()
		}
	case TxnAborting:
		if pr.txnSendAdds() || !pr.txnDrained() {
			return
		}
		switch {
		case t.off.maybe && !t.stale:
			// An AddOffsetsToTxn went unanswered: its answer says
			// whether the coordinator holds the transaction open.
			t.off.phase = offAdd
			pr.txnSendOffsets()
		case t.stale && !t.bumpOK:
			pr.txnFatal(errStaleNoBump) // no fresh epoch to be had after the abort
		case !t.started && !t.stale:
			pr.abortDone() // nothing reached the coordinator
		default:
			// After a stale epoch too: the coordinator's answer says
			// whether it still takes our epoch (else fatal: fenced).
			pr.txnSend(reqEnd, pr.pid, pr.epoch, false)
		}
	}
}

// txnDrained reports that no partition holds a batch: every batch of the
// transaction has its outcome.
func (pr *Producer) txnDrained() bool {
	for _, p := range pr.order {
		if len(p.batches) > 0 {
			return false
		}
	}
	return true
}

// txnSendAdds sends AddPartitionsToTxn for the partitions that need it
// and reports whether a request is (or must first be) under way: while
// aborting, only those an unanswered attempt may have added (their answer
// decides whether the coordinator holds the transaction open).
func (pr *Producer) txnSendAdds() bool {
	t := pr.txn
	if t.stale {
		return false // a leader refused our epoch: EndTxn(abort)'s answer decides
	}
	var tps []TopicPartition
	for _, tp := range t.order {
		if a := t.adds[tp]; a.st == addWanted && (t.state != TxnAborting || a.maybe) {
			tps = append(tps, tp)
		}
	}
	if len(tps) == 0 {
		return false
	}
	if pr.txnSend(reqAdd, pr.pid, pr.epoch, false) {
		for _, tp := range tps {
			t.adds[tp].st = addSent
		}
		pr.events[len(pr.events)-1] = AddPartitionsRequest{Broker: t.coord, ProducerID: pr.pid, Epoch: pr.epoch, Partitions: tps}
	}
	return true
}

// txnSend emits a coordinator request, after looking the coordinator up
// if it is not known; it reports whether the request went.
func (pr *Producer) txnSend(r txnReq, pid int64, epoch int16, commit bool) bool {
	t := pr.txn
	if !t.hasCoord {
		if !t.finding {
			t.finding = true
			pr.events = append(pr.events, FindCoordinator{})
		}
		return false
	}
	t.req = r
	switch r {
	case reqInit:
		pr.events = append(pr.events, InitProducerIDRequest{Broker: t.coord, ProducerID: pid, Epoch: epoch})
	case reqAdd:
		pr.events = append(pr.events, AddPartitionsRequest{}) // filled by txnSendAdds
	case reqAddOffsets:
		pr.events = append(pr.events, AddOffsetsRequest{}) // filled by txnSendOffsets
	case reqEnd:
		t.endSent, t.commit = t.endSent || commit, commit
		pr.events = append(pr.events, EndTxnRequest{Broker: t.coord, ProducerID: pid, Epoch: epoch, Commit: commit})
	}
	return true
}
