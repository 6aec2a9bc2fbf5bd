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
	"errors"
	"fmt"
	"net"
	"time"

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
	// Transactional and Control are the batch's attribute bits: a record
	// written in a transaction, and a transaction marker (a control
	// record: Committed reads it).
	Transactional, Control bool
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

// retryWait is how long a scan waits before it asks for the leader again
// after the broker it read from stopped leading (or answering).
const retryWait = 100 * time.Millisecond

// scanPartition reads part from its log start to the high watermark. When
// the broker it reads from turns out not to lead the partition (a
// metadata answer older than a leader change, a broker stopping) it asks
// the metadata again and goes on from the offset it reached on the
// partition's leader, as Kafka's consumer does, until ctx ends.
func scanPartition(ctx context.Context, meta *protocol.Metadata, pool *protocol.Pool, topic string, part int32, fn func(Record) error) error {
	offset := int64(-1) // not known yet: the log start
	for {
		err := scanFrom(ctx, meta, pool, topic, part, &offset, fn)
		if err == nil || !leaderGone(err) {
			return err
		}
		t := time.NewTimer(retryWait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w (after %w)", ctx.Err(), err)
		case <-t.C:
		}
		if rerr := meta.Refresh(ctx, topic); rerr != nil && ctx.Err() != nil {
			return fmt.Errorf("%w (after %w)", rerr, err)
		}
	}
}

// leaderGone reports an error after which another broker (or the same one,
// later) may serve the partition: a retriable Kafka error (not the leader,
// a leader epoch not known yet, no leader), or the connection lost.
func leaderGone(err error) bool {
	var ne net.Error
	return protocol.IsRetriable(err) || errors.Is(err, protocol.ErrLeaderNotAvailable) ||
		errors.Is(err, protocol.ErrNoBroker) || errors.Is(err, protocol.ErrConnLostAfterWrite) ||
		errors.Is(err, protocol.ErrResponseTimeout) || errors.As(err, &ne)
}

// scanFrom reads part from *offset (from the log start when it is -1),
// keeping *offset at the next record to read.
func scanFrom(ctx context.Context, meta *protocol.Metadata, pool *protocol.Pool, topic string, part int32, offset *int64, fn func(Record) error) error {
	leader, _, err := meta.Leader(topic, part)
	if err != nil {
		return err
	}
	conn, err := pool.Conn(ctx, leader)
	if err != nil {
		return err
	}
	if *offset < 0 {
		start, _, err := protocol.ListOffsets(ctx, conn, topic, part, protocol.ListEarliest)
		if err != nil {
			return err
		}
		*offset = start
	}
	for {
		at := *offset
		raw, hw, _, err := protocol.FetchPartition(ctx, conn, topic, part, at, maxFetchBytes)
		if err != nil {
			return err
		}
		if at >= hw {
			return nil
		}
		batches, err := batching.DecodeBatches(raw, 256<<20)
		if err != nil {
			return err
		}
		progressed := false
		for _, b := range batches {
			for _, r := range b.Records {
				if r.Offset < at {
					continue
				}
				if err := fn(Record{
					Partition: part, Offset: r.Offset, Key: r.Key, Value: r.Value, Headers: r.Headers,
					ProducerID: b.Header.ProducerID, Epoch: b.Header.ProducerEpoch, BaseSequence: b.Header.BaseSequence,
					Transactional: b.Header.Transactional(), Control: b.Header.Control(),
				}); err != nil {
					return err
				}
			}
			if next := b.Header.BaseOffset + int64(b.Header.LastOffsetDelta) + 1; next > at {
				at, progressed = next, true
			}
		}
		if !progressed {
			return fmt.Errorf("no progress at offset %d below high watermark %d", at, hw)
		}
		*offset = at
	}
}
