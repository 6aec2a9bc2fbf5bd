package idempotence

// SendOffsets: a consumer group's offsets join the open transaction
// (KIP-98): AddOffsetsToTxn adds the group's offsets partition to it at
// the transaction coordinator, then TxnOffsetCommit hands the offsets to
// the group's coordinator, which keeps them pending until the transaction
// ends (README, transaction rules).

import (
	"github.com/rollsafe/rollsafe/kafkaerr"
)

// offPhase is the request SendOffsets needs next.
type offPhase uint8

const (
	offAdd    offPhase = iota // AddOffsetsToTxn
	offCommit                 // TxnOffsetCommit
)

// txnOffsets is where SendOffsets stands, beside the state
// (TxnSendingOffsets while it runs).
type txnOffsets struct {
	group    string
	phase    offPhase
	maybe    bool // an AddOffsetsToTxn went unanswered: the coordinator may hold the transaction
	coord    int32
	hasCoord bool // the group's coordinator is known
	finding  bool // FindCoordinator{Group} emitted, CoordinatorFound pending
}

// begin forgets the last transaction's AddOffsetsToTxn (the group's
// coordinator stays known).
func (o *txnOffsets) begin() { o.maybe, o.phase = false, offAdd }

// start readies SendOffsets for group.
func (o *txnOffsets) start(group string) {
	if group != o.group {
		o.hasCoord, o.finding = false, false
	}
	o.group, o.phase = group, offAdd
}

// txnSendOffsets sends the request SendOffsets needs next: AddOffsetsToTxn
// to the transaction coordinator, or TxnOffsetCommit to the group's
// coordinator after looking it up.
func (pr *Producer) txnSendOffsets() {
	t := pr.txn
	o := &t.off
	if o.phase == offAdd {
		if pr.txnSend(reqAddOffsets, pr.pid, pr.epoch, false) {
			pr.events[len(pr.events)-1] = AddOffsetsRequest{Broker: t.coord, ProducerID: pr.pid, Epoch: pr.epoch, Group: o.group}
		}
		return
	}
	if !o.hasCoord {
		if !o.finding {
			o.finding = true
			pr.events = append(pr.events, FindCoordinator{Group: o.group})
		}
		return
	}
	t.req = reqOffsetsCommit
	pr.events = append(pr.events, OffsetsCommitRequest{Broker: o.coord, ProducerID: pr.pid, Epoch: pr.epoch, Group: o.group})
}

// groupCoordinatorFound applies the group's FindCoordinator answer.
func (pr *Producer) groupCoordinatorFound(x CoordinatorFound) {
	t := pr.txn
	if t == nil || !t.off.finding || x.Group != t.off.group {
		return
	}
	t.off.finding = false
	if x.Broker >= 0 {
		t.off.coord, t.off.hasCoord = x.Broker, true
		return
	}
	switch a := x.Code.GroupTxnAction(); a {
	case kafkaerr.TxnOK, kafkaerr.TxnRetry, kafkaerr.TxnRediscover:
		t.retryAt = pr.now.Add(pr.cfg.RetryBackoff)
	default:
		pr.offsetsFailed(x.Code, a)
	}
}

func (pr *Producer) addOffsetsAnswered(c kafkaerr.Code) {
	t := pr.txn
	o := &t.off
	a := c.TxnAction()
	switch a {
	case kafkaerr.TxnOK:
		// The group's offsets partition is in the transaction: the
		// coordinator holds it open.
		t.started, o.maybe = true, false
		o.phase = offCommit
	case kafkaerr.TxnRetry, kafkaerr.TxnRediscover:
		if c == kafkaerr.Transport {
			o.maybe = true
		}
		pr.retryCoordinator(a)
	default:
		// Refused: this request (and the same one before it) was not
		// applied.
		o.maybe = false
		pr.offsetsFailed(c, a)
	}
}

func (pr *Producer) offsetsCommitAnswered(x OffsetsCommitAnswer) {
	t := pr.txn
	worst, act := x.Code, x.Code.GroupTxnAction()
	if x.Code == kafkaerr.None {
		rank := [...]int{kafkaerr.TxnOK: 0, kafkaerr.TxnRetry: 1, kafkaerr.TxnRediscover: 2, kafkaerr.TxnAbortable: 3, kafkaerr.TxnStaleEpoch: 4, kafkaerr.TxnFatal: 5}
		for _, c := range x.Partitions {
			if a := c.GroupTxnAction(); rank[a] > rank[act] {
				worst, act = c, a
			}
		}
	}
	switch act {
	case kafkaerr.TxnOK:
		if t.state == TxnSendingOffsets {
			pr.txnTo(tvOffsetsSent, nil)
		}
	case kafkaerr.TxnRetry, kafkaerr.TxnRediscover:
		if act == kafkaerr.TxnRediscover {
			t.off.hasCoord = false
		}
		t.retryAt = pr.now.Add(pr.cfg.RetryBackoff)
	default:
		pr.offsetsFailed(worst, act)
	}
}

// offsetsFailed applies an abortable, stale-epoch or fatal answer to
// SendOffsets' requests.
func (pr *Producer) offsetsFailed(c kafkaerr.Code, a kafkaerr.TxnAction) {
	switch a {
	case kafkaerr.TxnAbortable:
		pr.txnAbortable(txnCodeError(c, ErrTxnAbortable))
	case kafkaerr.TxnStaleEpoch:
		pr.coordinatorFenced(c)
	default:
		pr.txnFatal(txnCodeError(c, ErrTxnFatal))
	}
}
