package batching

import (
	"errors"
	"fmt"
	"time"

	"github.com/rollsafe/rollsafe/compress"
)

// BatchHeader is the fixed 61-byte header of a RecordBatch v2.
type BatchHeader struct {
	BaseOffset           int64
	Length               int32 // bytes after the length field
	PartitionLeaderEpoch int32
	Magic                int8
	CRC                  uint32
	Attributes           int16
	LastOffsetDelta      int32
	FirstTimestamp       int64
	MaxTimestamp         int64
	ProducerID           int64
	ProducerEpoch        int16
	BaseSequence         int32
	NumRecords           int32
}

// Codec returns the compression codec in the attributes.
func (h *BatchHeader) Codec() compress.Codec { return compress.Codec(h.Attributes & attrCodecMask) }

// LogAppendTime reports whether the timestamps are the broker's append time.
func (h *BatchHeader) LogAppendTime() bool { return h.Attributes&attrTimestampType != 0 }

// Transactional reports the transactional attribute bit.
func (h *BatchHeader) Transactional() bool { return h.Attributes&attrTransactional != 0 }

// Control reports whether this is a control batch (transaction markers).
func (h *BatchHeader) Control() bool { return h.Attributes&attrControl != 0 }

// LastOffset returns the offset of the batch's last record.
func (h *BatchHeader) LastOffset() int64 { return h.BaseOffset + int64(h.LastOffsetDelta) }

// DecodedRecord is one record of a decoded batch. Key, Value and header
// values alias the decoded batch's memory; nil means null.
type DecodedRecord struct {
	Offset    int64
	Timestamp time.Time
	Key       []byte
	Value     []byte
	Headers   []Header
}

// DecodedBatch is one fully decoded record batch.
type DecodedBatch struct {
	Header  BatchHeader
	Records []DecodedRecord
}

// nextBatch splits the first complete batch off raw. ok is false when raw
// holds no complete batch any more (empty or truncated at the end).
func nextBatch(raw []byte, at int) (batch, rest []byte, ok bool, err error) {
	if len(raw) < offMagic+1 {
		return nil, nil, false, nil
	}
	if m := int8(raw[offMagic]); m != magicV2 {
		return nil, nil, false, fmt.Errorf("%w: magic %d at byte %d", ErrUnsupportedMagic, m, at)
	}
	length := int32(be.Uint32(raw[offLength:]))
	if length < batchHeaderLen-lengthFieldEnd {
		return nil, nil, false, fmt.Errorf("%w: batch length %d at byte %d", ErrCorrupt, length, at)
	}
	total := int64(lengthFieldEnd) + int64(length)
	if total > int64(len(raw)) {
		return nil, nil, false, nil // truncated last batch, as fetch responses allow
	}
	return raw[:total], raw[total:], true, nil
}

// legacyMinSize is the smallest magic 0 message after its size field: crc,
// magic, attributes, key length, value length.
const legacyMinSize = 4 + 1 + 1 + 4 + 4

// isLegacy reports raw starting with a magic 0 or 1 message.
func isLegacy(raw []byte) bool {
	return len(raw) > offMagic && (raw[offMagic] == 0 || raw[offMagic] == 1)
}

// nextLegacy returns the header of the magic 0 or 1 message at the start of
// raw; ok is false when it is truncated.
func nextLegacy(raw []byte, at int) (h BatchHeader, rest []byte, ok bool, err error) {
	m := int8(raw[offMagic])
	size := int32(be.Uint32(raw[offLength:]))
	if size < legacyMinSize {
		return h, nil, false, fmt.Errorf("%w: message size %d at byte %d", ErrCorrupt, size, at)
	}
	total := int64(lengthFieldEnd) + int64(size)
	if total > int64(len(raw)) {
		return h, nil, false, nil // truncated last message
	}
	h = BatchHeader{BaseOffset: int64(be.Uint64(raw[offBaseOffset:])), Length: size, Magic: m,
		ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, NumRecords: 1}
	return h, raw[total:], true, nil
}

// parseHeader reads the header of a complete batch.
func parseHeader(b []byte) BatchHeader {
	return BatchHeader{
		BaseOffset:           int64(be.Uint64(b[offBaseOffset:])),
		Length:               int32(be.Uint32(b[offLength:])),
		PartitionLeaderEpoch: int32(be.Uint32(b[offLeaderEpoch:])),
		Magic:                int8(b[offMagic]),
		CRC:                  be.Uint32(b[offCRC:]),
		Attributes:           int16(be.Uint16(b[offAttributes:])),
		LastOffsetDelta:      int32(be.Uint32(b[offLastOffsetDelta:])),
		FirstTimestamp:       int64(be.Uint64(b[offFirstTimestamp:])),
		MaxTimestamp:         int64(be.Uint64(b[offMaxTimestamp:])),
		ProducerID:           int64(be.Uint64(b[offProducerID:])),
		ProducerEpoch:        int16(be.Uint16(b[offProducerEpoch:])),
		BaseSequence:         int32(be.Uint32(b[offBaseSequence:])),
		NumRecords:           int32(be.Uint32(b[offNumRecords:])),
	}
}

// ParseBatchHeaders walks the record batches in raw (such as a fetch
// response's records bytes) and returns their headers, without checking
// CRCs or decompressing. A truncated last batch is ignored. Messages of the
// old formats (magic 0 and 1, written before Kafka 0.11 and still found at
// the start of old logs) are returned as headers with their Magic, their
// offset as BaseOffset (for a compressed wrapper, its last inner offset),
// LastOffsetDelta 0 and no producer (-1): nobody's idempotent batch, but
// offsets a reader must step over.
func ParseBatchHeaders(raw []byte) ([]BatchHeader, error) {
	var hs []BatchHeader
	for at := 0; ; {
		if isLegacy(raw) {
			legacy, rest, ok, err := nextLegacy(raw, at)
			if err != nil || !ok {
				return hs, err
			}
			hs = append(hs, legacy)
			at += len(raw) - len(rest)
			raw = rest
			continue
		}
		batch, rest, ok, err := nextBatch(raw, at)
		if err != nil {
			return hs, err
		}
		if !ok {
			return hs, nil
		}
		hs = append(hs, parseHeader(batch))
		at += len(batch)
		raw = rest
	}
}

// DecodeBatches fully decodes the record batches in raw: CRC check,
// decompression (at most limit bytes per batch, else compress.ErrTooLarge)
// and every record. A truncated last batch is ignored. Records of
// uncompressed batches alias raw.
func DecodeBatches(raw []byte, limit int) ([]DecodedBatch, error) {
	var out []DecodedBatch
	for at := 0; ; {
		batch, rest, ok, err := nextBatch(raw, at)
		if err != nil {
			return out, err
		}
		if !ok {
			return out, nil
		}
		d, err := DecodeBatch(batch, limit)
		if err != nil {
			return out, fmt.Errorf("batch at byte %d: %w", at, err)
		}
		out = append(out, d)
		at += len(batch)
		raw = rest
	}
}

// DecodeBatch decodes exactly one complete record batch, as DecodeBatches.
func DecodeBatch(batch []byte, limit int) (DecodedBatch, error) {
	b, rest, ok, err := nextBatch(batch, 0)
	switch {
	case err != nil:
		return DecodedBatch{}, err
	case !ok:
		return DecodedBatch{}, fmt.Errorf("%w: truncated batch of %d bytes", ErrCorrupt, len(batch))
	case len(rest) != 0:
		return DecodedBatch{}, fmt.Errorf("%w: %d bytes after the batch", ErrCorrupt, len(rest))
	}
	h := parseHeader(b)
	if got := batchCRC(b); got != h.CRC {
		return DecodedBatch{Header: h}, fmt.Errorf("%w: header says %#08x, contents give %#08x", ErrChecksum, h.CRC, got)
	}
	data := b[batchHeaderLen:]
	if c := h.Codec(); c != compress.None {
		data, err = compress.Decompress(nil, data, c, limit)
		if err != nil {
			return DecodedBatch{Header: h}, fmt.Errorf("batching: records: %w", err)
		}
	}
	recs, err := decodeRecords(data, &h)
	return DecodedBatch{Header: h, Records: recs}, err
}

// decodeRecords parses the records section of a batch with header h.
func decodeRecords(data []byte, h *BatchHeader) ([]DecodedRecord, error) {
	n := int(h.NumRecords)
	if n < 0 || n > len(data)/minRecordLen {
		return nil, fmt.Errorf("%w: %d records in %d bytes", ErrCorrupt, h.NumRecords, len(data))
	}
	recs := make([]DecodedRecord, n)
	for i := range recs {
		size, k := readVarint(data)
		if k == 0 || size < 0 || size > int64(len(data)-k) {
			return nil, fmt.Errorf("%w: record %d: bad length", ErrCorrupt, i)
		}
		body := data[k : k+int(size)]
		data = data[k+int(size):]
		if err := decodeRecordBody(body, h, &recs[i]); err != nil {
			return nil, fmt.Errorf("%w: record %d: %s", ErrCorrupt, i, err.Error())
		}
	}
	if len(data) != 0 {
		return nil, fmt.Errorf("%w: %d bytes after the last record", ErrCorrupt, len(data))
	}
	return recs, nil
}

// fieldReader reads varint-framed fields; the first failure sticks.
type fieldReader struct {
	b   []byte
	bad string
}

func (r *fieldReader) varint(what string) int64 {
	if r.bad != "" {
		return 0
	}
	v, n := readVarint(r.b)
	if n == 0 {
		r.bad = "truncated " + what
		return 0
	}
	r.b = r.b[n:]
	return v
}

// bytes reads a length-prefixed field; -1 is null when nullable.
func (r *fieldReader) bytes(what string, nullable bool) []byte {
	n := r.varint(what + " length")
	if r.bad != "" {
		return nil
	}
	if n == -1 && nullable {
		return nil
	}
	if n < 0 || n > int64(len(r.b)) {
		r.bad = fmt.Sprintf("%s length %d with %d bytes left", what, n, len(r.b))
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

func decodeRecordBody(body []byte, h *BatchHeader, rec *DecodedRecord) error {
	if len(body) < 1 {
		return errors.New("empty record")
	}
	r := fieldReader{b: body[1:]} // skip the unused attributes byte
	tsDelta := r.varint("timestamp delta")
	offDelta := r.varint("offset delta")
	rec.Key = r.bytes("key", true)
	rec.Value = r.bytes("value", true)
	nh := r.varint("header count")
	if r.bad == "" && (nh < 0 || nh > int64(len(r.b)/2)) {
		r.bad = fmt.Sprintf("header count %d with %d bytes left", nh, len(r.b))
	}
	if r.bad == "" && nh > 0 {
		rec.Headers = make([]Header, nh)
		for j := range rec.Headers {
			rec.Headers[j].Key = string(r.bytes("header key", false))
			rec.Headers[j].Value = r.bytes("header value", true)
		}
	}
	if r.bad != "" {
		return errors.New(r.bad)
	}
	if len(r.b) != 0 {
		return fmt.Errorf("%d bytes left in the record", len(r.b))
	}
	rec.Offset = h.BaseOffset + offDelta
	ts := h.FirstTimestamp + tsDelta
	if h.LogAppendTime() {
		ts = h.MaxTimestamp
	}
	rec.Timestamp = time.UnixMilli(ts)
	return nil
}
