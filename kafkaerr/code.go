package kafkaerr

import "strconv"

// Code is a Kafka error code as a broker sends it (an int16 on the wire),
// or Transport. Convert a wire code with Code(x); Wire gives it back.
type Code int32

// Transport is no answer at all: the connection failed, the request was
// never written, or the response lacked the partition. It is not a Kafka
// code and lies outside int16, so no broker's answer can equal it. The
// caller says whether the request may have reached the broker.
const Transport Code = -1 << 16

// Wire returns c as the int16 a broker sends, and false for Transport (or
// any value outside int16).
func (c Code) Wire() (int16, bool) {
	if c < -1<<15 || c >= 1<<15 {
		return 0, false
	}
	return int16(c), true
}

// Outcome is what a failed produce means for the records of its batch.
type Outcome uint8

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

// Action is what the idempotent producer does with a batch answered with a
// code (idempotence/README.md, rules, says the same row by row).
type Action uint8

const (
	// RetryMaybe: the batch may be in the log; it is resent unchanged and
	// never reported as not written. The zero value: the safe default.
	RetryMaybe Action = iota
	// Ack: the batch is in the log at the answer's base offset.
	Ack
	// AckDuplicate: the broker already had the batch (a resend); in the
	// log, offset unknown.
	AckDuplicate
	// Retry: not appended; resent unchanged (same producer id, epoch and
	// sequence), one in flight until a success.
	Retry
	// RetryBounded: not appended; resent unchanged a bounded number of
	// times, then failed as not written (CORRUPT_MESSAGE: a CRC failure in
	// transit, or a refusal no resend cures on old brokers).
	RetryBounded
	// Fail: not appended and no resend can succeed: the batch fails as
	// not written. The fatal codes.
	Fail
	// OutOfOrder: the broker expected another sequence
	// (OUT_OF_ORDER_SEQUENCE_NUMBER).
	OutOfOrder
	// StaleEpoch: written under an epoch the broker no longer takes
	// (INVALID_PRODUCER_EPOCH).
	StaleEpoch
	// UnknownProducer: the broker no longer knows the producer id
	// (UNKNOWN_PRODUCER_ID).
	UnknownProducer
	// TooLarge: the batch must be split (MESSAGE_TOO_LARGE).
	TooLarge
)

var actionNames = [...]string{"retry-maybe", "ack", "ack-duplicate", "retry", "retry-bounded", "fail", "out-of-order", "stale-epoch", "unknown-producer", "too-large"}

// String returns a short name for a.
func (a Action) String() string {
	if int(a) < len(actionNames) {
		return actionNames[a]
	}
	return "Action(" + strconv.Itoa(int(a)) + ")"
}

// flags are the yes/no columns of the table.
type flags uint8

const (
	retriable flags = 1 << iota
	refresh
	maybeAcksAll
	authorization
	authentication
)

// row is one code's entry in the table.
type row struct {
	code    Code
	name    string
	outcome Outcome
	action  Action
	flags   flags
}

const minCode = -1

// unknown is the row of a code the table lacks: maybe appended, resent
// unchanged, not retriable.
var unknown = row{outcome: OutcomeMaybeAppended, action: RetryMaybe}

// transport is Transport's row: maybe appended unless the caller knows
// better, and the leader is looked up again.
var transport = row{code: Transport, name: "TRANSPORT", outcome: OutcomeMaybeAppended, action: RetryMaybe, flags: refresh}

func lookup(c Code) *row {
	if i := int(c) - minCode; i >= 0 && i < len(table) {
		return &table[i]
	}
	if c == Transport {
		return &transport
	}
	return &unknown
}

// Known reports whether c is in the table (a Kafka code rollsafe knows).
func (c Code) Known() bool {
	i := int(c) - minCode
	return i >= 0 && i < len(table)
}

// String returns Kafka's name for c, "TRANSPORT" for Transport, and
// "UNKNOWN_CODE_<n>" for a code the table lacks.
func (c Code) String() string {
	if r := lookup(c); r.name != "" {
		return r.name
	}
	return "UNKNOWN_CODE_" + strconv.Itoa(int(c))
}

// Retriable reports whether Kafka marks c retriable.
func (c Code) Retriable() bool { return lookup(c).flags&retriable != 0 }

// Outcome is what a failed produce answered with c means for its records
// under acks=1, and for rejections.
func (c Code) Outcome() Outcome { return lookup(c).outcome }

// ProduceOutcome is Outcome refined for a produce sent with acks=all:
// NOT_LEADER_OR_FOLLOWER, UNKNOWN_TOPIC_OR_PARTITION and
// KAFKA_STORAGE_ERROR can come from the broker's delayed-produce check
// after the batch was appended to its local log, so they are maybe.
func (c Code) ProduceOutcome(acksAll bool) Outcome {
	r := lookup(c)
	if acksAll && r.flags&maybeAcksAll != 0 {
		return OutcomeMaybeAppended
	}
	return r.outcome
}

// Action is what the idempotent producer does with a batch answered with
// c under the given acks (under acks=all a Retry of a maybeAcksAll code
// becomes RetryMaybe). Transport's action is RetryMaybe; the caller's
// knowledge of whether the request was written refines it.
func (c Code) Action(acksAll bool) Action {
	r := lookup(c)
	if acksAll && r.flags&maybeAcksAll != 0 && r.action == Retry {
		return RetryMaybe
	}
	return r.action
}

// Fatal reports whether a batch answered with c fails at once as not
// written (Action Fail).
func (c Code) Fatal() bool { return lookup(c).action == Fail }

// RefreshMetadata reports whether the partition's leader must be looked up
// again after c (Transport included).
func (c Code) RefreshMetadata() bool { return lookup(c).flags&refresh != 0 }

// Authorization reports whether c is the broker refusing the producer
// access (TOPIC_, GROUP_, CLUSTER_, TRANSACTIONAL_ID_AUTHORIZATION_FAILED).
func (c Code) Authorization() bool { return lookup(c).flags&authorization != 0 }

// Authentication reports whether c is the broker refusing the producer's
// credentials (SASL_AUTHENTICATION_FAILED).
func (c Code) Authentication() bool { return lookup(c).flags&authentication != 0 }

// Codes returns every code in the table, in order.
func Codes() []Code {
	cs := make([]Code, len(table))
	for i := range table {
		cs[i] = table[i].code
	}
	return cs
}
