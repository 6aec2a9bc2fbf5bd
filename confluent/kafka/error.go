package kafka

import (
	"errors"
	"fmt"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/protocol"
)

// Error provides a Kafka-specific error container: a librdkafka error code
// and a message. Errors rollsafe reports also carry rollsafe's own error,
// reachable with errors.Is / errors.As (errors.Is(err, client.ErrNotWritten))
// and summarised by MsgStatus.
type Error struct {
	code             ErrorCode
	str              string
	fatal            bool
	retriable        bool
	txnRequiresAbort bool
	err              error // rollsafe's error, when there is one
}

// NewError creates a new Error.
func NewError(code ErrorCode, str string, fatal bool) (err Error) {
	return Error{code: code, str: str, fatal: fatal}
}

func newErrorFromString(code ErrorCode, str string) Error {
	return Error{code: code, str: str}
}

// Error returns a human readable representation of an Error, the same as
// String.
func (e Error) Error() string { return e.String() }

// String returns a human readable representation of an Error: its message,
// or the code's description when it has none, prefixed "Fatal error: " for
// fatal errors.
func (e Error) String() string {
	s := e.str
	if s == "" {
		s = e.code.String()
	}
	if e.fatal {
		return "Fatal error: " + s
	}
	return s
}

// Code returns the ErrorCode of an Error.
func (e Error) Code() ErrorCode { return e.code }

// IsFatal returns true if the error is a fatal error: the producer can go
// no further (see GetFatalError). Only a transactional producer's fatal
// errors (ErrFenced…), TestFatalError and errors made with NewError are
// fatal: rollsafe's idempotent producer has no fatal state of its own.
func (e Error) IsFatal() bool { return e.fatal }

// IsRetriable returns true if the operation that caused this error may be
// retried. For a delivery report it is true exactly when the message is
// certainly not in the log (MsgStatusNotPersisted) and the cause may pass
// (a timeout, a full queue, a closed producer, a topic not yet known): then
// producing it again cannot write a duplicate.
func (e Error) IsRetriable() bool { return e.retriable }

// IsTimeout returns true if the error is a timeout error.
func (e Error) IsTimeout() bool {
	return e.code == ErrTimedOut || e.code == ErrTimedOutQueue || e.code == ErrMsgTimedOut
}

// TxnRequiresAbort returns true if the error is an abortable transaction
// error: the transaction cannot commit; call AbortTransaction, then begin
// the next one.
func (e Error) TxnRequiresAbort() bool { return e.txnRequiresAbort }

// Unwrap returns rollsafe's error behind e (nil for errors made here), so
// that errors.Is(err, client.ErrNotWritten) and the like work.
func (e Error) Unwrap() error { return e.err }

// MsgStatus says whether a message is in the log, as librdkafka's
// rd_kafka_message_status does.
type MsgStatus int

const (
	// MsgStatusNotPersisted: the message is certainly not in the log;
	// producing it again cannot duplicate it.
	MsgStatusNotPersisted MsgStatus = 0
	// MsgStatusPossiblyPersisted: the message may be in the log; the
	// producer could not find out before giving up on it.
	MsgStatusPossiblyPersisted MsgStatus = 1
	// MsgStatusPersisted: the message is in the log (acknowledged).
	MsgStatusPersisted MsgStatus = 2
)

func (s MsgStatus) String() string {
	switch s {
	case MsgStatusNotPersisted:
		return "NotPersisted"
	case MsgStatusPossiblyPersisted:
		return "PossiblyPersisted"
	case MsgStatusPersisted:
		return "Persisted"
	}
	return fmt.Sprintf("MsgStatus(%d)", int(s))
}

// MsgStatus returns what e says about its message: MsgStatusNotPersisted
// when rollsafe knows the message is not in the log (client.ErrNotWritten),
// MsgStatusPossiblyPersisted otherwise (client.ErrOutcomeUnknown, or an error
// that is not about a delivery).
func (e Error) MsgStatus() MsgStatus {
	if errors.Is(e.err, client.ErrNotWritten) {
		return MsgStatusNotPersisted
	}
	return MsgStatusPossiblyPersisted
}

// Status returns whether a delivered message is in the log: Persisted when
// its TopicPartition.Error is nil, otherwise what the Error says (see
// Error.MsgStatus).
func (m *Message) Status() MsgStatus {
	if m.TopicPartition.Error == nil {
		return MsgStatusPersisted
	}
	var ke Error
	if errors.As(m.TopicPartition.Error, &ke) {
		return ke.MsgStatus()
	}
	if errors.Is(m.TopicPartition.Error, client.ErrNotWritten) {
		return MsgStatusNotPersisted
	}
	return MsgStatusPossiblyPersisted
}

// deliveryError turns the error rollsafe reported for a record into the
// Error a confluent-kafka-go program expects in a delivery report.
func deliveryError(err error) Error {
	e := Error{err: err, str: err.Error()}
	if neverSent(err) {
		// The client refused the record before it reached a batch:
		// certainly not in the log, which errors.Is should say too.
		e.err = errors.Join(err, client.ErrNotWritten)
	}
	var ke *protocol.KafkaError
	hasCode := errors.As(err, &ke)
	switch {
	case errors.Is(err, client.ErrRecordTooLarge):
		e.code = ErrMsgSizeTooLarge
	case errors.Is(err, client.ErrDeliveryTimeout):
		e.code = ErrMsgTimedOut
	case errors.Is(err, client.ErrBufferFull):
		e.code = ErrQueueFull
	case errors.Is(err, client.ErrBrokersUnreachable):
		e.code = ErrAllBrokersDown
	case errors.Is(err, client.ErrUnknownTopic):
		e.code = ErrUnknownTopicOrPart
	case errors.Is(err, client.ErrUnknownPartition):
		e.code = ErrUnknownPartition
	case errors.Is(err, client.ErrAuthentication):
		e.code = ErrAuthentication
	case errors.Is(err, client.ErrAuthorization) && !hasCode:
		e.code = ErrTopicAuthorizationFailed
	case errors.Is(err, client.ErrAborted):
		// librdkafka purges an aborted transaction's messages.
		e.code = ErrPurgeQueue
		if !errors.Is(err, client.ErrNotWritten) {
			e.code = ErrPurgeInflight
		}
	case errors.Is(err, client.ErrTxnState):
		e.code = ErrState
	case errors.Is(err, client.ErrClosed), errors.Is(err, client.ErrPurged):
		e.code = ErrPurgeQueue
		if !errors.Is(err, client.ErrNotWritten) {
			e.code = ErrPurgeInflight
		}
	case errors.Is(err, client.ErrPartitionStopped), errors.Is(err, client.ErrDataLoss):
		e.code = ErrInconsistent
	case hasCode:
		e.code = ErrorCode(ke.Code)
	default:
		e.code = ErrFail
	}
	if e.MsgStatus() == MsgStatusNotPersisted {
		switch e.code {
		case ErrMsgTimedOut, ErrQueueFull, ErrPurgeQueue, ErrUnknownTopicOrPart, ErrUnknownPartition, ErrAllBrokersDown:
			e.retriable = true
		default:
			e.retriable = hasCode && ke.Retriable
		}
	}
	return e
}

// dataLossError is the Error event for acknowledged records that vanished.
func dataLossError(d client.DataLoss) Error {
	return Error{code: ErrInconsistent, str: "rollsafe: acknowledged messages lost from the log (unclean leader election?): " + d.String(), err: client.ErrDataLoss}
}

// neverSent reports errors the client returns for a record that never
// reached a batch (it names neither ErrNotWritten nor ErrOutcomeUnknown for
// them): an unknown topic or partition, a full buffer, a record too large to
// append, refused credentials.
func neverSent(err error) bool {
	if errors.Is(err, client.ErrNotWritten) || errors.Is(err, client.ErrOutcomeUnknown) {
		return false
	}
	for _, target := range []error{client.ErrUnknownTopic, client.ErrUnknownPartition, client.ErrBufferFull, client.ErrRecordTooLarge, client.ErrAuthentication, client.ErrBrokersUnreachable, client.ErrInvalidRecord} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}
