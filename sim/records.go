package sim

import (
	"encoding/binary"
	"fmt"

	"github.com/rollsafe/rollsafe/compress"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Batch is one record batch of a replica's log, decoded for assertions.
type Batch struct {
	BaseOffset    int64
	LeaderEpoch   int32
	ProducerID    int64
	ProducerEpoch int16
	BaseSequence  int32
	Codec         compress.Codec
	// Transactional: the batch belongs to a transaction. Control: it is
	// a transaction marker (ControlType says which), its one record's key
	// and value the marker's.
	Transactional, Control bool
	ControlType            int16 // 0 abort, 1 commit; -1 for other batches
	// LastOffsetDelta is the batch's last offset minus its base: one less
	// than its record count, except in a batch compaction thinned out.
	LastOffsetDelta int32
	Records         []Record
	Raw             []byte // the stored bytes, as Fetch returns them
}

// LastOffset is the last offset the batch covers (its last record's, or
// for a batch compaction thinned out, that of the last record it had).
func (b *Batch) LastOffset() int64 { return b.BaseOffset + int64(b.LastOffsetDelta) }

// Record is one record of a Batch.
type Record struct {
	Offset    int64
	Timestamp int64
	Key       []byte
	Value     []byte
	Headers   []kmsg.Header
}

// Records returns the partition leader's whole log, decoded.
func (c *Cluster) Records(topic string, p int32) ([]Batch, error) {
	c.mu.Lock()
	pt, err := c.partitionLocked(topic, p)
	if err != nil {
		c.mu.Unlock()
		return nil, err
	}
	id := pt.leader
	if id < 0 {
		c.mu.Unlock()
		return nil, fmt.Errorf("%w: %s/%d has no leader", ErrBrokerDown, topic, p)
	}
	entries := append([]*entry(nil), pt.logs[id].entries...)
	c.mu.Unlock()
	return decodeEntries(entries, c.cfg.maxDecompressed)
}

// ReplicaRecords returns broker's replica of the partition, decoded, and
// its log end offset.
func (c *Cluster) ReplicaRecords(topic string, p int32, broker int32) ([]Batch, error) {
	c.mu.Lock()
	pt, err := c.partitionLocked(topic, p)
	if err != nil {
		c.mu.Unlock()
		return nil, err
	}
	r := pt.logs[broker]
	if r == nil {
		c.mu.Unlock()
		return nil, fmt.Errorf("%w: broker %d, %s/%d", ErrNotReplica, broker, topic, p)
	}
	entries := append([]*entry(nil), r.entries...)
	c.mu.Unlock()
	return decodeEntries(entries, c.cfg.maxDecompressed)
}

func decodeEntries(entries []*entry, limit int) ([]Batch, error) {
	out := make([]Batch, 0, len(entries))
	for _, e := range entries {
		b, err := decodeEntry(e, limit)
		if err != nil {
			return out, err
		}
		out = append(out, b)
	}
	return out, nil
}

// decodeEntry decodes a stored batch (already validated on produce).
func decodeEntry(e *entry, limit int) (Batch, error) {
	var rb kmsg.RecordBatch
	if err := rb.ReadFrom(e.raw); err != nil {
		return Batch{}, fmt.Errorf("sim: stored batch at %d: %w", e.base, err)
	}
	b := Batch{
		BaseOffset: e.base, LeaderEpoch: e.leaderEpoch, ProducerID: e.h.producerID,
		ProducerEpoch: e.h.producerEpoch, BaseSequence: e.h.baseSequence,
		Codec: compress.Codec(rb.Attributes & 0x07), LastOffsetDelta: rb.LastOffsetDelta, Raw: e.raw,
		Transactional: rb.Attributes&attrTransactional != 0, Control: rb.Attributes&attrControl != 0, ControlType: -1,
	}
	recs := rb.Records
	if b.Codec != compress.None {
		var err error
		if recs, err = compress.Decompress(nil, rb.Records, b.Codec, limit); err != nil {
			return b, fmt.Errorf("sim: stored batch at %d: %w", e.base, err)
		}
	}
	_, err := eachRecord(recs, rb.NumRecords, func(i int32, r *kmsg.Record) error {
		if b.Control && len(r.Key) >= 4 {
			b.ControlType = int16(binary.BigEndian.Uint16(r.Key[2:]))
		}
		b.Records = append(b.Records, Record{
			Offset: e.base + int64(r.OffsetDelta), Timestamp: rb.FirstTimestamp + r.TimestampDelta64,
			Key: r.Key, Value: r.Value, Headers: append([]kmsg.Header(nil), r.Headers...),
		})
		return nil
	})
	return b, err
}
