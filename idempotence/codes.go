package idempotence

import (
	"strconv"

	"github.com/rollsafe/rollsafe/protocol"
)

// Kafka error codes this package decides on by number.
const (
	CodeTransport                    int16 = -1 // caller-side: connection failure
	CodeNone                         int16 = 0
	CodeCorruptMessage               int16 = 2
	CodeUnknownTopicOrPartition      int16 = 3
	CodeLeaderNotAvailable           int16 = 5
	CodeNotLeaderOrFollower          int16 = 6
	CodeRequestTimedOut              int16 = 7
	CodeMessageTooLarge              int16 = 10
	CodeNetworkException             int16 = 13
	CodeNotEnoughReplicas            int16 = 19
	CodeNotEnoughReplicasAfterAppend int16 = 20
	CodeTopicAuthorizationFailed     int16 = 29
	CodeOutOfOrderSequenceNumber     int16 = 45
	CodeDuplicateSequenceNumber      int16 = 46
	CodeInvalidProducerEpoch         int16 = 47
	CodeKafkaStorageError            int16 = 56
	CodeUnknownProducerID            int16 = 59
	CodeFencedLeaderEpoch            int16 = 74
	CodeUnknownLeaderEpoch           int16 = 75
	CodeOffsetNotAvailable           int16 = 78
	CodeInvalidRecord                int16 = 87
	CodeProducerFenced               int16 = 90
)

var codeNames = map[int16]string{
	CodeTransport:                    "TRANSPORT",
	CodeNone:                         "NONE",
	CodeCorruptMessage:               "CORRUPT_MESSAGE",
	CodeUnknownTopicOrPartition:      "UNKNOWN_TOPIC_OR_PARTITION",
	CodeLeaderNotAvailable:           "LEADER_NOT_AVAILABLE",
	CodeNotLeaderOrFollower:          "NOT_LEADER_OR_FOLLOWER",
	CodeRequestTimedOut:              "REQUEST_TIMED_OUT",
	CodeMessageTooLarge:              "MESSAGE_TOO_LARGE",
	CodeNetworkException:             "NETWORK_EXCEPTION",
	CodeNotEnoughReplicas:            "NOT_ENOUGH_REPLICAS",
	CodeNotEnoughReplicasAfterAppend: "NOT_ENOUGH_REPLICAS_AFTER_APPEND",
	CodeTopicAuthorizationFailed:     "TOPIC_AUTHORIZATION_FAILED",
	CodeOutOfOrderSequenceNumber:     "OUT_OF_ORDER_SEQUENCE_NUMBER",
	CodeDuplicateSequenceNumber:      "DUPLICATE_SEQUENCE_NUMBER",
	CodeInvalidProducerEpoch:         "INVALID_PRODUCER_EPOCH",
	CodeKafkaStorageError:            "KAFKA_STORAGE_ERROR",
	CodeUnknownProducerID:            "UNKNOWN_PRODUCER_ID",
	CodeFencedLeaderEpoch:            "FENCED_LEADER_EPOCH",
	CodeUnknownLeaderEpoch:           "UNKNOWN_LEADER_EPOCH",
	CodeOffsetNotAvailable:           "OFFSET_NOT_AVAILABLE",
	CodeInvalidRecord:                "INVALID_RECORD",
	CodeProducerFenced:               "PRODUCER_FENCED",
}

// CodeName returns the Kafka name of an error code this package knows, or
// the number.
func CodeName(code int16) string {
	if n, ok := codeNames[code]; ok {
		return n
	}
	return strconv.Itoa(int(code))
}

// outcome is what one produce attempt means for its batch.
type outcome uint8

const (
	outAppended   outcome = iota // in the log
	outDuplicate                 // in the log, offset unknown
	outNotApp                    // not appended, retry unchanged
	outMaybe                     // unknown, retry unchanged
	outFatal                     // not appended, do not retry
	outOutOfOrder                // 45
	outStaleEpoch                // 47
	outUnknownPID                // 59
	outTooLarge                  // 10
)

// classify decides what a response means. Codes with a rule of their own are
// decided by number; the others by protocol's table of Kafka codes (appended,
// not appended or unknown under the producer's acks; retriable or not), and
// a transport failure by the caller's class.
func classify(r Response, leaderAcks bool) outcome {
	switch r.Code {
	case CodeNone:
		return outAppended
	case CodeDuplicateSequenceNumber:
		return outDuplicate
	case CodeOutOfOrderSequenceNumber:
		return outOutOfOrder
	case CodeInvalidProducerEpoch:
		return outStaleEpoch
	case CodeUnknownProducerID:
		return outUnknownPID
	case CodeMessageTooLarge:
		return outTooLarge
	case CodeRequestTimedOut, CodeNotEnoughReplicasAfterAppend:
		// The leader may have appended; never let a caller call it "not written".
		return outMaybe
	case CodeTransport:
		switch r.Class {
		case Appended:
			return outAppended
		case NotAppended:
			return outNotApp
		case NotAppendedFatal:
			return outFatal
		}
		return outMaybe
	}
	// NOT_LEADER_OR_FOLLOWER, UNKNOWN_TOPIC_OR_PARTITION and
	// KAFKA_STORAGE_ERROR under acks=all: the leader may have appended and
	// lost leadership while waiting for replication — unknown, retried
	// unchanged, never called "not written" nor renumbered unproven.
	acks := int16(-1)
	if leaderAcks {
		acks = 1
	}
	_, retriable, _ := protocol.CodeInfo(r.Code)
	switch protocol.ProduceOutcome(r.Code, acks) {
	case protocol.OutcomeAppended:
		return outAppended
	case protocol.OutcomeNotAppended:
		if retriable {
			return outNotApp
		}
		return outFatal
	}
	return outMaybe
}

// needsMetadata reports codes after which the leader must be looked up again.
func needsMetadata(code int16) bool {
	switch code {
	case CodeTransport, CodeUnknownTopicOrPartition, CodeLeaderNotAvailable, CodeNotLeaderOrFollower,
		CodeNetworkException, CodeKafkaStorageError, CodeFencedLeaderEpoch, CodeUnknownLeaderEpoch:
		return true
	}
	return false
}
