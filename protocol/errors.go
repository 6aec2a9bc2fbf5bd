package protocol

import (
	"errors"
	"fmt"
)

// Connection-level errors. Errors returned by this package wrap one of these
// (or a *KafkaError) with %w, often together with the underlying cause.
var (
	// ErrConnLostAfterWrite: the request was completely written to the
	// connection, which then failed before its response arrived. The broker
	// may or may not have processed it.
	ErrConnLostAfterWrite = errors.New("protocol: connection lost after the request was written (outcome unknown)")
	// ErrNotWritten: the request was not (completely) written, so the broker
	// cannot have processed it.
	ErrNotWritten = errors.New("protocol: request not written")
	// ErrFrameTooLarge: a response frame announced a size above the
	// connection's MaxFrameBytes (or a negative size).
	ErrFrameTooLarge = errors.New("protocol: response frame too large")
	// ErrCorrelationMismatch: a response carried a correlation id other than
	// the one of the oldest request in flight, or arrived with none in flight.
	ErrCorrelationMismatch = errors.New("protocol: response correlation id mismatch")
	// ErrMalformedResponse: a response frame was too short or did not decode.
	ErrMalformedResponse = errors.New("protocol: malformed response")
	// ErrConnClosed: the connection was closed by Close.
	ErrConnClosed = errors.New("protocol: connection closed")
	// ErrResponseTimeout: no response arrived within ConnConfig.RequestTimeout;
	// the connection is closed, as its pipeline can no longer be trusted.
	ErrResponseTimeout = errors.New("protocol: response timed out")
	// ErrClosed: the Pool or Metadata was closed.
	ErrClosed = errors.New("protocol: closed")
	// ErrNoBroker: no broker address is known or reachable.
	ErrNoBroker = errors.New("protocol: no broker available")
)

// ErrUnsupportedVersion (Kafka code UNSUPPORTED_VERSION) is also matched by a
// *VersionError, returned when this client and the broker share no version of
// an API.

// VersionError says that a request cannot be sent because the broker and
// this client share no version of its API. It matches ErrUnsupportedVersion.
type VersionError struct {
	Key  int16
	API  string // Kafka API name, e.g. "Produce"
	Addr string // broker address
	// OurMin/OurMax is the range this client speaks.
	OurMin, OurMax int16
	// BrokerMin/BrokerMax is the range the broker advertised; BrokerHas is
	// false when the broker does not advertise the API at all.
	BrokerMin, BrokerMax int16
	BrokerHas            bool
}

// Error implements error.
func (e *VersionError) Error() string {
	if !e.BrokerHas {
		return fmt.Sprintf("protocol: broker %s does not support API %s (key %d)", e.Addr, e.API, e.Key)
	}
	return fmt.Sprintf("protocol: unsupported version for API %s (key %d) on broker %s: client speaks v%d-v%d, broker v%d-v%d",
		e.API, e.Key, e.Addr, e.OurMin, e.OurMax, e.BrokerMin, e.BrokerMax)
}

// Unwrap returns ErrUnsupportedVersion.
func (e *VersionError) Unwrap() error { return ErrUnsupportedVersion }

// UnknownTopicError names a topic the cluster does not know. It matches
// ErrUnknownTopicOrPartition.
type UnknownTopicError struct {
	Topic     string
	Partition int32 // -1 when the whole topic is unknown
}

// Error implements error.
func (e *UnknownTopicError) Error() string {
	if e.Partition >= 0 {
		return fmt.Sprintf("protocol: unknown partition %s[%d]", e.Topic, e.Partition)
	}
	return "protocol: unknown topic " + e.Topic
}

// Unwrap returns ErrUnknownTopicOrPartition.
func (e *UnknownTopicError) Unwrap() error { return ErrUnknownTopicOrPartition }
