package client

import (
	"errors"
	"time"
)

// DefaultTransactionTimeout is TransactionTimeout's default, as Java's
// producer (transaction.timeout.ms).
const DefaultTransactionTimeout = 60 * time.Second

// ErrTxnConfig is wrapped (with ErrInvalidConfig) by a configuration error
// of a transactional producer: options that conflict with TransactionalID.
var ErrTxnConfig = errors.New("client: options conflict with TransactionalID")

// TransactionalID makes the producer transactional: records are written
// only inside a transaction (BeginTransaction … CommitTransaction or
// AbortTransaction) and become visible to read_committed consumers all
// at once when it commits, never if it aborts. The id names the producer
// across restarts: InitTransactions with it fences any older instance
// holding the same id and aborts the transaction it left open. A
// transactional producer is idempotent: it conflicts with
// DisableIdempotence and with Acks other than AcksAll (ErrTxnConfig).
func TransactionalID(id string) Option { return func(c *config) { c.txnID = id } }

// TransactionTimeout is how long the coordinator lets a transaction stay
// open before it aborts it (InitProducerId's transaction timeout; default
// 60 s, DefaultTransactionTimeout). The broker refuses more than its
// transaction.max.timeout.ms (InitTransactions then fails ErrTxnFatal).
func TransactionTimeout(d time.Duration) Option { return func(c *config) { c.txnTimeout = d } }

// validateTxn reports the transactional options' problems through bad,
// and whether an option conflicts with TransactionalID.
func (c *config) validateTxn(bad func(field, format string, args ...any)) (conflict bool) {
	if c.txnTimeout <= 0 || c.txnTimeout/time.Millisecond > 1<<31-1 {
		bad("TransactionTimeout", "%v is not between 1ms and 2^31-1 ms", c.txnTimeout)
	}
	if c.txnID == "" {
		return false
	}
	if !c.idempotent {
		bad("TransactionalID", "a transactional producer is idempotent: DisableIdempotence conflicts with it")
		return true
	}
	if c.acks != AcksAll {
		bad("TransactionalID", "a transactional producer needs acks=all (-1), got %d", c.acks)
		return true
	}
	return false
}
