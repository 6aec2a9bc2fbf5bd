package client

import (
	"fmt"

	"github.com/rollsafe/rollsafe/idempotence"
)

// The loop's side of a transactional producer: it steps the application's
// calls into the transaction machine, answers each call when the machine
// says how it ended (TxnStateChanged, TxnRefused), and hands the
// coordinator requests the machine makes ready to goroutines (txn_io.go)
// that post their answers back.

// txnKind names an application call.
type txnKind uint8

const (
	txnInit txnKind = iota + 1
	txnBegin
	txnCommit
	txnAbort
	txnSendOffsets
)

func (k txnKind) String() string {
	switch k {
	case txnInit:
		return "InitTransactions"
	case txnBegin:
		return "BeginTransaction"
	case txnCommit:
		return "CommitTransaction"
	case txnAbort:
		return "AbortTransaction"
	case txnSendOffsets:
		return "SendOffsetsToTransaction"
	}
	return fmt.Sprintf("txnKind(%d)", uint8(k))
}

type (
	// txnCallIn: an application call; its outcome goes on done (buffered).
	txnCallIn struct {
		kind    txnKind
		noBump  bool            // InitTransactions: the brokers cannot bump an epoch (InitProducerId < v3)
		resume  bool            // the same call again, after the caller's context ended
		offsets *txnOffsetsCall // SendOffsetsToTransaction: the group and its offsets
		done    chan error
	}
	// heldQueryIn: reply is closed once no record waits for its topic's
	// metadata (CommitTransaction's and AbortTransaction's drain).
	heldQueryIn struct{ reply chan struct{} }
	// ackedQueryIn: reply is closed once no record waits for its topic's
	// metadata and every batch the machine holds has its outcome (Flush
	// inside an open transaction).
	ackedQueryIn struct{ reply chan struct{} }
)

// txnLoop is the transaction state the loop keeps beside the machine's.
type txnLoop struct {
	call      txnKind      // the call under way, 0 if none
	waiters   []chan error // its callers (a call repeated after its ctx ended joins)
	replies   []txnReply   // outcomes to send once the pass's events are acted on
	abortable error        // why the transaction must be aborted (TxnAbortableError)
	fatal     error        // why the producer is fatal (TxnFatal)
	last      txnKind      // the call ended last, and its outcome
	lastErr   error
	heldWait  []chan struct{}
	ackedWait []chan struct{}
	offsets   *txnOffsetsCall // the last SendOffsetsToTransaction's, for its TxnOffsetCommit
}

type txnReply struct {
	waiters []chan error
	err     error
	ends    bool // a commit or an abort: answered after the records' callbacks
}

// txnCall steps an application call into the machine, unless the
// outcome is already known.
func (l *loop) txnCall(c txnCallIn) {
	t := &l.txn
	switch {
	case c.resume && t.call == 0 && t.last == c.kind:
		c.done <- t.lastErr // it ended while nobody waited
		return
	case t.fatal != nil:
		c.done <- t.fatal
		return
	case t.call == c.kind:
		t.waiters = append(t.waiters, c.done)
		return
	case t.call != 0:
		c.done <- fmt.Errorf("%w (%v): %w", ErrTxnInProgress, t.call, ErrTxnState)
		return
	case (c.kind == txnCommit || c.kind == txnSendOffsets) && t.abortable != nil:
		c.done <- t.abortable
		return
	case c.kind == txnBegin && t.abortable != nil:
		// Refused with the cause, so that the caller learns it must
		// abort (as from a commit), not only that Begin is misplaced.
		c.done <- fmt.Errorf("%w: abort the transaction first: %w", ErrTxnState, t.abortable)
		return
	}
	t.call, t.waiters = c.kind, append(t.waiters[:0], c.done)
	switch c.kind {
	case txnInit:
		if c.noBump && l.idem.TxnState() == idempotence.TxnUninitialized {
			// Nothing was stepped into the machine but ticks (no batch
			// is taken before a transaction): it starts over knowing.
			cfg := l.idemCfg
			cfg.TxnNoEpochBump = true
			l.idem = idempotence.New(cfg)
		}
		l.step(idempotence.InitTransactions{})
	case txnBegin:
		l.step(idempotence.BeginTxn{})
	case txnCommit:
		l.step(idempotence.CommitTxn{})
	case txnAbort:
		l.step(idempotence.AbortTxn{})
	case txnSendOffsets:
		l.txnSendOffsets(c)
	}
}

// txnAnswer ends the call under way with err.
func (l *loop) txnAnswer(err error) {
	t := &l.txn
	if t.call == 0 {
		return
	}
	t.replies = append(t.replies, txnReply{waiters: t.waiters, err: err, ends: t.call == txnCommit || t.call == txnAbort})
	t.last, t.lastErr = t.call, err
	t.call, t.waiters = 0, nil
}

// txnEvent carries out a transaction event of the machine.
func (l *loop) txnEvent(ev idempotence.Event) {
	t := &l.txn
	switch e := ev.(type) {
	case idempotence.TxnRefused:
		l.txnAnswer(e.Err)
	case idempotence.TxnStateChanged:
		e.Err = txnBrokerError(e.Err)
		l.p.log.Debug("rollsafe: transaction state", "state", e.State.String(), "err", e.Err)
		if e.State != idempotence.TxnAbortableError {
			t.abortable = nil
		}
		switch e.State {
		case idempotence.TxnReady:
			if t.call == txnAbort {
				l.txnAnswer(nil) // aborted, as asked
			} else {
				l.txnAnswer(e.Err) // nil: initialized or committed
			}
		case idempotence.TxnInTransaction:
			if t.call == txnBegin || t.call == txnSendOffsets {
				l.txnAnswer(nil) // open, or the offsets are in it
			}
		case idempotence.TxnAbortableError:
			t.abortable = e.Err
			if t.call == txnCommit || t.call == txnSendOffsets {
				l.txnAnswer(e.Err)
			}
		case idempotence.TxnFatal:
			t.fatal = e.Err
			l.p.log.Error("rollsafe: transactional producer failed", "err", e.Err)
			l.txnAnswer(e.Err)
		}
	case idempotence.FindCoordinator:
		if e.Group != "" {
			l.p.findGroupCoordinator(e)
			return
		}
		l.p.findCoordinator()
	case idempotence.AddOffsetsRequest:
		l.p.addOffsetsToTxn(e)
	case idempotence.OffsetsCommitRequest:
		l.p.txnOffsetCommit(e, t.offsets)
	case idempotence.InitProducerIDRequest:
		l.p.txnInitProducerID(e)
	case idempotence.AddPartitionsRequest:
		l.p.addPartitionsToTxn(e)
	case idempotence.EndTxnRequest:
		l.p.endTxn(e)
	}
}

// txnReplies answers the calls that ended in this pass, once every event
// of the pass is acted on: a commit's or an abort's answer waits behind
// the callbacks of its records.
func (l *loop) txnReplies() {
	t := &l.txn
	for _, r := range t.replies {
		send := func() {
			for _, w := range r.waiters {
				w <- r.err
			}
		}
		if r.ends {
			l.p.calls.pushFunc(send)
		} else {
			send()
		}
	}
	clear(t.replies)
	t.replies = t.replies[:0]
	if len(t.heldWait) > 0 && !l.holding() {
		for _, c := range t.heldWait {
			close(c)
		}
		t.heldWait = t.heldWait[:0]
	}
	if len(t.ackedWait) > 0 && !l.holding() && l.idem.Idle() {
		for _, c := range t.ackedWait {
			close(c)
		}
		t.ackedWait = t.ackedWait[:0]
	}
}

// holding reports whether a record waits for its topic's metadata.
func (l *loop) holding() bool {
	for _, q := range l.held {
		if len(q.recs) > 0 {
			return true
		}
	}
	return false
}
