package kafka

import (
	"fmt"
	"strconv"
	"strings"
)

// offsetTailBase is librdkafka's RD_KAFKA_OFFSET_TAIL_BASE: OffsetTail(n)
// is offsetTailBase - n.
const offsetTailBase = -2000

// OffsetTail returns the logical offset relativeOffset messages before
// the end of a partition (librdkafka's RD_KAFKA_OFFSET_TAIL): -2000 minus
// relativeOffset. A producer has no use for it; it is here so that programs
// written for confluent-kafka-go compile.
func OffsetTail(relativeOffset Offset) Offset {
	return Offset(offsetTailBase - int64(relativeOffset))
}

// NewOffset creates a new Offset using the provided logical string, an
// absolute int64 offset value, or a concrete Offset type. Logical offsets:
// "beginning" and "earliest" (OffsetBeginning), "end" and "latest"
// (OffsetEnd), "unset" and "invalid" (OffsetInvalid), "stored"
// (OffsetStored); any other string must be a decimal integer. Other types
// are an Error with code ErrInvalidArg, as is a string that is neither.
func NewOffset(offset interface{}) (Offset, error) {
	switch v := offset.(type) {
	case string:
		switch v {
		case "beginning", "earliest":
			return OffsetBeginning, nil
		case "end", "latest":
			return OffsetEnd, nil
		case "unset", "invalid":
			return OffsetInvalid, nil
		case "stored":
			return OffsetStored, nil
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return OffsetInvalid, Error{code: ErrInvalidArg, str: fmt.Sprintf("Invalid offset %q: want beginning, earliest, end, latest, unset, invalid, stored or an integer", v), err: err}
		}
		return Offset(n), nil
	case int:
		return Offset(v), nil
	case int64:
		return Offset(v), nil
	case Offset:
		return v, nil
	}
	return OffsetInvalid, newErrorFromString(ErrInvalidArg, fmt.Sprintf("Invalid offset type: %T", offset))
}

// Set offset value from a logical name or a number, as NewOffset reads it;
// on error o is left unchanged.
func (o *Offset) Set(offset interface{}) error {
	n, err := NewOffset(offset)
	if err != nil {
		return err
	}
	*o = n
	return nil
}

// TopicPartitions is a slice of TopicPartitions that also implements the
// sort interface: by topic, then partition.
type TopicPartitions []TopicPartition

func (tps TopicPartitions) Len() int { return len(tps) }

func (tps TopicPartitions) Less(i, j int) bool {
	a, b := topicName(tps[i].Topic), topicName(tps[j].Topic)
	if a != b {
		return a < b
	}
	return tps[i].Partition < tps[j].Partition
}

func (tps TopicPartitions) Swap(i, j int) { tps[i], tps[j] = tps[j], tps[i] }

// topicName is *t, "" for nil (sorted first).
func topicName(t *string) string {
	if t == nil {
		return ""
	}
	return *t
}
