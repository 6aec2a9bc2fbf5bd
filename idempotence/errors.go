package idempotence

import (
	"errors"
	"fmt"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

var (
	// ErrNotWritten means the batch is known not to be in the log; it is
	// safe to produce its records again.
	ErrNotWritten = errors.New("idempotence: batch not written")
	// ErrOutcomeUnknown means the batch may or may not be in the log and
	// the log could not be read to find out.
	ErrOutcomeUnknown = errors.New("idempotence: batch outcome unknown")
	// ErrDeliveryTimeout means the batch's delivery deadline passed. It is
	// always joined with ErrNotWritten or ErrOutcomeUnknown.
	ErrDeliveryTimeout = errors.New("idempotence: delivery timeout")
	// ErrDataLoss means acknowledged records are missing from the log.
	ErrDataLoss = errors.New("idempotence: acknowledged records lost")
	// ErrPartitionStopped means the partition was stopped after data loss
	// (Config.StopOnDataLoss).
	ErrPartitionStopped = errors.New("idempotence: partition stopped")
	// ErrClosed means the producer was closed before the batch was
	// resolved. It is always joined with ErrNotWritten or ErrOutcomeUnknown.
	ErrClosed = errors.New("producer closed")
	// ErrPurged means the caller purged the batch (Purge) before it was
	// resolved. It is always joined with ErrNotWritten or ErrOutcomeUnknown.
	ErrPurged = errors.New("purged")
	// ErrTopicRecreated means the batch's topic was deleted and created
	// again before the batch was resolved. It is always joined with
	// ErrNotWritten (the batch was never written, and batches after it
	// went to the old topic) or ErrOutcomeUnknown (it may be in the old
	// log, or land in the new one: it is never written again).
	ErrTopicRecreated = errors.New("idempotence: topic deleted and created again")
	// ErrInvalidBatch means Enqueue or Split was given an unusable batch
	// (duplicate id, no records). It is joined with ErrNotWritten.
	ErrInvalidBatch = errors.New("idempotence: invalid batch")
)

// CodeError is a batch failure caused by a non-retriable Kafka error code.
// It unwraps to ErrNotWritten, or to ErrOutcomeUnknown when an earlier
// attempt of the batch may have been appended and the log could not prove
// otherwise.
type CodeError struct {
	Code kafkaerr.Code // a Kafka code, or kafkaerr.Transport for no answer
	Err  error
}

// Error implements error.
func (e *CodeError) Error() string {
	if w, ok := e.Code.Wire(); ok {
		return fmt.Sprintf("idempotence: kafka error code %d (%s): %v", w, e.Code, e.Err)
	}
	return fmt.Sprintf("idempotence: no answer (%s): %v", e.Code, e.Err)
}

// Unwrap returns ErrNotWritten or ErrOutcomeUnknown.
func (e *CodeError) Unwrap() error { return e.Err }

var (
	errTimeoutNotWritten   = fmt.Errorf("%w: %w", ErrDeliveryTimeout, ErrNotWritten)
	errTimeoutUnknown      = fmt.Errorf("%w: %w", ErrDeliveryTimeout, ErrOutcomeUnknown)
	errUnknownUnproven     = fmt.Errorf("the broker cannot show whether the batch was written: %w", ErrOutcomeUnknown)
	errStopped             = fmt.Errorf("%w: %w", ErrPartitionStopped, ErrNotWritten)
	errStoppedLoss         = fmt.Errorf("%w after %w: %w", ErrPartitionStopped, ErrDataLoss, ErrNotWritten)
	errClosed              = fmt.Errorf("%w: %w", ErrClosed, ErrNotWritten)
	errClosedUnknown       = fmt.Errorf("%w: %w", ErrClosed, ErrOutcomeUnknown)
	errPurged              = fmt.Errorf("%w: %w", ErrPurged, ErrNotWritten)
	errPurgedUnknown       = fmt.Errorf("%w: %w", ErrPurged, ErrOutcomeUnknown)
	errRecreatedNotWritten = fmt.Errorf("%w: %w", ErrTopicRecreated, ErrNotWritten)
	errRecreatedUnknown    = fmt.Errorf("%w: %w", ErrTopicRecreated, ErrOutcomeUnknown)
	errDuplicateID         = fmt.Errorf("%w: duplicate batch id: %w", ErrInvalidBatch, ErrNotWritten)
	errNoRecords           = fmt.Errorf("%w: batch without records: %w", ErrInvalidBatch, ErrNotWritten)
)

// The errors of a transactional producer (Config.Transactional).
var (
	// ErrAborted means the batch's transaction was aborted: its records
	// never become visible to a read_committed reader, and producing them
	// again (in another transaction) writes them once. A batch never
	// written also matches ErrNotWritten; one that was written (and is
	// hidden by the abort marker) matches neither ErrNotWritten nor
	// ErrOutcomeUnknown.
	ErrAborted = errors.New("idempotence: transaction aborted")
	// ErrTxnAbortable means the transaction cannot commit: abort it
	// (AbortTxn) and go on. The cause is joined.
	ErrTxnAbortable = errors.New("idempotence: transaction must be aborted")
	// ErrTxnFatal means the transactional producer can go no further.
	ErrTxnFatal = errors.New("idempotence: transactional producer failed")
	// ErrFenced means a newer instance with the same transactional id took
	// it over. It is always joined with ErrTxnFatal.
	ErrFenced = errors.New("idempotence: fenced by a newer instance with the same transactional id")
	// ErrTxnState means a call or a batch is not allowed in the
	// transaction's current state (a batch outside a transaction, a
	// commit without one). A refused batch also matches ErrNotWritten.
	ErrTxnState = errors.New("idempotence: not allowed in this transaction state")
)

var (
	errAborted           = ErrAborted
	errAbortedNotWritten = fmt.Errorf("%w: %w", ErrAborted, ErrNotWritten)
	errFenced            = fmt.Errorf("%w: %w", ErrFenced, ErrTxnFatal)
	errNeedsBump         = fmt.Errorf("a partition's sequences need a fresh epoch: %w", ErrTxnAbortable)
	errNoBump            = fmt.Errorf("a partition's sequences need a fresh epoch and the broker cannot give one (InitProducerId before v3): %w", ErrTxnFatal)
	errStaleNoBump       = fmt.Errorf("the producer's epoch was moved (by a newer instance or the coordinator's timeout) and the coordinator cannot tell which (InitProducerId before v3): %w", ErrTxnFatal)
	errTxnLoss           = fmt.Errorf("acknowledged records of the transaction lost: %w", ErrTxnAbortable)
	errNotInTxn          = fmt.Errorf("%w: no transaction open: %w", ErrTxnState, ErrNotWritten)
	errMustAbort         = fmt.Errorf("%w: the transaction must be aborted: %w", ErrTxnState, ErrNotWritten)
)

// TxnCodeError is a transaction error a Kafka code caused: the code a
// transaction or group coordinator, or a partition's leader, answered
// (a batch's own code when a failed batch made the transaction
// abortable). Err is the error itself, whose text names the code; it
// matches ErrTxnAbortable or ErrTxnFatal (and ErrFenced when the
// coordinator refused the epoch). Find it with errors.As; errors
// without a code (a loss of acknowledged records, a deadline) carry none.
type TxnCodeError struct {
	Code kafkaerr.Code // a Kafka code, never kafkaerr.Transport
	Err  error
}

// Error returns Err's text.
func (e *TxnCodeError) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *TxnCodeError) Unwrap() error { return e.Err }

// withTxnCode carries c beside err (err's text names it), unless c is no
// Kafka code (Transport).
func withTxnCode(c kafkaerr.Code, err error) error {
	if _, ok := c.Wire(); !ok {
		return err
	}
	return &TxnCodeError{Code: c, Err: err}
}

// txnCodeError is a coordinator's or a leader's code that the transaction
// cannot go on after (kind: ErrTxnAbortable or ErrTxnFatal).
func txnCodeError(c kafkaerr.Code, kind error) error {
	return withTxnCode(c, fmt.Errorf("%w: answered %v", kind, c))
}

// txnBatchError is the abortable error of a transaction one of whose
// batches failed with err: the batch's code, if a broker answered one,
// is carried as the transaction's.
func txnBatchError(err error) error {
	out := fmt.Errorf("%w: a batch failed: %v", ErrTxnAbortable, err)
	var ce *CodeError
	if errors.As(err, &ce) {
		return withTxnCode(ce.Code, out)
	}
	return out
}
