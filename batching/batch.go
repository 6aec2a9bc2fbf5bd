package batching

import (
	"hash/crc32"
	"log/slog"
	"time"

	"github.com/rollsafe/rollsafe/compress"
)

// Batch is one closed RecordBatch v2 of one partition: encoded, compressed
// and checksummed once, then reused verbatim on every retry. Its records stay
// available (for Split) until Release.
type Batch struct {
	TP      TopicPartition
	Records int   // number of records
	Tokens  []any // the tokens given to Append, one per record, in order

	acc   *Accumulator
	part  *partition // nil for batches made by Split
	codec compress.Codec
	id    uint64 // unique per open batch, for the linger queue
	seq   uint64 // closing order within the partition

	raw  []byte // batchHeaderLen reserved bytes, then the encoded records
	comp []byte // header and compressed records (unused for codec None)
	wire []byte // raw or comp: what Bytes returns

	firstTS, maxTS int64

	// recordsCRC is the CRC32C of wire's records (after the header) and
	// recordsShift crcShift of their length, set by finish.
	recordsCRC, recordsShift uint32

	producerID   int64
	epoch        int16
	baseSequence int32

	chargeBytes   int64
	chargeRecords int
}

// Bytes returns the whole RecordBatch v2 as it goes on the wire. The slice
// is owned by the batch and valid until Release.
func (b *Batch) Bytes() []byte { return b.wire }

// Codec returns the codec the batch is compressed with.
func (b *Batch) Codec() compress.Codec { return b.codec }

// FirstTimestamp returns the batch's first timestamp (ms since the epoch).
func (b *Batch) FirstTimestamp() int64 { return b.firstTS }

// MaxTimestamp returns the batch's largest timestamp (ms since the epoch).
func (b *Batch) MaxTimestamp() int64 { return b.maxTS }

// Producer returns the producer id, epoch and base sequence in the header
// (-1, -1, -1 until SetProducer).
func (b *Batch) Producer() (producerID int64, epoch int16, baseSequence int32) {
	return b.producerID, b.epoch, b.baseSequence
}

// UncompressedBytes returns the size the batch would have uncompressed.
func (b *Batch) UncompressedBytes() int { return len(b.raw) }

// SetProducer writes the producer id, epoch and base sequence into the
// header and recomputes the CRC; the records are not touched (no
// recompression). It costs nothing if the fields are unchanged.
func (b *Batch) SetProducer(producerID int64, epoch int16, baseSequence int32) {
	if producerID == b.producerID && epoch == b.epoch && baseSequence == b.baseSequence {
		return
	}
	b.producerID, b.epoch, b.baseSequence = producerID, epoch, baseSequence
	w := b.wire
	be.PutUint64(w[offProducerID:], uint64(producerID))
	be.PutUint16(w[offProducerEpoch:], uint16(epoch))
	be.PutUint32(w[offBaseSequence:], uint32(baseSequence))
	be.PutUint32(w[offCRC:], b.crc())
}

// crc returns the batch's CRC32C from its header and the records' CRC
// computed by finish, without a pass over the records.
func (b *Batch) crc() uint32 {
	h := crc32.Checksum(b.wire[offAttributes:batchHeaderLen], castagnoli)
	return crcCombine(h, b.recordsCRC, b.recordsShift)
}

// reset prepares a pooled batch to be the open batch of tp, with a buffer
// of at least sizeHint bytes (so that it does not regrow step by step).
func (b *Batch) reset(a *Accumulator, p *partition, tp TopicPartition, id uint64, sizeHint int) {
	b.TP = tp
	b.part = p
	b.Records = 0
	clear(b.Tokens)
	b.Tokens = b.Tokens[:0]
	b.acc = a
	b.codec = a.cfg.Codec
	b.id = id
	if want := max(sizeHint, batchHeaderLen, minBatchBuffer); cap(b.raw) < want {
		b.raw = make([]byte, batchHeaderLen, want)
	}
	b.raw = b.raw[:batchHeaderLen]
	b.wire = nil
	b.firstTS, b.maxTS = 0, 0
	b.producerID, b.epoch, b.baseSequence = -1, -1, -1
	b.chargeBytes, b.chargeRecords = 0, 0
}

// minBatchBuffer is the smallest buffer a batch starts with.
const minBatchBuffer = 4096

// add encodes r (timestamp ts, ms) as the next record. size is r's encoded
// length and body its body length, computed for this batch's deltas.
func (b *Batch) add(r *Record, ts int64, body, size int, token any) {
	if b.Records == 0 {
		b.firstTS, b.maxTS = ts, ts
	} else if ts > b.maxTS {
		b.maxTS = ts
	}
	if need := len(b.raw) + size; need > cap(b.raw) {
		// Grow by doubling, but not past the batch size, so that a full
		// batch's buffer is exactly as large as it needs to be.
		grown := make([]byte, len(b.raw), max(need, min(2*cap(b.raw), b.acc.cfg.BatchBytes)))
		copy(grown, b.raw)
		b.raw = grown
	}
	b.raw = appendRecord(b.raw, r, body, ts-b.firstTS, int32(b.Records))
	b.Records++
	b.Tokens = append(b.Tokens, token)
	b.chargeBytes += int64(size)
	b.chargeRecords++
}

// finish compresses the records and writes the header and CRC, once.
func (b *Batch) finish(c *compress.Compressor) {
	b.wire = b.raw
	if b.codec != compress.None {
		if cap(b.comp) < batchHeaderLen {
			b.comp = make([]byte, batchHeaderLen, batchHeaderLen+len(b.raw)/2)
		}
		out, err := c.Compress(b.comp[:batchHeaderLen], b.raw[batchHeaderLen:])
		if err != nil {
			// Unreachable with the codecs of package compress; an
			// uncompressed batch is still valid, so send that.
			slog.Error("batching: compression failed, sending batch uncompressed",
				"topic", b.TP.Topic, "partition", b.TP.Partition, "codec", b.codec, "err", err)
			b.codec = compress.None
		} else {
			b.comp = out
			b.wire = out
		}
	}
	b.writeHeader()
}

func (b *Batch) writeHeader() {
	w := b.wire
	be.PutUint64(w[offBaseOffset:], 0)
	be.PutUint32(w[offLength:], uint32(len(w)-lengthFieldEnd))
	be.PutUint32(w[offLeaderEpoch:], 0xffffffff) // -1: set by the broker
	w[offMagic] = magicV2
	be.PutUint16(w[offAttributes:], uint16(b.codec)&attrCodecMask)
	be.PutUint32(w[offLastOffsetDelta:], uint32(b.Records-1))
	be.PutUint64(w[offFirstTimestamp:], uint64(b.firstTS))
	be.PutUint64(w[offMaxTimestamp:], uint64(b.maxTS))
	be.PutUint64(w[offProducerID:], uint64(b.producerID))
	be.PutUint16(w[offProducerEpoch:], uint16(b.epoch))
	be.PutUint32(w[offBaseSequence:], uint32(b.baseSequence))
	be.PutUint32(w[offNumRecords:], uint32(b.Records))
	b.recordsCRC = crc32.Checksum(w[batchHeaderLen:], castagnoli)
	b.recordsShift = crcShift(len(w) - batchHeaderLen)
	be.PutUint32(w[offCRC:], b.crc())
}

// timestampMillis returns r's timestamp in ms, or now's if it is zero.
func timestampMillis(r *Record, now func() time.Time) int64 {
	if r.Timestamp.IsZero() {
		return now().UnixMilli()
	}
	return r.Timestamp.UnixMilli()
}
