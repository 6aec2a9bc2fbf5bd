package idempotence

// The coordinator's answers: InitProducerId, AddPartitionsToTxn, EndTxn,
// each applied by its code's kafkaerr.TxnAction (README, transactions).

import (
	"fmt"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

func (pr *Producer) initAnswered(x InitProducerIDAnswer) {
	t := pr.txn
	switch a := x.Code.TxnAction(); a {
	case kafkaerr.TxnOK:
		if t.state == TxnBumping {
			pr.txnReport(false, false) // aborted by the coordinator (a stale epoch was answered)
		}
		pr.setIdentity(x.ProducerID, x.Epoch)
		var err error
		if t.state == TxnBumping {
			err = errAborted
		}
		pr.txnTo(tvIdentity, err)
	case kafkaerr.TxnRetry, kafkaerr.TxnRediscover:
		pr.retryCoordinator(a)
	case kafkaerr.TxnStaleEpoch:
		if t.state == TxnBumping && (x.Code == kafkaerr.ProducerFenced || x.Code == kafkaerr.InvalidProducerEpoch) {
			// The bump after our own abort refused: a newer instance
			// took the id meanwhile.
			pr.txnFatal(withTxnCode(x.Code, fmt.Errorf("%w: answered %v", errFenced, x.Code)))
			return
		}
		pr.txnFatal(txnCodeError(x.Code, ErrTxnFatal))
	default:
		pr.txnFatal(txnCodeError(x.Code, ErrTxnFatal))
	}
}

func (pr *Producer) addAnswered(x AddPartitionsAnswer) {
	t := pr.txn
	var sent []TopicPartition
	for _, tp := range t.order {
		if a := t.adds[tp]; a.st == addSent {
			a.st = addWanted
			sent = append(sent, tp)
		}
	}
	if x.Code != kafkaerr.None {
		a := x.Code.TxnAction()
		if x.Code == kafkaerr.Transport {
			for _, tp := range sent {
				t.adds[tp].maybe = true
			}
		}
		pr.addFailed(x.Code, a)
		return
	}
	var worst kafkaerr.Code
	var worstAct kafkaerr.TxnAction = kafkaerr.TxnOK
	rank := [...]int{kafkaerr.TxnOK: 0, kafkaerr.TxnRetry: 1, kafkaerr.TxnRediscover: 2, kafkaerr.TxnAbortable: 3, kafkaerr.TxnStaleEpoch: 4, kafkaerr.TxnFatal: 5}
	for _, tp := range sent {
		c, ok := x.Partitions[tp]
		if !ok {
			c = kafkaerr.OperationNotAttempted
		}
		a := c.TxnAction()
		if a == kafkaerr.TxnOK {
			t.adds[tp].st = addDone
			t.started = true
			if p := pr.parts[tp]; p != nil {
				pr.wake(p)
			}
			continue
		}
		if a == kafkaerr.TxnAbortable || a == kafkaerr.TxnFatal {
			// Refused for this partition (not authorized, no such
			// topic…): the coordinator checked the request and added
			// none of it, so an earlier unanswered attempt holds no
			// doubt either; while aborting it is not asked again.
			t.adds[tp].maybe = false
		}
		if rank[a] > rank[worstAct] {
			worst, worstAct = c, a
		}
	}
	if worstAct != kafkaerr.TxnOK {
		pr.addFailed(worst, worstAct)
	}
}

// addFailed applies the worst action of an AddPartitionsToTxn answer; the
// partitions not added are wanted again.
func (pr *Producer) addFailed(c kafkaerr.Code, a kafkaerr.TxnAction) {
	switch a {
	case kafkaerr.TxnRetry, kafkaerr.TxnRediscover:
		pr.retryCoordinator(a)
	case kafkaerr.TxnAbortable:
		pr.txnAbortable(txnCodeError(c, ErrTxnAbortable))
	case kafkaerr.TxnStaleEpoch:
		pr.coordinatorFenced(c)
	default:
		pr.txnFatal(txnCodeError(c, ErrTxnFatal))
	}
}

func (pr *Producer) endAnswered(c kafkaerr.Code) {
	t := pr.txn
	commit := t.commit // the state cannot move while EndTxn is out: nothing of the transaction is held
	switch a := c.TxnAction(); a {
	case kafkaerr.TxnOK:
		if commit {
			pr.txnReport(true, false)
			pr.txnTo(tvCommitted, nil)
			return
		}
		pr.abortDone()
	case kafkaerr.TxnRetry, kafkaerr.TxnRediscover:
		if commit && c == kafkaerr.Transport {
			t.endLost = true
		}
		pr.retryCoordinator(a)
	case kafkaerr.TxnStaleEpoch:
		pr.coordinatorFenced(c)
	case kafkaerr.TxnAbortable:
		if commit {
			pr.txnAbortable(txnCodeError(c, ErrTxnAbortable))
			return
		}
		pr.txnFatal(txnCodeError(c, ErrTxnFatal))
	default:
		pr.txnFatal(txnCodeError(c, ErrTxnFatal))
	}
}

// abortDone ends an abort: the batches are reported aborted, then the
// epoch moves (KIP-360) — or, where the broker cannot bump it, stays if no
// partition needs a fresh one.
func (pr *Producer) abortDone() {
	t := pr.txn
	pr.txnReport(false, false)
	if t.bumpOK {
		pr.txnTo(tvAborted, nil)
		return
	}
	for _, p := range pr.order {
		if p.state.bumpOwed() {
			pr.txnFatal(errNoBump)
			return
		}
	}
	pr.txnTo(tvAbortedSame, errAborted)
}
