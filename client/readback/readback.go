// Package readback reads Kafka partitions back over the wire and checks a
// producer's reports against the log: every acknowledged record present
// exactly once, at the offset reported, in the order produced; every record
// reported not written absent. It trusts only the log.
//
// See docs/testing.md (every claim is checked by reading the log back) in the
// repository.
package readback

import (
	"context"
	"fmt"

	"github.com/rollsafe/rollsafe/batching"
	"github.com/rollsafe/rollsafe/protocol"
)

// Record is one record found in a partition's log.
type Record struct {
	Partition    int32
	Offset       int64
	Key, Value   []byte
	Headers      []batching.Header
	ProducerID   int64
	Epoch        int16
	BaseSequence int32 // of the record's batch
}

// maxFetchBytes bounds one fetch.
const maxFetchBytes = 16 << 20

// ReadTopic returns every record of every partition of topic, from each
// partition's log start to its high watermark.
func ReadTopic(ctx context.Context, brokers []string, topic string) (map[int32][]Record, error) {
	return ReadTopicConn(ctx, brokers, topic, protocol.ConnConfig{})
}

// ReadTopicConn is ReadTopic over connections configured by cc (TLS, SASL).
func ReadTopicConn(ctx context.Context, brokers []string, topic string, cc protocol.ConnConfig) (map[int32][]Record, error) {
	out := map[int32][]Record{}
	err := ScanConn(ctx, brokers, topic, cc, func(r Record) error {
		out[r.Partition] = append(out[r.Partition], r)
		return nil
	})
	return out, err
}

// Scan calls fn for every record of every partition of topic, partition by
// partition in offset order, from the log start to the high watermark,
// without keeping them: for logs too large to hold. The Record's byte
// slices are valid only during the call. An error from fn stops the scan.
func Scan(ctx context.Context, brokers []string, topic string, fn func(Record) error) error {
	return ScanConn(ctx, brokers, topic, protocol.ConnConfig{}, fn)
}

// ScanConn is Scan over connections configured by cc (TLS, SASL).
func ScanConn(ctx context.Context, brokers []string, topic string, cc protocol.ConnConfig, fn func(Record) error) error {
	meta := protocol.NewMetadata(brokers, protocol.MetadataConfig{Conn: cc})
	defer meta.Close()
	pool := protocol.NewPool(meta, protocol.PoolConfig{Conn: cc})
	defer pool.Close()
	if err := meta.Refresh(ctx, topic); err != nil {
		return err
	}
	n, err := meta.Partitions(topic)
	if err != nil {
		return err
	}
	for p := int32(0); p < n; p++ {
		if err := scanPartition(ctx, meta, pool, topic, p, fn); err != nil {
			return fmt.Errorf("readback: %s[%d]: %w", topic, p, err)
		}
	}
	return nil
}

func scanPartition(ctx context.Context, meta *protocol.Metadata, pool *protocol.Pool, topic string, part int32, fn func(Record) error) error {
	leader, _, err := meta.Leader(topic, part)
	if err != nil {
		return err
	}
	conn, err := pool.Conn(ctx, leader)
	if err != nil {
		return err
	}
	offset, _, err := protocol.ListOffsets(ctx, conn, topic, part, protocol.ListEarliest)
	if err != nil {
		return err
	}
	for {
		raw, hw, _, err := protocol.FetchPartition(ctx, conn, topic, part, offset, maxFetchBytes)
		if err != nil {
			return err
		}
		if offset >= hw {
			return nil
		}
		batches, err := batching.DecodeBatches(raw, 256<<20)
		if err != nil {
			return err
		}
		progressed := false
		for _, b := range batches {
			for _, r := range b.Records {
				if r.Offset < offset {
					continue
				}
				if err := fn(Record{
					Partition: part, Offset: r.Offset, Key: r.Key, Value: r.Value, Headers: r.Headers,
					ProducerID: b.Header.ProducerID, Epoch: b.Header.ProducerEpoch, BaseSequence: b.Header.BaseSequence,
				}); err != nil {
					return err
				}
			}
			if next := b.Header.BaseOffset + int64(b.Header.LastOffsetDelta) + 1; next > offset {
				offset, progressed = next, true
			}
		}
		if !progressed {
			return fmt.Errorf("no progress at offset %d below high watermark %d", offset, hw)
		}
	}
}
