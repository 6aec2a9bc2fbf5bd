package batching

import (
	"fmt"
	"runtime"
	"time"

	"github.com/rollsafe/rollsafe/compress"
)

// Defaults applied by NewAccumulator to zero Config fields.
const (
	DefaultBatchBytes     = 1 << 20
	DefaultLinger         = 5 * time.Millisecond
	DefaultMaxRecordBytes = 1 << 20
	// DefaultMaxBufferedBytes is 32 MiB of uncompressed record bytes.
	DefaultMaxBufferedBytes = 32 << 20
	// DefaultMaxBufferedRecords bounds the records not yet released.
	DefaultMaxBufferedRecords = 1 << 20
)

// maxBatchBytes keeps every batch's length and record count within int32.
const maxBatchBytes = 1 << 30

// Config tunes an Accumulator. The zero value of a field selects its default.
type Config struct {
	// Codec compresses every batch; Level is the codec's level
	// (compress.DefaultLevel, or 0 which is treated the same, for its default).
	Codec compress.Codec
	Level int
	// BatchBytes closes a batch once its uncompressed size (61-byte header
	// plus encoded records) reaches this; a record that would take the batch
	// past it starts a new batch. Default 1 MiB.
	BatchBytes int
	// BatchRecords, when positive, also closes a batch once it holds this
	// many records (librdkafka's batch.num.messages). Zero: no limit.
	BatchRecords int
	// Linger closes a batch this long after its first record was appended
	// (up to LingerHold later while a caller waits for buffer room and
	// closed batches wait for a worker). Zero selects 5ms; a negative value disables the timer
	// (batches then close only on size or Flush).
	Linger time.Duration
	// MaxRecordBytes refuses, with a *RecordTooLargeError, a record whose
	// batch-of-one would be larger than this. Default 1 MiB.
	MaxRecordBytes int
	// MaxBufferedBytes and MaxBufferedRecords bound the uncompressed record
	// bytes and the records appended but not yet released; Append waits for
	// room and TryAppend fails with ErrBufferFull.
	MaxBufferedBytes   int64
	MaxBufferedRecords int
	// Workers compress closed batches in parallel. Default GOMAXPROCS.
	Workers int
	// HoldUntilSent keeps a batch open past its linger while an earlier
	// batch of its partition is closed but not yet sent (see Sent), for at
	// most SendHold: it fills with what arrives meanwhile instead of
	// queueing behind, so a partition whose sends are held back (slow
	// acknowledgements, all in-flight slots taken) sends fewer, fuller
	// batches and keeps up. The caller must then call Sent (or Release)
	// for every batch.
	HoldUntilSent bool
	// Transactional sets the transactional attribute bit of every batch
	// (a producer with a transactional id: its records are visible to
	// read_committed consumers only once their transaction commits).
	Transactional bool
}

// withDefaults fills zero fields and validates the result.
func (c Config) withDefaults() (Config, error) {
	if c.Level == 0 {
		c.Level = compress.DefaultLevel
	}
	if !c.Codec.Valid() {
		return c, fmt.Errorf("batching: %w: %d", compress.ErrUnknownCodec, int8(c.Codec))
	}
	if c.BatchBytes == 0 {
		c.BatchBytes = DefaultBatchBytes
	}
	if c.Linger == 0 {
		c.Linger = DefaultLinger
	}
	if c.MaxRecordBytes == 0 {
		c.MaxRecordBytes = DefaultMaxRecordBytes
	}
	if c.MaxBufferedBytes == 0 {
		c.MaxBufferedBytes = DefaultMaxBufferedBytes
	}
	if c.MaxBufferedRecords == 0 {
		c.MaxBufferedRecords = DefaultMaxBufferedRecords
	}
	if c.Workers == 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	switch {
	case c.BatchRecords < 0:
		return c, fmt.Errorf("%w: BatchRecords %d is negative", ErrInvalidConfig, c.BatchRecords)
	case c.BatchBytes < batchHeaderLen+minRecordLen:
		return c, fmt.Errorf("%w: BatchBytes %d below %d", ErrInvalidConfig, c.BatchBytes, batchHeaderLen+minRecordLen)
	case c.BatchBytes > maxBatchBytes || c.MaxRecordBytes > maxBatchBytes:
		return c, fmt.Errorf("%w: BatchBytes %d or MaxRecordBytes %d above %d", ErrInvalidConfig, c.BatchBytes, c.MaxRecordBytes, maxBatchBytes)
	case c.MaxRecordBytes < batchHeaderLen+minRecordLen:
		return c, fmt.Errorf("%w: MaxRecordBytes %d below %d", ErrInvalidConfig, c.MaxRecordBytes, batchHeaderLen+minRecordLen)
	case c.MaxBufferedBytes < int64(c.MaxRecordBytes):
		return c, fmt.Errorf("%w: MaxBufferedBytes %d below MaxRecordBytes %d", ErrInvalidConfig, c.MaxBufferedBytes, c.MaxRecordBytes)
	case c.MaxBufferedRecords < 1:
		return c, fmt.Errorf("%w: MaxBufferedRecords %d below 1", ErrInvalidConfig, c.MaxBufferedRecords)
	case c.Workers < 1:
		return c, fmt.Errorf("%w: Workers %d below 1", ErrInvalidConfig, c.Workers)
	}
	return c, nil
}
