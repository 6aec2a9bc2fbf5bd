package batching

import "time"

// Header is one record header. A nil Value is encoded as null.
type Header struct {
	Key   string
	Value []byte
}

// Record is one record to produce. A nil Key or Value is encoded as null
// (distinct from an empty, non-nil slice). A zero Timestamp is replaced by the
// time of the append.
type Record struct {
	Key, Value []byte
	Headers    []Header
	Timestamp  time.Time
}

// TopicPartition names one partition of one topic.
type TopicPartition struct {
	Topic     string
	Partition int32
}
