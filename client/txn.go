package client

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/rollsafe/rollsafe/idempotence"
)

// The errors of a transactional producer (TransactionalID). After a failed
// transaction call the error says exactly one of three things:
//
//   - retry the call: the context ended first (the error matches the
//     context's error; the call goes on in the background, and calling it
//     again waits for the same outcome);
//   - abort and go on: ErrTxnAbortable (call AbortTransaction, then begin
//     the next transaction);
//   - fatal: ErrTxnFatal, with ErrFenced when a newer instance with the
//     same transactional id took over; close the producer.
//
// An abortable or fatal error a broker's code caused also matches that
// code's protocol error (errors.Is with protocol.ErrTopicAuthorizationFailed,
// protocol.ErrProducerFenced…; errors.As with *protocol.KafkaError), as a
// record's error does; its text names the code.
//
// ErrTxnState says the call is not allowed now (a commit without a
// transaction): a mistake of the program, which the producer's state does
// not change. A call while another transaction call is under way is also
// ErrTxnInProgress; BeginTransaction while the transaction must be aborted
// is also the ErrTxnAbortable error that says why.
var (
	// ErrAborted: the record's transaction was aborted; a read_committed
	// reader never sees it. Joined with ErrNotWritten if it was never
	// written.
	ErrAborted = idempotence.ErrAborted
	// ErrTxnAbortable: the transaction cannot commit; AbortTransaction,
	// then go on with the next one. The cause is joined.
	ErrTxnAbortable = idempotence.ErrTxnAbortable
	// ErrTxnFatal: the transactional producer can go no further; close it.
	ErrTxnFatal = idempotence.ErrTxnFatal
	// ErrFenced: a newer producer with the same transactional id took over
	// (always with ErrTxnFatal). Its writes are the ones that count.
	ErrFenced = idempotence.ErrFenced
	// ErrTxnState: the call (or a Produce) is not allowed in the
	// transaction's current state.
	ErrTxnState = idempotence.ErrTxnState
	// ErrNoTransaction: Produce on a transactional producer with no
	// transaction open. The record is not written (ErrNotWritten); it also
	// matches ErrTxnState.
	ErrNoTransaction = errors.New("client: no transaction open")
	// ErrNotTransactional: a transaction call on a producer without
	// TransactionalID (also ErrTxnState).
	ErrNotTransactional = errors.New("client: the producer is not transactional")
	// ErrTxnInProgress: a transaction call while another is under way (a
	// commit, an abort or SendOffsetsToTransaction not yet ended, its
	// caller's context perhaps ended); also ErrTxnState. The call under
	// way goes on unaffected, and the refused one changed nothing (a
	// commit refused while SendOffsetsToTransaction runs leaves the
	// transaction open to records): call it again once the other ended.
	ErrTxnInProgress = errors.New("client: another transaction call is under way")
)

var (
	errNoTransaction    = notWritten(&wrapped{err: ErrNoTransaction, also: ErrTxnState})
	errNotTransactional = &wrapped{err: ErrNotTransactional, also: ErrTxnState}
)

// InitTransactions readies a transactional producer: it finds the
// transaction coordinator of its TransactionalID and asks it for the
// producer id and epoch, which fences any older instance with the same id
// and aborts the transaction it left open. Call it once, before the first
// BeginTransaction.
func (p *Producer) InitTransactions(ctx context.Context) error {
	if p.cfg.txnID == "" {
		return publicError(errNotTransactional)
	}
	// A coordinator before Kafka 2.5 (InitProducerId before v3) cannot
	// give the current producer id a fresh epoch after an abort; the
	// machine is told before it starts (loop_txn.go).
	noBump, err := p.txnNoEpochBump(ctx)
	if err != nil {
		return publicError(fmt.Errorf("client: InitTransactions: %w", err))
	}
	return p.txnCall(ctx, txnInit, noBump)
}

// BeginTransaction opens a transaction: records produced from now until
// CommitTransaction or AbortTransaction belong to it. It does not contact
// the cluster. While the last transaction must be aborted it is refused
// with ErrTxnState joined with that ErrTxnAbortable error (its cause
// included); while another transaction call is under way, with
// ErrTxnInProgress.
func (p *Producer) BeginTransaction() error {
	if p.cfg.txnID == "" {
		return publicError(errNotTransactional)
	}
	p.txnGate.mu.Lock()
	defer p.txnGate.mu.Unlock()
	if err := p.txnCall(context.Background(), txnBegin, false); err != nil {
		return err
	}
	p.txnGate.open = true
	return nil
}

// CommitTransaction commits the open transaction: it sends every record
// produced in it, waits until each is acknowledged, then has the
// coordinator commit. It returns once the records' callbacks (which say
// nil, at the records' offsets) have run. ErrTxnAbortable: the transaction
// could not commit (a record failed, the coordinator aborted it on its
// timeout); call AbortTransaction. If ctx ends first, the commit goes on:
// call CommitTransaction again to wait for it. Not from a callback
// (ErrInCallback). Records produced while it runs are refused
// (ErrNoTransaction).
func (p *Producer) CommitTransaction(ctx context.Context) error {
	return p.endTransaction(ctx, txnCommit)
}

// AbortTransaction aborts the open transaction (or the one an
// ErrTxnAbortable left): records not yet sent fail at once, those sent are
// settled, the coordinator writes the abort markers, and every record of
// the transaction is called back with ErrAborted (before it returns).
// Then the producer is ready for the next BeginTransaction. If ctx ends first, the abort goes
// on: call AbortTransaction again to wait for it. Not from a callback
// (ErrInCallback).
func (p *Producer) AbortTransaction(ctx context.Context) error {
	return p.endTransaction(ctx, txnAbort)
}

func (p *Producer) endTransaction(ctx context.Context, kind txnKind) error {
	if p.cfg.txnID == "" {
		return publicError(errNotTransactional)
	}
	if p.calls.inCallback() {
		return fmt.Errorf("%w: %v would wait for the callback it runs in", ErrInCallback, kind)
	}
	e, err := p.txnEnding.start(p, kind)
	if err != nil {
		return publicError(err)
	}
	select {
	case <-e.done:
		e.claimed.Store(true)
		return e.err
	case <-ctx.Done():
		return publicError(fmt.Errorf("client: %v: still under way (call it again to wait for it): %w", kind, ctx.Err()))
	}
}

// txnDrain returns once every record accepted in the transaction has
// reached the loop (in a closed batch, or failed): records waiting for
// their topic's metadata are placed first.
func (p *Producer) txnDrain(ctx context.Context) error {
	p.acc.Flush()
	if err := p.acc.Drain(ctx); err != nil {
		return err
	}
	// The loop answers once no record waits for its topic's metadata.
	q := heldQueryIn{reply: make(chan struct{})}
	p.loop.in.post(q)
	select {
	case <-q.reply:
	case <-ctx.Done():
		return ctx.Err()
	case <-p.loop.exited:
		return ErrClosed
	}
	// What the loop placed meanwhile is in the accumulator now.
	p.acc.Flush()
	return p.acc.Drain(ctx)
}

// txnCall hands an application call to the loop and waits for its outcome
// or ctx.
func (p *Producer) txnCall(ctx context.Context, kind txnKind, noBump bool) error {
	return p.txnSubmit(ctx, txnCallIn{kind: kind, noBump: noBump})
}

// txnSubmit hands the call c (its kind and arguments) to the loop and
// waits for its outcome or ctx.
func (p *Producer) txnSubmit(ctx context.Context, c txnCallIn) error {
	kind := c.kind
	// A call repeated after its context ended waits for the first one's
	// outcome, or gets it if it has ended meanwhile.
	c.resume = p.txnUnfinished.CompareAndSwap(int32(kind), 0)
	c.done = make(chan error, 1)
	p.loop.in.post(c)
	select {
	case err := <-c.done:
		if err != nil {
			return publicError(fmt.Errorf("client: %v: %w", kind, err))
		}
		return nil
	case <-ctx.Done():
		p.txnUnfinished.Store(int32(kind))
		return publicError(fmt.Errorf("client: %v: still under way (call it again to wait for it): %w", kind, ctx.Err()))
	case <-p.loop.exited:
		return publicError(fmt.Errorf("client: %v: %w", kind, ErrClosed))
	}
}

// txnGate lets Produce take records only while a transaction is open, and
// lets CommitTransaction and AbortTransaction wait for the Produce calls
// under way.
type txnGate struct {
	mu     sync.Mutex
	open   bool
	active int
	quiet  chan struct{} // closed when active drops to 0 after shut
}

// enter admits a Produce call into the open transaction.
func (g *txnGate) enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.open {
		return false
	}
	g.active++
	return true
}

func (g *txnGate) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.active--; g.active == 0 && g.quiet != nil {
		close(g.quiet)
		g.quiet = nil
	}
}

// shut closes the transaction to new records, reports whether it was
// open, and waits for the Produce calls under way to hand theirs over.
func (g *txnGate) shut(ctx context.Context) (wasOpen bool, err error) {
	g.mu.Lock()
	wasOpen, g.open = g.open, false
	if g.active == 0 {
		g.mu.Unlock()
		return wasOpen, nil
	}
	if g.quiet == nil {
		g.quiet = make(chan struct{})
	}
	quiet := g.quiet
	g.mu.Unlock()
	select {
	case <-quiet:
		return wasOpen, nil
	case <-ctx.Done():
		return wasOpen, ctx.Err()
	}
}

// isOpen reports whether a transaction takes records.
func (g *txnGate) isOpen() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.open
}

// txnFlush is Flush inside an open transaction: every record produced so
// far handed to the machine, then the loop answers once every batch has
// its outcome (acknowledged or failed; told at the transaction's end).
func (p *Producer) txnFlush(ctx context.Context) error {
	if err := p.txnDrain(ctx); err != nil {
		return publicError(fmt.Errorf("client: flush: %w", err))
	}
	q := ackedQueryIn{reply: make(chan struct{})}
	p.loop.in.post(q)
	select {
	case <-q.reply:
		return nil
	case <-ctx.Done():
		return publicError(fmt.Errorf("client: flush: records of the transaction unacknowledged: %w", ctx.Err()))
	case <-p.loop.exited:
		return publicError(ErrClosed)
	}
}

// reopen admits records again after a shut whose call was refused.
func (g *txnGate) reopen() {
	g.mu.Lock()
	g.open = true
	g.mu.Unlock()
}
