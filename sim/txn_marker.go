package sim

import (
	"encoding/binary"
	"hash/crc32"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// markerType is a transaction marker's control type (Kafka's
// ControlRecordType), in the key of the control batch's one record.
type markerType int8

const (
	markerNone   markerType = -1
	markerAbort  markerType = 0
	markerCommit markerType = 1
)

// markerBatch encodes the control batch a coordinator writes to end a
// transaction on a partition, as Kafka's
// MemoryRecords.withEndTransactionMarker does: transactional and control
// attributes, the producer's id and epoch, no sequence, one record whose
// key is the marker's version (0) and type and whose value is its version
// (0) and the coordinator epoch, stamped now. The base offset and leader
// epoch are newEntry's to fill.
func markerBatch(pid int64, epoch int16, t markerType, coordEpoch int32, now time.Time) (batchHeader, []byte) {
	key := binary.BigEndian.AppendUint16(nil, 0)
	key = binary.BigEndian.AppendUint16(key, uint16(t))
	val := binary.BigEndian.AppendUint16(nil, 0)
	val = binary.BigEndian.AppendUint32(val, uint32(coordEpoch))
	rec := kmsg.Record{Key: key, Value: val}
	body := rec.AppendTo(nil)[1:] // drop the placeholder length
	recs := binary.AppendVarint(nil, int64(len(body)))
	recs = append(recs, body...)
	ms := now.UnixMilli()
	attrs := int16(attrTransactional | attrControl)
	b := kmsg.RecordBatch{
		Length: int32(49 + len(recs)), PartitionLeaderEpoch: -1, Magic: 2, Attributes: attrs,
		FirstTimestamp: ms, MaxTimestamp: ms, ProducerID: pid, ProducerEpoch: epoch,
		FirstSequence: -1, NumRecords: 1, Records: recs,
	}
	raw := b.AppendTo(nil)
	binary.BigEndian.PutUint32(raw[17:], crc32.Checksum(raw[21:], castagnoli))
	h := batchHeader{
		firstTimestamp: ms, maxTimestamp: ms, producerID: pid, producerEpoch: epoch,
		baseSequence: -1, numRecords: 1, attributes: attrs, marker: t, coordEpoch: coordEpoch,
	}
	return h, raw
}
