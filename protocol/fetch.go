package protocol

import (
	"context"
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
// It sends no leader epoch and KIP-392 client metadata (Fetch v11+), so a
// follower may answer from its own high watermark; Fetch with FetchOptions
// checks the leader epoch and can insist on the leader.
func FetchPartition(ctx context.Context, c *Conn, topic string, partition int32, offset int64, maxBytes int32) (records []byte, highWatermark, logStartOffset int64, err error) {
	if maxBytes <= 0 {
		maxBytes = 1 << 20
	}
	r, err := Fetch(ctx, c, FetchOptions{Topic: topic, Partition: partition, Offset: offset, MaxBytes: maxBytes, CurrentLeaderEpoch: NoLeaderEpoch})
	return r.Records, r.HighWatermark, r.LogStartOffset, err
}

// ListOffsets returns the offset for timestamp (ListEarliest, ListLatest or
// a millisecond timestamp) of one partition, with the leader epoch the
// broker reports (-1 before ListOffsets v4). It sends no leader epoch;
// ListOffsetsWith can.
func ListOffsets(ctx context.Context, c *Conn, topic string, partition int32, timestamp int64) (offset int64, leaderEpoch int32, err error) {
	return ListOffsetsWith(ctx, c, ListOffsetsOptions{Topic: topic, Partition: partition, Timestamp: timestamp, CurrentLeaderEpoch: NoLeaderEpoch})
}
