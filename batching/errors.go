package batching

import (
	"errors"
	"fmt"
)

// Errors returned by this package; test with errors.Is.
var (
	// ErrRecordTooLarge: a record cannot fit any batch; the error is a
	// *RecordTooLargeError naming the sizes.
	ErrRecordTooLarge = errors.New("batching: record too large")
	// ErrBufferFull: TryAppend found no room under MaxBufferedBytes or
	// MaxBufferedRecords.
	ErrBufferFull = errors.New("batching: buffer full")
	// ErrBadRef: a PartitionRef of another accumulator, or the zero one.
	ErrBadRef = errors.New("batching: partition ref not of this accumulator")
	// ErrClosed: the accumulator is closed.
	ErrClosed = errors.New("batching: accumulator closed")
	// ErrInvalidConfig: a Config field is out of range.
	ErrInvalidConfig = errors.New("batching: invalid config")
	// ErrCannotSplit: a batch of one record cannot be split further.
	ErrCannotSplit = errors.New("batching: batch of one record cannot be split")
	// ErrCorrupt: bytes handed to the decoder are not a valid RecordBatch v2.
	ErrCorrupt = errors.New("batching: corrupt record batch")
	// ErrChecksum: a record batch's CRC32C does not match its contents.
	// Errors wrapping it also wrap ErrCorrupt.
	ErrChecksum = fmt.Errorf("%w: CRC mismatch", ErrCorrupt)
	// ErrUnsupportedMagic: a batch uses a message format other than v2.
	ErrUnsupportedMagic = errors.New("batching: unsupported record batch magic")
)

// RecordTooLargeError reports a record refused because the smallest batch
// holding it (the 61-byte header plus the encoded record) exceeds Max.
type RecordTooLargeError struct {
	Size int // bytes of a batch holding only this record, uncompressed
	Max  int // the limit it exceeds
}

func (e *RecordTooLargeError) Error() string {
	return fmt.Sprintf("batching: record too large: a batch of it alone is %d bytes, above the maximum of %d", e.Size, e.Max)
}

// Is makes errors.Is(err, ErrRecordTooLarge) true.
func (e *RecordTooLargeError) Is(target error) bool { return target == ErrRecordTooLarge }

// ErrReleased: the batch was released and can no longer be split.
var ErrReleased = errors.New("batching: batch already released")
