package protocol

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

// KafkaError is an error code returned by a broker. Errors carrying the same
// code match each other under errors.Is, so a *KafkaError with extra context
// (topic, partition, message) still matches the sentinel, e.g.
// errors.Is(err, ErrNotLeaderOrFollower).
type KafkaError struct {
	Code      int16
	Name      string
	Retriable bool
	Outcome   kafkaerr.Outcome
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

func sentinel(c kafkaerr.Code) *KafkaError {
	code, _ := c.Wire()
	return newKafkaError(code, "", -1, "")
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
	c := kafkaerr.Code(code)
	return &KafkaError{Code: code, Name: c.String(), Retriable: c.Retriable(), Outcome: c.Outcome(),
		Topic: topic, Partition: partition, Message: message}
}

// IsRetriable reports whether err wraps a *KafkaError marked retriable.
func IsRetriable(err error) bool {
	var ke *KafkaError
	return errors.As(err, &ke) && ke.Retriable
}
