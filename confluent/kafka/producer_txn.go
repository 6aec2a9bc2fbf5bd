package kafka

import (
	"context"
	"errors"
	"time"

	"github.com/rollsafe/rollsafe/client"
)

// The transactional producer API (transactional.id), as confluent-kafka-go
// has it, on client.Producer's transactions. The errors returned are
// Errors with librdkafka's codes and flags (txn_errors.go): check
// TxnRequiresAbort (call AbortTransaction), IsRetriable (call again),
// IsFatal (close the producer), as confluent-kafka-go's documentation says.

// InitTransactions initializes transactions for the producer instance: it
// finds the transaction coordinator of transactional.id, gets the producer
// id and epoch, fences any older instance with the same transactional.id
// and aborts the transaction it left open. Call it once, before the first
// BeginTransaction.
//
// ctx bounds the wait; nil, or a context without a deadline, waits at most
// 2 × transaction.timeout.ms, as librdkafka does. When ctx ends first the
// error IsRetriable (ErrTimedOut): the initialization goes on in the
// background and calling InitTransactions again waits for it.
//
// Returns nil on success or an Error: ErrNotConfigured without
// transactional.id, ErrState when called twice or after Close, fatal
// (IsFatal) when the coordinator refuses (transaction.timeout.ms above the
// broker's transaction.max.timeout.ms, an authorization failure…).
func (p *Producer) InitTransactions(ctx context.Context) error {
	if err := p.txnUsable(); err != nil {
		return err
	}
	ctx, cancel := txnContext(ctx, 2*p.txnTimeout)
	defer cancel()
	return p.txnResult(p.c.InitTransactions(ctx))
}

// BeginTransaction starts a new transaction: messages produced from now
// until CommitTransaction or AbortTransaction belong to it and are
// committed or aborted together. InitTransactions must have succeeded
// first. It does not contact the cluster.
//
// With transactional.id, Produce is allowed only inside a transaction:
// before BeginTransaction, or once CommitTransaction or AbortTransaction
// has been called, it returns ErrState and the message is not produced.
//
// Returns nil on success or an Error: ErrState when a transaction is
// already open, before InitTransactions or after Close; the abortable
// error (TxnRequiresAbort, with the code that caused it) while the last
// transaction must be aborted, as librdkafka returns it; ErrConflict
// (IsRetriable) while another transaction call is under way;
// ErrNotConfigured without transactional.id; the fatal Error once the
// producer is fatal.
func (p *Producer) BeginTransaction() error {
	if err := p.txnUsable(); err != nil {
		return err
	}
	if err := p.txnResult(p.c.BeginTransaction()); err != nil {
		return err
	}
	p.txnOpen.Store(true)
	return nil
}

// CommitTransaction commits the current transaction: it sends every
// message produced in it, waits until each is acknowledged, then has the
// coordinator commit. The delivery reports of the transaction's messages
// (Error nil, at their offsets) are sent to their channels before it
// returns: the application MUST serve the Events() channel (or the
// delivery channels given to Produce) from another goroutine meanwhile, as
// with confluent-kafka-go.
//
// ctx bounds the wait (nil: no bound). When ctx ends first the error
// IsRetriable (ErrTimedOut): the commit goes on and calling
// CommitTransaction again waits for its outcome.
//
// Returns nil on success or an Error: TxnRequiresAbort when the
// transaction cannot commit (a message failed, the coordinator aborted it
// on its timeout; the Code is the broker's that caused it, when one did):
// call AbortTransaction, then begin the next one; IsFatal when the
// producer can go no further (ErrFenced: a newer instance with the same
// transactional.id took over); ErrConflict (IsRetriable) while another
// transaction call is under way; ErrState without a transaction open.
func (p *Producer) CommitTransaction(ctx context.Context) error {
	if err := p.txnUsable(); err != nil {
		return err
	}
	return p.txnEnd(ctx, p.c.CommitTransaction)
}

// AbortTransaction aborts the ongoing transaction; it is also how the
// application recovers from an abortable error (TxnRequiresAbort). No
// message of the transaction becomes visible to read_committed consumers.
// Its messages fail, their delivery reports sent before it returns (serve
// Events() from another goroutine meanwhile): ErrPurgeQueue for those
// certainly not written (MsgStatusNotPersisted), ErrPurgeInflight for
// those that may be in the log, as aborted records (rollsafe holds a
// transaction's messages until it ends, so every message of an aborted
// transaction gets one of these, none a success report).
//
// ctx bounds the wait (nil: no bound). When ctx ends first the error
// IsRetriable (ErrTimedOut): the abort goes on and calling
// AbortTransaction again waits for it.
//
// Returns nil on success or an Error: ErrState without a transaction to
// abort, ErrConflict (IsRetriable) while another transaction call is under
// way, IsFatal when the producer can go no further.
func (p *Producer) AbortTransaction(ctx context.Context) error {
	if err := p.txnUsable(); err != nil {
		return err
	}
	return p.txnEnd(ctx, p.c.AbortTransaction)
}

// txnUsable refuses a transaction call after Close, and returns the fatal
// error once the producer is fatal, as librdkafka's transactional calls do.
func (p *Producer) txnUsable() error {
	if p.IsClosed() {
		return newErrorFromString(ErrState, "Operation not allowed on closed client")
	}
	if fe := p.fatal.Load(); fe != nil {
		return *fe
	}
	return nil
}

// txnContext is the context of a transaction call: ctx (Background when
// nil), bounded by dflt when it has no deadline and dflt > 0.
func txnContext(ctx context.Context, dflt time.Duration) (context.Context, context.CancelFunc) {
	if ctx == nil {
		ctx = context.Background()
	}
	if _, ok := ctx.Deadline(); ok || dflt <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, dflt)
}

// txnResult maps a transaction call's error (txnError) and raises a fatal
// one on the producer.
func (p *Producer) txnResult(err error) error {
	if err == nil {
		return nil
	}
	e := txnError(err)
	if e.fatal {
		p.raiseFatal(&e)
	}
	return e
}

// txnEnd runs CommitTransaction or AbortTransaction: Produce is refused
// from now on — unless the call is refused because another one is under
// way (ErrConflict), which leaves the transaction as it was.
func (p *Producer) txnEnd(ctx context.Context, end func(context.Context) error) error {
	was := p.txnOpen.Swap(false)
	ctx, cancel := txnContext(ctx, 0)
	defer cancel()
	err := end(ctx)
	if errors.Is(err, client.ErrTxnInProgress) {
		p.txnOpen.Store(was)
	}
	return p.txnResult(err)
}
