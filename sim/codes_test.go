package sim

import (
	"testing"

	"github.com/rollsafe/rollsafe/protocol"
)

// TestErrorCodesMatchKafkaNames checks every code the simulator answers
// with against protocol's table by Kafka name: a code declared with the
// wrong number (UNKNOWN_LEADER_EPOCH as 76, say) gets another name there.
func TestErrorCodesMatchKafkaNames(t *testing.T) {
	for want, code := range map[string]int16{
		"NONE":                                  errNone,
		"OFFSET_OUT_OF_RANGE":                   errOffsetOutOfRange,
		"CORRUPT_MESSAGE":                       errCorruptMessage,
		"UNKNOWN_TOPIC_OR_PARTITION":            errUnknownTopicOrPartition,
		"LEADER_NOT_AVAILABLE":                  errLeaderNotAvailable,
		"NOT_LEADER_OR_FOLLOWER":                errNotLeaderOrFollower,
		"REQUEST_TIMED_OUT":                     errRequestTimedOut,
		"MESSAGE_TOO_LARGE":                     errMessageTooLarge,
		"COORDINATOR_NOT_AVAILABLE":             errCoordinatorNotAvailable,
		"INVALID_REQUIRED_ACKS":                 errInvalidRequiredAcks,
		"UNSUPPORTED_VERSION":                   errUnsupportedVersion,
		"INVALID_REQUEST":                       errInvalidRequest,
		"INVALID_TOPIC_EXCEPTION":               errInvalidTopicException,
		"OUT_OF_ORDER_SEQUENCE_NUMBER":          errOutOfOrderSequence,
		"INVALID_PRODUCER_EPOCH":                errInvalidProducerEpoch,
		"UNKNOWN_PRODUCER_ID":                   errUnknownProducerID,
		"FENCED_LEADER_EPOCH":                   errFencedLeaderEpoch,
		"UNKNOWN_LEADER_EPOCH":                  errUnknownLeaderEpoch,
		"OFFSET_NOT_AVAILABLE":                  errOffsetNotAvailable,
		"INVALID_RECORD":                        errInvalidRecord,
		"UNKNOWN_SERVER_ERROR":                  errUnknownServerError,
		"TRANSACTIONAL_ID_AUTHORIZATION_FAILED": errTransactionalIDAuthorization,
		"NOT_ENOUGH_REPLICAS":                   errNotEnoughReplicas,
		"NOT_ENOUGH_REPLICAS_AFTER_APPEND":      errNotEnoughReplicasAfterAppend,
		"TOPIC_AUTHORIZATION_FAILED":            errTopicAuthorization,
		"CLUSTER_AUTHORIZATION_FAILED":          errClusterAuthorization,
	} {
		if code == 0 {
			if want != "NONE" {
				t.Errorf("%s is declared as 0", want)
			}
			continue
		}
		if got, _, _ := protocol.CodeInfo(code); got != want {
			t.Errorf("code %d is %s in protocol's table, the simulator uses it as %s", code, got, want)
		}
	}
}
