package sim

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"sync"

	"github.com/rollsafe/rollsafe/compress"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// recordBatchHeaderLen is the size of a v2 record batch header, from the
// base offset to the record count.
const recordBatchHeaderLen = 61

// castagnoli is hash/crc32's CRC32C table. The sim checks produced batches
// with hash/crc32, not with the client's own checksum code
// (internal/crcfold): a broker that computed a checksum the same wrong way
// as the client would let the mistake through.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// batchHeader is what the broker needs from a produced batch's header.
type batchHeader struct {
	lastOffsetDelta int32
	firstTimestamp  int64
	maxTimestamp    int64
	producerID      int64
	producerEpoch   int16
	baseSequence    int32
	numRecords      int32
	attributes      int16
	// marker and coordEpoch are a transaction marker's (control batch's)
	// type and coordinator epoch; markerNone for other batches.
	marker     markerType
	coordEpoch int32
}

// control reports whether the batch is a control batch (a transaction
// marker).
func (h *batchHeader) control() bool { return h.attributes&attrControl != 0 }

// transactional reports whether the batch belongs to a transaction.
func (h *batchHeader) transactional() bool { return h.attributes&attrTransactional != 0 }

// count is how many offsets the batch occupies.
func (h *batchHeader) count() int64 { return int64(h.lastOffsetDelta) + 1 }

// lastSequence is the sequence of the batch's last record, wrapping from
// MaxInt32 to 0 as Kafka does.
func (h *batchHeader) lastSequence() int32 { return addSeq(h.baseSequence, h.lastOffsetDelta) }

// addSeq adds n to seq within [0, MaxInt32], wrapping.
func addSeq(seq, n int32) int32 {
	if seq > math.MaxInt32-n {
		return n - (math.MaxInt32 - seq) - 1
	}
	return seq + n
}

// parseProduceBatch validates the records of one partition of a produce
// request: exactly one magic-2 batch with a correct CRC-32C whose records
// decompress within limit and parse by Kafka's rules (checkRecords); a
// compressed batch's records must have offset deltas 0..n-1. Errors are
// *BatchError carrying the code Kafka answers with. It returns the batch
// without the bytes after it that Kafka trims (firstBatch).
//
// With keyed (a compacted topic) every record must have a key.
func parseProduceBatch(raw []byte, maxBatch, maxDecompressed int, keyed bool) (batchHeader, []byte, error) {
	var h batchHeader
	raw, err := firstBatch(raw)
	if err != nil {
		return h, nil, err
	}
	if m := raw[offsetOfMagic]; m != 2 {
		return h, nil, batchErr(errInvalidRecord, "record batch magic %d, produce v3+ needs 2", m)
	}
	if len(raw) > maxBatch {
		return h, nil, batchErr(errMessageTooLarge, "record batch of %d bytes exceeds %d", len(raw), maxBatch)
	}
	if len(raw) < recordBatchHeaderLen {
		return h, nil, batchErr(errCorruptMessage, "record batch of %d bytes is shorter than its header", len(raw))
	}
	var b kmsg.RecordBatch
	if err := b.ReadFrom(raw); err != nil {
		return h, nil, batchErr(errCorruptMessage, "record batch header: %v", err)
	}
	if b.FirstOffset != 0 {
		return h, nil, batchErr(errInvalidRecord, "the base offset of a produced batch must be 0, not %d", b.FirstOffset)
	}
	if crc := crc32.Checksum(raw[21:], castagnoli); crc != uint32(b.CRC) {
		return h, nil, batchErr(errCorruptMessage, "record batch CRC %08x, computed %08x", uint32(b.CRC), crc)
	}
	if b.Attributes&attrControl != 0 {
		return h, nil, batchErr(errInvalidRecord, "control batches cannot be produced")
	}
	if b.NumRecords <= 0 || b.LastOffsetDelta != b.NumRecords-1 {
		return h, nil, batchErr(errInvalidRecord, "record count %d with last offset delta %d", b.NumRecords, b.LastOffsetDelta)
	}
	if b.ProducerID >= 0 && (b.ProducerEpoch < 0 || b.FirstSequence < 0) {
		return h, nil, batchErr(errInvalidRecord, "producer %d with epoch %d and sequence %d", b.ProducerID, b.ProducerEpoch, b.FirstSequence)
	}
	codec := compress.Codec(b.Attributes & 0x07)
	if !codec.Valid() {
		// Kafka fails looking the codec up (IllegalArgumentException).
		return h, nil, batchErr(errUnknownServerError, "unknown compression type id %d", codec)
	}
	recs := b.Records
	if codec != compress.None {
		buf := inflated.Get().(*[]byte)
		defer putInflated(buf)
		recs, err = compress.Decompress((*buf)[:0], b.Records, codec, maxDecompressed)
		*buf = recs[:0]
		if err != nil {
			// Kafka's decompressing streams fail with a KafkaException,
			// which it answers UNKNOWN_SERVER_ERROR.
			code := errUnknownServerError
			if errors.Is(err, compress.ErrTooLarge) {
				code = errInvalidRecord
			}
			return h, nil, batchErr(code, "records: %v", err)
		}
	}
	inOrder, err := checkRecords(recs, b.NumRecords, keyed)
	if err != nil {
		return h, nil, err
	}
	if !inOrder && codec != compress.None {
		// Kafka keeps an uncompressed batch as sent whatever its records'
		// offset deltas. A compressed one with inner offsets other than
		// 0..n-1 it means to rebuild, but it has read the records without
		// their keys and values and fails (Apache Kafka 4.4: "key is skipped
		// in PartialDefaultRecord"); kafkacheck.OffsetDeltas shows it.
		return h, nil, batchErr(errUnknownServerError, "compressed batch with inner offsets other than 0..%d: Kafka fails rebuilding it", b.NumRecords-1)
	}
	h = batchHeader{
		lastOffsetDelta: b.LastOffsetDelta,
		firstTimestamp:  b.FirstTimestamp,
		maxTimestamp:    b.MaxTimestamp,
		producerID:      b.ProducerID,
		producerEpoch:   b.ProducerEpoch,
		baseSequence:    b.FirstSequence,
		numRecords:      b.NumRecords,
		attributes:      b.Attributes,
		marker:          markerNone,
	}
	return h, raw, nil
}

// inflated holds the buffers produced batches are decompressed into to be
// checked (their records are not kept: the log keeps the batch as sent), so
// that a broker taking compressed batches does not allocate, zero and grow
// a fresh one per batch: 3.7 MB allocated per 1 MiB gzip batch, a quarter
// of the broker's time checking it, and memory traffic that slowed the
// clients sharing its machine (BenchmarkParseProduceBatchGzip).
var inflated = sync.Pool{New: func() any { return new([]byte) }}

// maxKeptInflated bounds a buffer inflated keeps.
const maxKeptInflated = 8 << 20

func putInflated(buf *[]byte) {
	if cap(*buf) > maxKeptInflated {
		*buf = nil
	}
	inflated.Put(buf)
}

// eachRecord calls fn for each of n records in recs and returns the bytes
// left over, which must be none.
func eachRecord(recs []byte, n int32, fn func(int32, *kmsg.Record) error) ([]byte, error) {
	var r kmsg.Record
	for i := int32(0); i < n; i++ {
		l, used := binary.Varint(recs)
		if used <= 0 || l < 0 || l > int64(len(recs)-used) {
			return recs, batchErr(errCorruptMessage, "record %d: bad length", i)
		}
		end := used + int(l)
		if err := r.ReadFrom(recs[:end]); err != nil {
			return recs, batchErr(errCorruptMessage, "record %d: %v", i, err)
		}
		if err := fn(i, &r); err != nil {
			return recs, err
		}
		recs = recs[end:]
	}
	if len(recs) != 0 {
		return recs, batchErr(errCorruptMessage, "%d bytes after the last of %d records", len(recs), n)
	}
	return recs, nil
}
