package sim

import "encoding/binary"

// Where Kafka's batch iteration (ByteBufferLogInputStream) reads a batch's
// size and magic.
const (
	logOverhead      = 12 // base offset and size
	minRecordSize    = 14 // the smallest size a batch of any magic may declare
	headerUpToMagic  = 17
	offsetOfBatchLen = 8
	offsetOfMagic    = 16

	offsetOfAttributes = 21     // of a magic-2 batch
	attrTransactional  = 0x0010 // its transactional flag
	attrControl        = 0x0020 // its control flag
)

// firstBatch splits a produced partition's records as Kafka's produce
// validation walks them (ByteBufferLogInputStream, then
// ProduceRequest.validateRecords) and returns the first batch.
//
// A batch is complete when all its declared size is there; bytes too few
// for a complete batch end the walk and are dropped (Kafka trims them from
// what it appends). Where a batch begins, a declared size below 14 or a
// magic beyond 2 is CORRUPT_MESSAGE; no complete batch, or a second one,
// is INVALID_RECORD.
func firstBatch(raw []byte) ([]byte, error) {
	var first []byte
	for rest := raw; len(rest) >= logOverhead; {
		size := int32(binary.BigEndian.Uint32(rest[offsetOfBatchLen:]))
		if size < minRecordSize {
			return nil, batchErr(errCorruptMessage, "record size %d is less than the minimum record overhead (%d)", size, minRecordSize)
		}
		if len(rest) < headerUpToMagic {
			break
		}
		if m := int8(rest[offsetOfMagic]); m < 0 || m > 2 {
			return nil, batchErr(errCorruptMessage, "invalid magic found in record: %d", m)
		}
		total := int64(size) + logOverhead
		if int64(len(rest)) < total {
			break
		}
		if first != nil {
			return nil, batchErr(errInvalidRecord, "produce requests v3+ carry exactly one record batch per partition")
		}
		first, rest = rest[:total], rest[total:]
	}
	if first == nil {
		return nil, batchErr(errInvalidRecord, "produce requests v3+ must have at least one record batch per partition")
	}
	return first, nil
}
