package idempotence

// What a transaction's errors and ends do to its batches: kept while it
// is open, told when it commits, aborts or the producer goes fatal; the
// gates a batch passes (taken only inside a transaction, released once
// its partition is added).

import (
	"errors"
	"fmt"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

// txnAbortable records an error the open transaction cannot commit after.
func (pr *Producer) txnAbortable(err error) {
	t := pr.txn
	if t.ending {
		return
	}
	switch t.state {
	case TxnInTransaction, TxnSendingOffsets, TxnCommitting:
		t.cause = err
		pr.txnTo(tvAbortable, err)
	case TxnAbortableError, TxnAborting:
		if t.cause == nil {
			t.cause = err
		}
	}
}

// coordinatorFenced applies the coordinator's refusal of our epoch (90
// PRODUCER_FENCED, 47 INVALID_PRODUCER_EPOCH; 49 INVALID_PRODUCER_ID_MAPPING:
// the id no longer maps to us): a newer instance took the transactional
// id, or the coordinator aborted the transaction on its timeout and bumped
// the epoch. Nothing tells the two apart safely — a transaction.version 2
// coordinator (Kafka 4.x) keeps the epoch a newer instance fenced as the
// last one and takes an InitProducerId naming it as a retry, which would
// hand this zombie the newer instance's epoch —, so it is fatal, as in
// Kafka's producer.
func (pr *Producer) coordinatorFenced(c kafkaerr.Code) {
	if c == kafkaerr.InvalidProducerIDMapping {
		pr.txnFatal(txnCodeError(c, ErrTxnFatal))
		return
	}
	pr.txnFatal(withTxnCode(c, fmt.Errorf("%w: %w: the coordinator refused the epoch (answered %v): a newer instance took the transactional id, or the coordinator aborted the transaction on its timeout", ErrFenced, ErrTxnFatal, c)))
}

// txnStale records a stale epoch a partition's leader answered (47, 90):
// the markers of an abort the coordinator made (its timeout, or a newer
// instance's fence) moved the partition's epoch. The transaction must
// abort; the abort's EndTxn says whether the coordinator still takes our
// epoch (coordinatorFenced otherwise).
func (pr *Producer) txnStale(c kafkaerr.Code) {
	t := pr.txn
	if !t.state.open() {
		return
	}
	t.stale = true
	pr.txnAbortable(txnCodeError(c, ErrTxnAbortable))
}

// txnFatal ends the producer: every batch still held fails (one awaiting
// its split once the caller's SplitBatch places the parts), and the
// transaction's batches are reported aborted — or unknown if a commit may
// have been applied.
func (pr *Producer) txnFatal(err error) {
	t := pr.txn
	unknown := t.endLost || (t.req == reqEnd && t.commit)
	t.cause = err
	t.ending = true // the failures below are the end, not a cause to abort
	defer func() { t.ending = false }()
	for _, p := range pr.order {
		for i := 0; i < len(p.batches); {
			b := p.batches[i]
			if b.st == stAwaitSplit {
				i++ // the caller's SplitBatch places its parts, which fail then
				continue
			}
			e := errAborted
			if b.st == stQueued || (b.st == stNotAppended && !b.unknown) {
				e = errAbortedNotWritten
			}
			pr.fail(p, b, e)
		}
		p.inFlight = 0
	}
	pr.txnReport(false, unknown)
	pr.txnTo(tvFatal, err)
}

// txnReport tells the outcome of every batch of the transaction, in the
// order they finished: delivered if committed, else aborted (or unknown).
func (pr *Producer) txnReport(commit, unknown bool) {
	t := pr.txn
	for _, r := range t.results {
		var e Event
		switch {
		case commit:
			e = Delivered{TP: r.tp, ID: r.id, BaseOffset: r.offset}
		case unknown:
			e = Failed{TP: r.tp, ID: r.id, Err: fmt.Errorf("%w: the commit may have been applied: %w", t.cause, ErrOutcomeUnknown)}
		case r.written:
			e = Failed{TP: r.tp, ID: r.id, Err: errAborted}
		default:
			e = Failed{TP: r.tp, ID: r.id, Err: errAbortedNotWritten}
		}
		pr.events = append(pr.events, e)
	}
	clear(t.results)
	t.results = t.results[:0]
}

// txnDivert keeps a batch's outcome while its transaction is open (it is
// told when the transaction ends); a failure makes the transaction
// abortable. It reports whether e was kept.
func (pr *Producer) txnDivert(e Event) bool {
	t := pr.txn
	if !t.state.open() {
		return false
	}
	switch x := e.(type) {
	case Delivered:
		t.results = append(t.results, txnResult{tp: x.TP, id: x.ID, offset: x.BaseOffset, delivered: true, written: true})
		return true
	case Failed:
		t.results = append(t.results, txnResult{tp: x.TP, id: x.ID, offset: -1, written: !errors.Is(x.Err, ErrNotWritten)})
		pr.txnAbortable(txnBatchError(x.Err))
		return true
	case DataLoss:
		pr.txnAbortable(errTxnLoss)
	case NeedSplit:
		// The parts cannot take the batch's sequences: they need a fresh
		// epoch, which only the end of the transaction gives.
		pr.txnAbortable(errNeedsBump)
	}
	return false
}

// txnAccepts says whether a batch may join the transaction now.
func (pr *Producer) txnAccepts() error {
	switch t := pr.txn; t.state {
	case TxnInTransaction, TxnSendingOffsets:
		return nil
	case TxnAbortableError:
		return errMustAbort
	case TxnFatal:
		return fmt.Errorf("%w: %w", t.cause, ErrNotWritten)
	}
	return errNotInTxn
}

// txnWant notes that tp holds a batch of the transaction: it is added
// before the batch goes out.
func (pr *Producer) txnWant(tp TopicPartition) {
	t := pr.txn
	if t.adds[tp] == nil {
		t.adds[tp] = &add{}
		t.order = append(t.order, tp)
	}
}

// txnReleased reports whether tp's batches may go out: its add is
// acknowledged in the open transaction.
func (pr *Producer) txnReleased(tp TopicPartition) bool {
	t := pr.txn
	a := t.adds[tp]
	return t.state.open() && a != nil && a.st == addDone
}

// txnWantsBump is called by a partition that needs a fresh epoch: a
// transactional producer never bumps on its own (the coordinator owns the
// epoch), so the transaction must abort; the bump follows it.
func (pr *Producer) txnWantsBump() { pr.txnAbortable(errNeedsBump) }

// txnSweep fails, as aborted and not written, every batch the transaction
// holds that was never written and is not in flight; what may be in the
// log is settled first (answered, resent unchanged or read), so that no
// attempt of the transaction lands after its abort marker. A batch
// awaiting its split is left to the caller's SplitBatch (the caller holds
// its records in the parts from then on): the parts are swept.
func (pr *Producer) txnSweep() {
	t := pr.txn
	for _, p := range pr.order {
		swept := false
		for i := 0; i < len(p.batches); i++ {
			b := p.batches[i]
			never := b.st == stQueued || (b.st == stNotAppended && !b.unknown)
			if !never || b.reported {
				continue
			}
			if b.numbered {
				p.on(evNeedBump)
			}
			pr.fail(p, b, errAbortedNotWritten)
			i--
			swept = true
		}
		if swept {
			pr.settle(p)
			pr.wake(p)
		}
	}
	for _, tp := range t.order {
		if a := t.adds[tp]; a.st == addWanted && !a.maybe && t.state == TxnAborting {
			delete(t.adds, tp)
		}
	}
	if t.state == TxnAborting {
		n := 0
		for _, tp := range t.order {
			if t.adds[tp] != nil {
				t.order[n] = tp
				n++
			}
		}
		t.order = t.order[:n]
	}
}

// txnClosed reports the open transaction's batches at Close: it never
// commits (the coordinator aborts it on its timeout) unless an EndTxn
// commit may have been applied.
func (pr *Producer) txnClosed() {
	t := pr.txn
	if t == nil || !t.state.open() {
		return
	}
	unknown := t.state == TxnCommitting && t.endSent
	t.cause = fmt.Errorf("%w: %w", ErrClosed, ErrTxnFatal)
	pr.txnReport(false, unknown)
}
