package sim

import (
	"errors"
	"fmt"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

// Kafka error codes the simulator answers with, as int16 for the wire
// responses it builds. Names and numbers are kafkaerr's, the module's one
// table of codes; the simulator only answers codes, it never decides what
// one means.
const (
	errUnknownServerError           = int16(kafkaerr.UnknownServerError)
	errNone                         = int16(kafkaerr.None)
	errOffsetOutOfRange             = int16(kafkaerr.OffsetOutOfRange)
	errCorruptMessage               = int16(kafkaerr.CorruptMessage)
	errUnknownTopicOrPartition      = int16(kafkaerr.UnknownTopicOrPartition)
	errLeaderNotAvailable           = int16(kafkaerr.LeaderNotAvailable)
	errNotLeaderOrFollower          = int16(kafkaerr.NotLeaderOrFollower)
	errRequestTimedOut              = int16(kafkaerr.RequestTimedOut)
	errMessageTooLarge              = int16(kafkaerr.MessageTooLarge)
	errNotEnoughReplicas            = int16(kafkaerr.NotEnoughReplicas)
	errNotEnoughReplicasAfterAppend = int16(kafkaerr.NotEnoughReplicasAfterAppend)
	errTopicAuthorization           = int16(kafkaerr.TopicAuthorizationFailed)
	errClusterAuthorization         = int16(kafkaerr.ClusterAuthorizationFailed)
	errTransactionalIDAuthorization = int16(kafkaerr.TransactionalIDAuthorizationFailed)
	errCoordinatorNotAvailable      = int16(kafkaerr.CoordinatorNotAvailable)
	errInvalidTopicException        = int16(kafkaerr.InvalidTopicException)
	errInvalidRequiredAcks          = int16(kafkaerr.InvalidRequiredAcks)
	errUnsupportedVersion           = int16(kafkaerr.UnsupportedVersion)
	errInvalidRequest               = int16(kafkaerr.InvalidRequest)
	errOutOfOrderSequence           = int16(kafkaerr.OutOfOrderSequenceNumber)
	errInvalidProducerEpoch         = int16(kafkaerr.InvalidProducerEpoch)
	errUnknownProducerID            = int16(kafkaerr.UnknownProducerID)
	errFencedLeaderEpoch            = int16(kafkaerr.FencedLeaderEpoch)
	errUnknownLeaderEpoch           = int16(kafkaerr.UnknownLeaderEpoch)
	errOffsetNotAvailable           = int16(kafkaerr.OffsetNotAvailable)
	errInvalidRecord                = int16(kafkaerr.InvalidRecord)
	errNotCoordinator               = int16(kafkaerr.NotCoordinator)
	errUnknownMemberID              = int16(kafkaerr.UnknownMemberID)
	errIllegalGeneration            = int16(kafkaerr.IllegalGeneration)
	errGroupAuthorization           = int16(kafkaerr.GroupAuthorizationFailed)
	errInvalidTxnState              = int16(kafkaerr.InvalidTxnState)
	errInvalidProducerIDMapping     = int16(kafkaerr.InvalidProducerIDMapping)
	errInvalidTransactionTimeout    = int16(kafkaerr.InvalidTransactionTimeout)
	errConcurrentTransactions       = int16(kafkaerr.ConcurrentTransactions)
	errOperationNotAttempted        = int16(kafkaerr.OperationNotAttempted)
	errProducerFenced               = int16(kafkaerr.ProducerFenced)
	errTransactionAbortable         = int16(kafkaerr.TransactionAbortable)
)

// Errors returned by the Cluster's control methods; test with errors.Is.
var (
	// ErrClosed: the cluster has been closed.
	ErrClosed = errors.New("sim: cluster closed")
	// ErrUnknownTopic: no such topic or partition in the cluster.
	ErrUnknownTopic = errors.New("sim: unknown topic or partition")
	// ErrUnknownBroker: no broker with that id.
	ErrUnknownBroker = errors.New("sim: unknown broker")
	// ErrBrokerDown: the broker is stopped.
	ErrBrokerDown = errors.New("sim: broker is stopped")
	// ErrBrokerUp: the broker is already running.
	ErrBrokerUp = errors.New("sim: broker is already running")
	// ErrNotReplica: the broker holds no replica of the partition.
	ErrNotReplica = errors.New("sim: broker is not a replica of the partition")
	// ErrNotInSync: a clean leader move needs a replica in the ISR.
	ErrNotInSync = errors.New("sim: replica is not in sync")
	// ErrBadConfig: NewCluster was given inconsistent options.
	ErrBadConfig = errors.New("sim: bad configuration")
	// ErrMalformedRequest: a request frame could not be decoded; the
	// broker closes the connection, as Kafka does.
	ErrMalformedRequest = errors.New("sim: malformed request")
	// ErrUnsupportedRequest: the API key or version is not served.
	ErrUnsupportedRequest = errors.New("sim: unsupported request")
)

// BatchError is why a produced record batch was refused; Code is the Kafka
// error code the partition is answered with.
type BatchError struct {
	Code   int16
	Reason string
}

func (e *BatchError) Error() string {
	return fmt.Sprintf("sim: bad record batch (code %d): %s", e.Code, e.Reason)
}

func batchErr(code int16, format string, args ...any) error {
	return &BatchError{Code: code, Reason: fmt.Sprintf(format, args...)}
}
