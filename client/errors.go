package client

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rollsafe/rollsafe/batching"
	"github.com/rollsafe/rollsafe/idempotence"
	"github.com/rollsafe/rollsafe/kafkaerr"
	"github.com/rollsafe/rollsafe/protocol"
)

// The errors a record's callback can receive. Test with errors.Is; an error
// may match more than one (a delivery timeout of a batch never written is
// both ErrDeliveryTimeout and ErrNotWritten).
var (
	// ErrNotWritten: the record is certainly not in the log; resending it
	// cannot duplicate it.
	ErrNotWritten = idempotence.ErrNotWritten
	// ErrOutcomeUnknown: the record may or may not be in the log, and the
	// producer could not find out (the log could not be read in time).
	ErrOutcomeUnknown = idempotence.ErrOutcomeUnknown
	// ErrDeliveryTimeout: the delivery timeout passed before the record
	// was acknowledged.
	ErrDeliveryTimeout = idempotence.ErrDeliveryTimeout
	// ErrDataLoss: acknowledged records vanished from the log.
	ErrDataLoss = idempotence.ErrDataLoss
	// ErrPartitionStopped: the partition stopped after data loss
	// (StopOnDataLoss).
	ErrPartitionStopped = idempotence.ErrPartitionStopped
	// ErrRecordTooLarge: the record exceeds MaxRecordBytes.
	ErrRecordTooLarge = batching.ErrRecordTooLarge
	// ErrBufferFull: TryProduce found no room in the buffer.
	ErrBufferFull = batching.ErrBufferFull
	// ErrUnknownTopic: the cluster did not know the topic within
	// UnknownTopicWait.
	ErrUnknownTopic = errors.New("client: unknown topic")
	// ErrUnknownPartition: the record names a partition the topic lacks.
	ErrUnknownPartition = errors.New("client: unknown partition")
	// ErrAuthorization: the broker refused the producer access.
	ErrAuthorization = errors.New("client: not authorized")
	// ErrClosed: the producer was closed before the record was resolved.
	ErrClosed = idempotence.ErrClosed
	// ErrPurged: Purge failed the record before it was resolved; joined
	// with ErrNotWritten or ErrOutcomeUnknown.
	ErrPurged = idempotence.ErrPurged
	// ErrTopicRecreated: the record's topic was deleted and created again
	// before the record was resolved; joined with ErrNotWritten or
	// ErrOutcomeUnknown (it was in flight to the old topic, and may be in
	// either log).
	ErrTopicRecreated = idempotence.ErrTopicRecreated
	// ErrBrokersUnreachable: no broker could be reached to learn the
	// topic's metadata; the error is a *BrokersUnreachableError naming
	// the addresses tried. The record was never sent (ErrNotWritten).
	ErrBrokersUnreachable = errors.New("client: no broker reachable")
	// ErrInvalidRecord: Produce was given a nil record or a record without
	// a topic. It was refused at once (ErrNotWritten).
	ErrInvalidRecord = errors.New("client: invalid record")
	// ErrInCallback: Flush or Close was called from a record callback,
	// where waiting for every callback would wait for itself. Nothing was
	// flushed or closed; records are unaffected. (Produce and ProduceSync
	// may be called from a callback.)
	ErrInCallback = errors.New("client: called from a record callback")
)

// BrokersUnreachableError names the broker addresses the producer tried
// and why each failed. It matches ErrBrokersUnreachable and ErrNotWritten.
type BrokersUnreachableError struct {
	Topic string   // the topic whose metadata was wanted
	Tried []string // the addresses tried (the bootstrap list, then known brokers)
	Err   error    // the last metadata refresh's error, naming each address
}

func (e *BrokersUnreachableError) Error() string {
	return fmt.Sprintf("client: no broker reachable for topic %q (tried %s): %v", e.Topic, strings.Join(e.Tried, ", "), e.Err)
}

// Unwrap returns ErrBrokersUnreachable, ErrNotWritten and the cause.
func (e *BrokersUnreachableError) Unwrap() []error {
	return []error{ErrBrokersUnreachable, ErrNotWritten, e.Err}
}

// DataLoss reports acknowledged records that are no longer in a
// partition's log: offsets From through To inclusive, Records of them the
// producer's (see idempotence.DataLoss for when that count is a lower
// bound).
type DataLoss struct {
	Topic      string
	Partition  int32
	FromOffset int64
	ToOffset   int64
	Records    int64
}

func (d DataLoss) String() string {
	return fmt.Sprintf("data loss on %s[%d]: offsets %d..%d (%d records)", d.Topic, d.Partition, d.FromOffset, d.ToOffset, d.Records)
}

// brokerError turns a failure from the idempotence machine into the error
// the user sees: a Kafka error code is joined with its protocol error (so
// errors.Is works with protocol.ErrTopicAuthorizationFailed and the like),
// refused credentials also match ErrAuthentication and authorization
// failures ErrAuthorization (kafkaerr's table says which codes are which).
func brokerError(err error) error {
	var ce *idempotence.CodeError
	if errors.As(err, &ce) {
		if code, ok := ce.Code.Wire(); ok {
			err = fmt.Errorf("%w: %w", protocol.ErrorForCode(code), err)
		}
		if ce.Code.Authentication() {
			err = fmt.Errorf("%w: %w", ErrAuthentication, err)
		}
	}
	return authError(err)
}

// txnBrokerError lets a transaction error of the machine that a Kafka
// code caused (*idempotence.TxnCodeError) match that code's protocol
// error too, as brokerError does for a record's: errors.Is with
// protocol.ErrProducerFenced and the like, errors.As with
// *protocol.KafkaError. Its text, which names the code, is unchanged.
func txnBrokerError(err error) error {
	var ce *idempotence.TxnCodeError
	if !errors.As(err, &ce) {
		return err
	}
	code, ok := ce.Code.Wire()
	if !ok {
		return err
	}
	return &matching{err: err, also: protocol.ErrorForCode(code)}
}

// authError marks authorization failures from the broker.
func authError(err error) error {
	var ke *protocol.KafkaError
	if errors.As(err, &ke) && kafkaerr.Code(ke.Code).Authorization() {
		return fmt.Errorf("%w: %w", ErrAuthorization, err)
	}
	return err
}
