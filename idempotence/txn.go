package idempotence

import (
	"errors"
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
	endLost bool             // an EndTxn(commit) went unanswered: it may have been applied
	results []txnResult
}

// open reports a state in which the transaction holds batches.
func (s TxnState) open() bool {
	return s == TxnInTransaction || s == TxnCommitting || s == TxnAbortableError || s == TxnAborting
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
	case CoordinatorFound:
		if t == nil || !t.finding {
			return true
		}
		t.finding = false
		if x.Broker < 0 {
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
			// The coordinator grants InitProducerId with our identity
			// after its own timeout abort (KIP-588), never after a newer
			// instance's: fenced.
			pr.txnFatal(errFenced)
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
		pr.txnStale(c)
	default:
		pr.txnFatal(txnCodeError(c, ErrTxnFatal))
	}
}

func (pr *Producer) endAnswered(c kafkaerr.Code) {
	t := pr.txn
	commit := t.state == TxnCommitting
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
		pr.txnStale(c)
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

// txnAbortable records an error the open transaction cannot commit after.
func (pr *Producer) txnAbortable(err error) {
	t := pr.txn
	switch t.state {
	case TxnInTransaction, TxnCommitting:
		t.cause = err
		pr.txnTo(tvAbortable, err)
	case TxnAbortableError, TxnAborting:
		if t.cause == nil {
			t.cause = err
		}
	}
}

// txnStale records a stale epoch: the coordinator's timeout or a newer
// instance moved it; the abort tells which.
func (pr *Producer) txnStale(c kafkaerr.Code) {
	t := pr.txn
	if !t.state.open() {
		return
	}
	t.stale = true
	pr.txnAbortable(txnCodeError(c, ErrTxnAbortable))
}

// txnFatal ends the producer: every batch still held fails, and the
// transaction's batches are reported aborted — or unknown if a commit may
// have been applied.
func (pr *Producer) txnFatal(err error) {
	t := pr.txn
	unknown := t.endLost || (t.req == reqEnd && t.state == TxnCommitting)
	t.cause = err
	for _, p := range pr.order {
		for len(p.batches) > 0 {
			b := p.batches[0]
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
		pr.txnAbortable(fmt.Errorf("%w: a batch failed: %v", ErrTxnAbortable, x.Err))
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
	case TxnInTransaction:
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
	if t.req != reqNone || !t.retryAt.IsZero() {
		return
	}
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
	case TxnAborting:
		if pr.txnSendAdds() || !pr.txnDrained() {
			return
		}
		switch {
		case t.stale:
			pr.txnTo(tvProbe, nil)
			pr.txnSend(reqInit, pr.pid, pr.epoch, false)
		case !t.started:
			pr.abortDone() // nothing reached the coordinator
		default:
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
		return false // the coordinator refuses our epoch: InitProducerId decides
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
	case reqEnd:
		t.endSent = t.endSent || commit
		pr.events = append(pr.events, EndTxnRequest{Broker: t.coord, ProducerID: pid, Epoch: epoch, Commit: commit})
	}
	return true
}

// txnSweep fails, as aborted and not written, every batch the transaction
// holds that was never written and is not in flight; what may be in the
// log is settled first (answered, resent unchanged or read), so that no
// attempt of the transaction lands after its abort marker.
func (pr *Producer) txnSweep() {
	t := pr.txn
	for _, p := range pr.order {
		swept := false
		for i := 0; i < len(p.batches); i++ {
			b := p.batches[i]
			never := b.st == stQueued || b.st == stAwaitSplit || (b.st == stNotAppended && !b.unknown)
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
