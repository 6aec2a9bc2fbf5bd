package sim

import (
	"errors"
	"fmt"
)

// Kafka error codes the simulator answers with, numbered as in the Kafka
// protocol. The simulator cannot import protocol (protocol's tests run
// against the simulator), so codes_test.go checks each one by its Kafka
// name against protocol's table, the module's one list of codes.
const (
	errUnknownServerError           int16 = -1
	errNone                         int16 = 0
	errOffsetOutOfRange             int16 = 1
	errCorruptMessage               int16 = 2
	errUnknownTopicOrPartition      int16 = 3
	errLeaderNotAvailable           int16 = 5
	errNotLeaderOrFollower          int16 = 6
	errRequestTimedOut              int16 = 7
	errMessageTooLarge              int16 = 10
	errNotEnoughReplicas            int16 = 19
	errNotEnoughReplicasAfterAppend int16 = 20
	errTopicAuthorization           int16 = 29
	errClusterAuthorization         int16 = 31
	errTransactionalIDAuthorization int16 = 53
	errCoordinatorNotAvailable      int16 = 15
	errInvalidTopicException        int16 = 17
	errInvalidRequiredAcks          int16 = 21
	errUnsupportedVersion           int16 = 35
	errInvalidRequest               int16 = 42
	errOutOfOrderSequence           int16 = 45
	errInvalidProducerEpoch         int16 = 47
	errUnknownProducerID            int16 = 59
	errFencedLeaderEpoch            int16 = 74
	errUnknownLeaderEpoch           int16 = 75
	errOffsetNotAvailable           int16 = 78
	errInvalidRecord                int16 = 87
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
