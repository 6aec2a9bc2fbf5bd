package client

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// A commit or an abort, once called, goes on whatever becomes of its
// caller's context: closing the transaction to new records, handing every
// record it has to the loop, then the machine's call. The caller waits
// for it as long as its context lets it; calling again waits for the same
// end (or gets its outcome, if nobody had it yet).

// txnEnding is the commit or abort under way, or the last one.
type txnEnding struct {
	mu  sync.Mutex
	cur *txnEnd
}

// txnEnd is one CommitTransaction or AbortTransaction.
type txnEnd struct {
	kind    txnKind
	done    chan struct{} // closed once err is set
	err     error
	claimed atomic.Bool // a caller had err
}

// start returns the end of kind under way (or ended with nobody told),
// starting one if there is none. Another end under way refuses it
// (ErrTxnInProgress), changing nothing.
func (t *txnEnding) start(p *Producer, kind txnKind) (*txnEnd, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e := t.cur; e != nil {
		select {
		case <-e.done:
			if e.kind == kind && !e.claimed.Load() {
				return e, nil
			}
		default:
			if e.kind == kind {
				return e, nil
			}
			return nil, fmt.Errorf("client: %v: %w (%v): %w", kind, ErrTxnInProgress, e.kind, ErrTxnState)
		}
	}
	e := &txnEnd{kind: kind, done: make(chan struct{})}
	t.cur = e
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		e.err = p.runEnd(kind)
		close(e.done)
	}()
	return e, nil
}

// runEnd closes the transaction to new records, hands every record of it
// to the loop, and steps the call into the machine; it returns the call's
// outcome. It is bounded only by the producer's life.
func (p *Producer) runEnd(kind txnKind) error {
	wasOpen, err := p.txnGate.shut(p.ctx)
	if err != nil {
		return publicError(fmt.Errorf("client: %v: %w", kind, closedOr(err)))
	}
	if err := p.txnDrain(p.ctx); err != nil {
		return publicError(fmt.Errorf("client: %v: %w", kind, closedOr(err)))
	}
	err = p.txnCall(p.ctx, kind, false)
	if wasOpen && errors.Is(err, ErrTxnInProgress) {
		// Refused while SendOffsetsToTransaction runs: the transaction
		// is still open, and takes records again.
		p.txnGate.reopen()
	}
	return err
}

// closedOr names the producer's end for an error its context caused.
func closedOr(err error) error {
	if errors.Is(err, context.Canceled) {
		return ErrClosed
	}
	return err
}
