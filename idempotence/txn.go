package idempotence

import (
	"fmt"
	"time"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

// add is where a partition's AddPartitionsToTxn stands in the open
// transaction.
type add struct {
	st    addState
	maybe bool // an attempt went unanswered: the coordinator may hold it
}

type addState uint8

const (
	addWanted addState = iota // a batch waits; not in a request now
	addSent                   // in the request in flight
	addDone                   // acknowledged: the partition's batches go out
)

// txnReq is the coordinator request in flight.
type txnReq uint8

const (
	reqNone txnReq = iota
	reqInit
	reqAdd
	reqEnd
	reqAddOffsets    // AddOffsetsToTxn
	reqOffsetsCommit // TxnOffsetCommit, to the group's coordinator
)

// txnResult is the outcome of one batch of the open transaction, told to
// the caller when the transaction ends.
type txnResult struct {
	tp        TopicPartition
	id        BatchID
	offset    int64
	delivered bool // acknowledged
	written   bool // may be in the log (acknowledged, or unknown)
}

// txn is the transaction machine of a transactional producer.
type txn struct {
	state  TxnState
	cause  error // why it must abort, or why it is fatal
	bumpOK bool  // InitProducerId v3+ (KIP-360): the epoch may be bumped with the current identity

	coord    int32
	hasCoord bool
	finding  bool // FindCoordinator emitted, CoordinatorFound pending
	req      txnReq
	retryAt  time.Time

	adds    map[TopicPartition]*add
	order   []TopicPartition // the partitions of adds, in the order added
	started bool             // a partition was acknowledged: the coordinator holds the transaction open
	stale   bool             // a stale epoch was answered: the abort asks InitProducerId, not EndTxn
	endSent bool             // an EndTxn(commit) went out
	commit  bool             // the EndTxn out commits
	endLost bool             // an EndTxn(commit) went unanswered: it may have been applied
	ending  bool             // txnFatal is failing what is held
	results []txnResult

	off txnOffsets // SendOffsets: where the group's offsets stand
}

// open reports a state in which the transaction holds batches.
func (s TxnState) open() bool {
	return s == TxnInTransaction || s == TxnSendingOffsets || s == TxnCommitting || s == TxnAbortableError || s == TxnAborting
}

// txnTo moves the transaction and tells the caller.
func (pr *Producer) txnTo(ev tevent, err error) {
	if pr.txn.on(ev) {
		pr.events = append(pr.events, TxnStateChanged{State: pr.txn.state, Err: err})
	}
}

// TxnState returns the transaction state (TxnUninitialized for a producer
// that is not transactional).
func (pr *Producer) TxnState() TxnState {
	if pr.txn == nil {
		return TxnUninitialized
	}
	return pr.txn.state
}

func (pr *Producer) refuse(format string, args ...any) {
	pr.events = append(pr.events, TxnRefused{Err: fmt.Errorf("%w: "+format, append([]any{ErrTxnState}, args...)...)})
}

// txnInput applies an input of the transaction machine; it reports false
// for any other input.
func (pr *Producer) txnInput(in Input) bool {
	t := pr.txn
	switch x := in.(type) {
	case InitTransactions:
		if t == nil || t.state != TxnUninitialized || pr.closed {
			pr.refuse("InitTransactions in %v", pr.TxnState())
			return true
		}
		pr.txnTo(tvInit, nil)
	case BeginTxn:
		if t == nil || t.state != TxnReady || pr.closed {
			pr.refuse("BeginTxn in %v", pr.TxnState())
			return true
		}
		clear(t.adds)
		t.off.begin()
		t.order, t.started, t.stale, t.endSent, t.endLost, t.cause = t.order[:0], false, false, false, false, nil
		pr.txnTo(tvBegin, nil)
	case CommitTxn:
		if t == nil || t.state != TxnInTransaction {
			pr.refuse("CommitTxn in %v", pr.TxnState())
			return true
		}
		pr.txnTo(tvCommit, nil)
	case AbortTxn:
		if t == nil || (t.state != TxnInTransaction && t.state != TxnAbortableError) {
			pr.refuse("AbortTxn in %v", pr.TxnState())
			return true
		}
		pr.txnTo(tvAbort, nil)
	case SendOffsets:
		if t == nil || t.state != TxnInTransaction || x.Group == "" {
			pr.refuse("SendOffsets(%q) in %v", x.Group, pr.TxnState())
			return true
		}
		t.off.start(x.Group)
		pr.txnTo(tvSendOffsets, nil)
	case CoordinatorFound:
		if x.Group != "" {
			pr.groupCoordinatorFound(x)
			return true
		}
		if t == nil || !t.finding {
			return true
		}
		t.finding = false
		if x.Broker < 0 {
			if x.Code != kafkaerr.None && x.Code.TxnAction() == kafkaerr.TxnFatal {
				// TRANSACTIONAL_ID_AUTHORIZATION_FAILED…: asking
				// again would never end.
				pr.txnFatal(txnCodeError(x.Code, ErrTxnFatal))
				return true
			}
			t.retryAt = pr.now.Add(pr.cfg.RetryBackoff)
			return true
		}
		t.coord, t.hasCoord = x.Broker, true
	case InitProducerIDAnswer:
		if t != nil && t.req == reqInit {
			t.req = reqNone
			pr.initAnswered(x)
		}
	case AddPartitionsAnswer:
		if t != nil && t.req == reqAdd {
			t.req = reqNone
			pr.addAnswered(x)
		}
	case AddOffsetsAnswer:
		if t != nil && t.req == reqAddOffsets {
			t.req = reqNone
			pr.addOffsetsAnswered(x.Code)
		}
	case OffsetsCommitAnswer:
		if t != nil && t.req == reqOffsetsCommit {
			t.req = reqNone
			pr.offsetsCommitAnswered(x)
		}
	case EndTxnAnswer:
		if t != nil && t.req == reqEnd {
			t.req = reqNone
			pr.endAnswered(x.Code)
		}
	default:
		return false
	}
	return true
}

// retryCoordinator applies a retry or re-discovery action.
func (pr *Producer) retryCoordinator(a kafkaerr.TxnAction) {
	t := pr.txn
	if a == kafkaerr.TxnRediscover {
		t.hasCoord = false
	}
	t.retryAt = pr.now.Add(pr.cfg.RetryBackoff)
}
