package protocol

import (
	"errors"
	"fmt"
	"strconv"
)

// ErrorCode is a Kafka protocol error code as carried in responses.
type ErrorCode int16

// Outcome says what an error code on a produce response means for the
// records of the batch it answers.
type Outcome int

const (
	// OutcomeMaybeAppended: the batch may or may not be in the log (request
	// timed out, replication failed after the leader appended, the connection
	// died after the request was written, or the code is not known). Only a
	// read of the log can tell. It is the zero value on purpose: not knowing
	// is the safe default.
	OutcomeMaybeAppended Outcome = iota
	// OutcomeNotAppended: the broker rejected the batch before appending it.
	OutcomeNotAppended
	// OutcomeAppended: the batch is in the log (NONE) or was recognised as a
	// retry of a batch already there (DUPLICATE_SEQUENCE_NUMBER).
	OutcomeAppended
)

// String returns a short name for o.
func (o Outcome) String() string {
	switch o {
	case OutcomeMaybeAppended:
		return "maybe-appended"
	case OutcomeNotAppended:
		return "not-appended"
	case OutcomeAppended:
		return "appended"
	}
	return "Outcome(" + strconv.Itoa(int(o)) + ")"
}

type codeInfo struct {
	code      ErrorCode
	name      string
	retriable bool
	outcome   Outcome
}

const minCode = -1

func lookup(code int16) (codeInfo, bool) {
	i := int(code) - minCode
	if i < 0 || i >= len(codeTable) {
		return codeInfo{}, false
	}
	return codeTable[i], true
}

// CodeInfo describes a Kafka error code: its Kafka name, whether Kafka marks
// it retriable, and what it means for a produced batch. An unknown code gets
// the name "UNKNOWN_CODE_<n>", not retriable, OutcomeMaybeAppended.
//
// The outcome is the meaning for acks=1 and for rejections. With acks=all a
// broker may also answer NOT_LEADER_OR_FOLLOWER, UNKNOWN_TOPIC_OR_PARTITION or
// KAFKA_STORAGE_ERROR after it appended locally (leadership moved while the
// request waited for replication); use ProduceOutcome for produce responses.
func CodeInfo(code int16) (name string, retriable bool, outcome Outcome) {
	ci, ok := lookup(code)
	if !ok {
		return "UNKNOWN_CODE_" + strconv.Itoa(int(code)), false, OutcomeMaybeAppended
	}
	return ci.name, ci.retriable, ci.outcome
}

// ProduceOutcome is CodeInfo's outcome refined for a partition's answer to a
// produce request sent with the given acks. With acks=-1 (all) the broker can
// return NOT_LEADER_OR_FOLLOWER, UNKNOWN_TOPIC_OR_PARTITION or
// KAFKA_STORAGE_ERROR from its delayed-produce check after the batch was
// already appended to its local log, so those become OutcomeMaybeAppended.
func ProduceOutcome(code int16, acks int16) Outcome {
	_, _, o := CodeInfo(code)
	if acks == -1 {
		switch ErrorCode(code) {
		case NotLeaderOrFollower, UnknownTopicOrPartition, KafkaStorageError:
			return OutcomeMaybeAppended
		}
	}
	return o
}

// String returns the Kafka name of c.
func (c ErrorCode) String() string {
	name, _, _ := CodeInfo(int16(c))
	return name
}

// Err returns ErrorForCode(int16(c)).
func (c ErrorCode) Err() error { return ErrorForCode(int16(c)) }

// KafkaError is an error code returned by a broker. Errors carrying the same
// code match each other under errors.Is, so a *KafkaError with extra context
// (topic, partition, message) still matches the sentinel, e.g.
// errors.Is(err, ErrNotLeaderOrFollower).
type KafkaError struct {
	Code      int16
	Name      string
	Retriable bool
	Outcome   Outcome
	// Topic and Partition name the partition the code was returned for,
	// when known (Partition is -1 for topic-level codes).
	Topic     string
	Partition int32
	// Message is the broker's error message, when the response has one.
	Message string
}

// Error implements error.
func (e *KafkaError) Error() string {
	s := "kafka: " + e.Name + " (code " + strconv.Itoa(int(e.Code)) + ")"
	if e.Topic != "" {
		if e.Partition >= 0 {
			s += fmt.Sprintf(" on %s[%d]", e.Topic, e.Partition)
		} else {
			s += " on topic " + e.Topic
		}
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// Is reports whether target is a *KafkaError with the same code.
func (e *KafkaError) Is(target error) bool {
	t, ok := target.(*KafkaError)
	return ok && t.Code == e.Code
}

func sentinel(c ErrorCode) *KafkaError {
	name, retriable, outcome := CodeInfo(int16(c))
	return &KafkaError{Code: int16(c), Name: name, Retriable: retriable, Outcome: outcome, Partition: -1}
}

// ErrorForCode returns nil for 0 and a *KafkaError otherwise. For a known
// code the result matches the corresponding Err* sentinel under errors.Is.
// Unknown codes get a fresh *KafkaError named UNKNOWN_CODE_<n>.
func ErrorForCode(code int16) error {
	if code == 0 {
		return nil
	}
	return newKafkaError(code, "", -1, "")
}

// PartitionError is ErrorForCode with the topic, partition and broker message
// attached; it returns nil for code 0.
func PartitionError(code int16, topic string, partition int32, message string) error {
	if code == 0 {
		return nil
	}
	return newKafkaError(code, topic, partition, message)
}

func newKafkaError(code int16, topic string, partition int32, message string) *KafkaError {
	name, retriable, outcome := CodeInfo(code)
	return &KafkaError{Code: code, Name: name, Retriable: retriable, Outcome: outcome,
		Topic: topic, Partition: partition, Message: message}
}

// IsRetriable reports whether err wraps a *KafkaError marked retriable.
func IsRetriable(err error) bool {
	var ke *KafkaError
	return errors.As(err, &ke) && ke.Retriable
}
