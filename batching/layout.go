package batching

import (
	"encoding/binary"

	"github.com/rollsafe/rollsafe/internal/crcfold"
)

// RecordBatch v2 header layout (all big-endian).
const (
	offBaseOffset      = 0
	offLength          = 8
	offLeaderEpoch     = 12
	offMagic           = 16
	offCRC             = 17
	offAttributes      = 21 // the CRC covers everything from here on
	offLastOffsetDelta = 23
	offFirstTimestamp  = 27
	offMaxTimestamp    = 35
	offProducerID      = 43
	offProducerEpoch   = 51
	offBaseSequence    = 53
	offNumRecords      = 57
	batchHeaderLen     = 61

	// lengthFieldEnd is where the bytes counted by the length field start.
	lengthFieldEnd = offLeaderEpoch

	magicV2 = 2

	attrCodecMask     = 0x07
	attrTimestampType = 0x08
	attrTransactional = 0x10
	attrControl       = 0x20
)

// BatchOverhead is the size of a RecordBatch v2 header, counted in every
// size limit of this package.
const BatchOverhead = batchHeaderLen

var be = binary.BigEndian

// batchCRC computes the CRC32C a v2 batch header carries for b.
func batchCRC(b []byte) uint32 { return crcfold.Checksum(b[offAttributes:], crcfold.Castagnoli) }
