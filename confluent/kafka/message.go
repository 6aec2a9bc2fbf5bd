package kafka

import (
	"fmt"
	"strconv"
	"time"
)

// PartitionAny represents any partition (for partitioning), or unspecified
// value (for all other cases).
const PartitionAny = int32(-1)

// Offset type (int64) with support for canonical names.
type Offset int64

// Logical offsets, librdkafka's values.
const (
	// OffsetBeginning represents the earliest offset (logical).
	OffsetBeginning = Offset(-2)
	// OffsetEnd represents the latest offset (logical).
	OffsetEnd = Offset(-1)
	// OffsetInvalid represents an invalid/unspecified offset.
	OffsetInvalid = Offset(-1001)
	// OffsetStored represents a stored offset.
	OffsetStored = Offset(-1000)
)

func (o Offset) String() string {
	switch o {
	case OffsetBeginning:
		return "beginning"
	case OffsetEnd:
		return "end"
	case OffsetInvalid:
		return "unset"
	case OffsetStored:
		return "stored"
	}
	return strconv.FormatInt(int64(o), 10)
}

// TopicPartition is a generic placeholder for a Topic+Partition and
// optionally Offset.
type TopicPartition struct {
	Topic       *string
	Partition   int32
	Offset      Offset
	Metadata    *string
	Error       error
	LeaderEpoch *int32 // LeaderEpoch or nil if not available
}

func (p TopicPartition) String() string {
	topic := "<null>"
	if p.Topic != nil {
		topic = *p.Topic
	}
	if p.Error != nil {
		return fmt.Sprintf("%s[%d]@%s(%s)", topic, p.Partition, p.Offset, p.Error)
	}
	return fmt.Sprintf("%s[%d]@%s", topic, p.Partition, p.Offset)
}

// Header represents a single Kafka message header. Headers keep their
// order and may repeat a Key; Value may be nil, empty or binary.
type Header struct {
	Key   string // Header name (utf-8 string)
	Value []byte // Header value (nil, empty, or binary)
}

// String returns the Header Key and data in a human representable possibly
// truncated form.
func (h Header) String() string {
	if h.Value == nil {
		return h.Key + "=nil"
	}
	if len(h.Value) == 0 {
		return h.Key + "=<empty>"
	}
	if len(h.Value) > 65 {
		return fmt.Sprintf("%s=%s(%d more bytes)", h.Key, strconv.Quote(string(h.Value[:50])), len(h.Value)-50)
	}
	return h.Key + "=" + strconv.Quote(string(h.Value))
}

// TimestampType is the Message timestamp type or source.
type TimestampType int

const (
	// TimestampNotAvailable indicates no timestamp was set.
	TimestampNotAvailable TimestampType = 0
	// TimestampCreateTime indicates timestamp set by producer (source time).
	TimestampCreateTime TimestampType = 1
	// TimestampLogAppendTime indicates timestamp set by broker (store time).
	TimestampLogAppendTime TimestampType = 2
)

func (t TimestampType) String() string {
	switch t {
	case TimestampCreateTime:
		return "CreateTime"
	case TimestampLogAppendTime:
		return "LogAppendTime"
	}
	return "NotAvailable"
}

// Message represents a Kafka message. As a delivery report it carries the
// topic, partition and offset (TopicPartition.Error is nil when the message
// was written), the Opaque given to Produce, and Key and Value (Headers
// too with go.delivery.report.fields=all or headers).
type Message struct {
	TopicPartition TopicPartition
	Value          []byte
	Key            []byte
	Timestamp      time.Time
	TimestampType  TimestampType
	Opaque         interface{}
	Headers        []Header
	LeaderEpoch    *int32 // Deprecated: LeaderEpoch or nil if not available. Use m.TopicPartition.LeaderEpoch instead.
}

// String returns a human readable representation of a Message. Key and
// payload are not represented.
func (m *Message) String() string {
	topic := ""
	if m.TopicPartition.Topic != nil {
		topic = *m.TopicPartition.Topic
	}
	return fmt.Sprintf("%s[%d]@%s", topic, m.TopicPartition.Partition, m.TopicPartition.Offset)
}

// Event generic interface: *Message (a delivery report), Error and *Stats
// on a producer.
type Event interface {
	// String returns a human-readable representation of the event.
	String() string
}

// Stats statistics event: librdkafka's statistics JSON (see the package
// documentation for the fields rollsafe fills).
type Stats struct {
	statsJSON string
}

func (e Stats) String() string { return e.statsJSON }
