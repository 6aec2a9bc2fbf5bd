package batching

import (
	"sync/atomic"

	"github.com/rollsafe/rollsafe/compress"
	"github.com/rollsafe/rollsafe/internal/crcfold"
)

// minRecordLen is the smallest encoded record: length, attributes,
// timestamp delta, offset delta, null key, null value, no headers.
const minRecordLen = 7

// Source is a record an open batch references instead of copying it: the
// accumulator reads its fields once when it is appended (for its size and
// timestamp) and again when its batch is encoded, and keeps only the
// Source itself, 16 bytes per record, until the batch is released.
// BatchRecord must return the same values every time until then; ts is the
// record's timestamp in milliseconds since the epoch.
type Source interface {
	BatchRecord() (key, value []byte, headers []Header, ts int64)
}

// held is the Source of a *Record appended through Append, TryAppend,
// AppendTo or TryAppendTo: a copy of its fields (not of the bytes they
// point to), its timestamp and the token given with it.
type held struct {
	key, value []byte
	headers    []Header
	ts         int64 // ms since the epoch
	token      any
}

func (h *held) BatchRecord() (key, value []byte, headers []Header, ts int64) {
	return h.key, h.value, h.headers, h.ts
}

func holdRecord(r *Record, ts int64, token any) held {
	return held{key: r.Key, value: r.Value, headers: r.Headers, ts: ts, token: token}
}

func bytesFieldLen(b []byte) int {
	if b == nil {
		return 1 // varint -1
	}
	return varintLen(int64(len(b))) + len(b)
}

// fieldsLen is the encoded size of a record's key, value and headers: the
// part of its length that does not depend on its place in a batch.
func fieldsLen(key, value []byte, headers []Header) int {
	n := bytesFieldLen(key) + bytesFieldLen(value) + varintLen(int64(len(headers)))
	for i := range headers {
		hd := &headers[i]
		n += varintLen(int64(len(hd.Key))) + len(hd.Key) + bytesFieldLen(hd.Value)
	}
	return n
}

// bodyLenOf is the encoded size of a record after its length prefix, from
// its fieldsLen and deltas: attributes, the deltas, then the fields.
func bodyLenOf(fields int, tsDelta int64, offDelta int32) int {
	return 1 + varintLen(tsDelta) + varintLen(int64(offDelta)) + fields
}

// encodedLen is the size of a record of body length body, prefix included.
func encodedLen(body int) int { return varintLen(int64(body)) + body }

// recordBodyLen is the encoded size of r after its length prefix.
func recordBodyLen(r *Record, tsDelta int64, offDelta int32) int {
	return bodyLenOf(fieldsLen(r.Key, r.Value, r.Headers), tsDelta, offDelta)
}

// recordLen is the full encoded size of r, length prefix included.
func recordLen(r *Record, tsDelta int64, offDelta int32) int {
	body := recordBodyLen(r, tsDelta, offDelta)
	return varintLen(int64(body)) + body
}

func appendBytesField(b, v []byte) []byte {
	if v == nil {
		return appendVarint(b, -1)
	}
	b = appendVarint(b, int64(len(v)))
	return append(b, v...)
}

// appendRecord encodes the record of the given fields, at the given deltas,
// onto b.
func appendRecord(b, key, value []byte, headers []Header, tsDelta int64, offDelta int32) []byte {
	b = appendVarint(b, int64(bodyLenOf(fieldsLen(key, value, headers), tsDelta, offDelta)))
	b = append(b, 0) // attributes: unused in v2
	b = appendVarint(b, tsDelta)
	b = appendVarint(b, int64(offDelta))
	b = appendBytesField(b, key)
	b = appendBytesField(b, value)
	b = appendVarint(b, int64(len(headers)))
	for i := range headers {
		hd := &headers[i]
		b = appendVarint(b, int64(len(hd.Key)))
		b = append(b, hd.Key...)
		b = appendBytesField(b, hd.Value)
	}
	return b
}

// crcChunk is how many freshly encoded bytes encodeRecords lets pile up
// before it checksums them: small enough that they are still in the L1
// cache, large enough that the CRC runs at full speed.
const crcChunk = 16 << 10

// encodeRecords appends the encoding of b's records to dst and returns it;
// with sum, also the CRC32C of the appended bytes, computed chunk by chunk
// right behind the copy (one pass over memory, not two). With st, the
// encoded bytes are written to st every streamChunk or so instead and dst
// is returned with its length at the call (sum must be false then).
//
// Records are read touchAhead at a time into a local array, the first and
// last byte of each key and value touched on the way, before any is
// copied. A batch is encoded after its records were produced, often out of
// the cache: copied one after another, each copy first waits for memory;
// read in a tight loop of independent loads, the processor has many in
// flight at once and the copies that follow find them cached (the lines
// between a value's first and last, the hardware prefetcher brings). The
// array is a local variable, not a slice, so that storing the fields into
// it needs no write barrier.
func (b *Batch) encodeRecords(dst []byte, sum bool, st *compress.Stream) ([]byte, uint32, error) {
	var crc uint32
	done := len(dst)
	base := len(dst)
	var chunk [touchAhead]held
	for lo := 0; lo < len(b.srcs); lo += touchAhead {
		srcs := b.srcs[lo:min(lo+touchAhead, len(b.srcs))]
		var x uint64
		for i, src := range srcs {
			chunk[i].key, chunk[i].value, chunk[i].headers, chunk[i].ts = src.BatchRecord()
			if k := chunk[i].key; len(k) > 0 {
				x += uint64(k[0]) + uint64(k[len(k)-1])
			}
			if v := chunk[i].value; len(v) > 0 {
				x += uint64(v[0]) + uint64(v[len(v)-1])
			}
		}
		if x == touchNever {
			touchSink.Add(1)
		}
		for j := range srcs {
			h := &chunk[j]
			dst = appendRecord(dst, h.key, h.value, h.headers, h.ts-b.firstTS, int32(lo+j))
			if sum && len(dst)-done >= crcChunk {
				crc = crcfold.Update(crc, crcfold.Castagnoli, dst[done:])
				done = len(dst)
			}
		}
		if st != nil && (len(dst)-base >= streamChunk || lo+touchAhead >= len(b.srcs)) {
			if err := st.Write(dst[base:]); err != nil {
				return dst, 0, err
			}
			dst = dst[:base]
		}
	}
	if sum {
		crc = crcfold.Update(crc, crcfold.Castagnoli, dst[done:])
	}
	return dst, crc, nil
}

// streamChunk is how many encoded bytes encodeRecords lets pile up before
// it hands them to a compression stream: the buffer they are encoded into
// is reused, so it stays in the cache (encoding a whole 1 MiB batch first
// and compressing it after wrote and read back a buffer that had left the
// cache in between).
const streamChunk = 32 << 10

// touchAhead is how many records encodeRecords reads ahead of their
// encoding.
const touchAhead = 32

// touchSink and touchNever keep encodeRecords' touches from being
// optimised away (no sum of bytes reaches touchNever).
const touchNever = 1 << 62

var touchSink atomic.Uint32

// batchOfOneLen is the size of r's batch of one.
func batchOfOneLen(r *Record) int {
	return batchHeaderLen + recordLen(r, 0, 0)
}
