package protocol

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// ListOffsets timestamps.
const (
	// ListEarliest asks for the log start offset.
	ListEarliest int64 = -2
	// ListLatest asks for the high watermark (read_uncommitted).
	ListLatest int64 = -1
)

// FetchPartition reads raw record batches of one partition from offset, at
// most maxBytes (the broker still returns at least one whole batch). It does
// not wait for data: an empty result means nothing at offset yet. Partition
// errors come back as *KafkaError naming the partition; the high watermark
// and log start offset are returned with them when the broker sent them
// (log start offset is -1 before Fetch v5).
//
// Fetch is capped at v12 here because v13+ addresses topics by id.
func FetchPartition(ctx context.Context, c *Conn, topic string, partition int32, offset int64, maxBytes int32) (records []byte, highWatermark, logStartOffset int64, err error) {
	req := kmsg.NewPtrFetchRequest()
	req.ReplicaID = -1
	req.MaxWaitMillis = 0
	req.MinBytes = 1
	req.MaxBytes = maxBytes
	req.IsolationLevel = 0
	req.SessionID = 0
	req.SessionEpoch = -1 // no fetch session
	rt := kmsg.NewFetchRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewFetchRequestTopicPartition()
	rp.Partition = partition
	rp.CurrentLeaderEpoch = -1
	rp.FetchOffset = offset
	rp.LogStartOffset = -1
	rp.PartitionMaxBytes = maxBytes
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)

	v, err := c.VersionFor(req.Key())
	if err != nil {
		return nil, -1, -1, fmt.Errorf("%w: %w", ErrNotWritten, err)
	}
	if v > 12 {
		v = 12
	}
	req.SetVersion(v)
	raw, err := c.requestAt(ctx, req)
	if err != nil {
		return nil, -1, -1, err
	}
	resp := raw.(*kmsg.FetchResponse)
	if err := ErrorForCode(resp.ErrorCode); err != nil {
		return nil, -1, -1, fmt.Errorf("protocol: fetch %s[%d]: %w", topic, partition, err)
	}
	for _, t := range resp.Topics {
		if t.Topic != topic {
			continue
		}
		for _, p := range t.Partitions {
			if p.Partition != partition {
				continue
			}
			lso := int64(-1)
			if v >= 5 {
				lso = p.LogStartOffset
			}
			return p.RecordBatches, p.HighWatermark, lso, PartitionError(p.ErrorCode, topic, partition, "")
		}
	}
	return nil, -1, -1, fmt.Errorf("%w: fetch response has no %s[%d]", ErrMalformedResponse, topic, partition)
}

// ListOffsets returns the offset for timestamp (ListEarliest, ListLatest or
// a millisecond timestamp) of one partition, with the leader epoch the
// broker reports (-1 before ListOffsets v4).
func ListOffsets(ctx context.Context, c *Conn, topic string, partition int32, timestamp int64) (offset int64, leaderEpoch int32, err error) {
	req := kmsg.NewPtrListOffsetsRequest()
	req.ReplicaID = -1
	req.IsolationLevel = 0
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewListOffsetsRequestTopicPartition()
	rp.Partition = partition
	rp.CurrentLeaderEpoch = -1
	rp.Timestamp = timestamp
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	raw, err := c.Request(ctx, req)
	if err != nil {
		return -1, -1, err
	}
	resp := raw.(*kmsg.ListOffsetsResponse)
	for _, t := range resp.Topics {
		if t.Topic != topic {
			continue
		}
		for _, p := range t.Partitions {
			if p.Partition != partition {
				continue
			}
			if err := PartitionError(p.ErrorCode, topic, partition, ""); err != nil {
				return -1, -1, err
			}
			return p.Offset, p.LeaderEpoch, nil
		}
	}
	return -1, -1, fmt.Errorf("%w: list offsets response has no %s[%d]", ErrMalformedResponse, topic, partition)
}
