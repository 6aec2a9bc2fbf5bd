package client

import (
	"time"

	"github.com/rollsafe/rollsafe/batching"
)

// Header is a record header (Key, Value). It is batching's header type, so
// a record's headers go into its batch without being copied first.
type Header = batching.Header

// Record is one Kafka record to produce. After delivery Partition and Offset
// hold where it was written.
//
// Its 160 bytes are a Go size class (kgo's Record's too): one more field
// would cost every record 16 bytes (176).
type Record struct {
	Topic string
	// Partition is used as is when HasPartition is set; otherwise the
	// partitioner chooses and fills it in.
	Partition    int32
	HasPartition bool
	direct       bool // ProduceSync's: its outcome skips the callback queue
	// Offset is set when the record is acknowledged; -1 while unknown.
	Offset int64

	// Delivery reads and writes Partition, Offset and these two only: kept
	// within 32 bytes, they usually share one cache line, so calling back a
	// record long after it was produced misses the cache once, not thrice.
	cb     func(*Record, error) // set by Produce: the producer's delivery
	userCb func(*Record, error) // the callback given to Produce

	Key       []byte // nil: a null key
	Value     []byte // nil: a null value (a tombstone)
	Headers   []Header
	Timestamp time.Time // zero: the time Produce is called

	// Context is free for the caller's use; rollsafe never reads it.
	Context any
}

// source is a record as its batch reads it (batching.Source), a method of
// rollsafe's own rather than of Record's.
type source Record

// BatchRecord returns the fields the record's batch encodes.
func (s *source) BatchRecord() (key, value []byte, headers []Header, ts int64) {
	return s.Key, s.Value, s.Headers, s.Timestamp.UnixMilli()
}

// syncSource is the source of a ProduceSync record (see tokenOf).
type syncSource Record

// BatchRecord returns the fields the record's batch encodes.
func (s *syncSource) BatchRecord() (key, value []byte, headers []Header, ts int64) {
	return (*source)(s).BatchRecord()
}

// Result is the outcome of one record of ProduceSync.
type Result struct {
	Record *Record
	Err    error
}

// Results is what ProduceSync returns: one Result per record, in order.
type Results []Result

// FirstErr returns the first record error, or nil if every record was
// acknowledged.
func (rs Results) FirstErr() error {
	for _, r := range rs {
		if r.Err != nil {
			return r.Err
		}
	}
	return nil
}
