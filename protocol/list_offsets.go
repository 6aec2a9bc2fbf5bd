package protocol

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// ErrBadListOffsets: ListOffsetsWith was called without a connection or
// topic; nothing was sent.
var ErrBadListOffsets = errors.New("protocol: bad list-offsets arguments")

// ListOffsetsOptions says what ListOffsetsWith asks.
type ListOffsetsOptions struct {
	Topic     string
	Partition int32
	// Timestamp is ListEarliest, ListLatest or a millisecond timestamp.
	Timestamp int64
	// CurrentLeaderEpoch is checked by the broker (ListOffsets v4+) as
	// for Fetch: FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH. -1 sends none.
	CurrentLeaderEpoch int32
}

// ListOffsetsWith is ListOffsets with a leader epoch. ListOffsets is served
// by the leader only (NOT_LEADER_OR_FOLLOWER elsewhere); a leader just
// elected whose high watermark has not reached its epoch's first offset
// answers OFFSET_NOT_AVAILABLE (retriable). Partition errors are *KafkaError
// naming the partition.
func ListOffsetsWith(ctx context.Context, c *Conn, o ListOffsetsOptions) (offset int64, leaderEpoch int32, err error) {
	switch {
	case c == nil:
		return -1, -1, fmt.Errorf("%w: nil connection", ErrBadListOffsets)
	case o.Topic == "":
		return -1, -1, fmt.Errorf("%w: empty topic", ErrBadListOffsets)
	}
	req := kmsg.NewPtrListOffsetsRequest()
	req.ReplicaID = -1
	req.IsolationLevel = 0
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = o.Topic
	rp := kmsg.NewListOffsetsRequestTopicPartition()
	rp.Partition = o.Partition
	rp.CurrentLeaderEpoch = max(o.CurrentLeaderEpoch, NoLeaderEpoch)
	rp.Timestamp = o.Timestamp
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	v, err := c.VersionFor(req.Key())
	if err != nil {
		return -1, -1, fmt.Errorf("%w: %w", ErrNotWritten, err)
	}
	if o.CurrentLeaderEpoch >= 0 && v < 4 {
		return -1, -1, fmt.Errorf("%w: %w: broker %s takes ListOffsets up to v%d, a leader epoch needs v4",
			ErrNotWritten, ErrUnsupportedVersion, c.Addr(), v)
	}
	req.SetVersion(v)
	raw, err := c.requestAt(ctx, req)
	if err != nil {
		return -1, -1, err
	}
	resp, ok := raw.(*kmsg.ListOffsetsResponse)
	if !ok {
		return -1, -1, fmt.Errorf("%w: list offsets answered with %T", ErrMalformedResponse, raw)
	}
	for _, t := range resp.Topics {
		if t.Topic != o.Topic {
			continue
		}
		for _, p := range t.Partitions {
			if p.Partition != o.Partition {
				continue
			}
			if err := PartitionError(p.ErrorCode, o.Topic, o.Partition, ""); err != nil {
				return -1, -1, err
			}
			le := int32(-1)
			if v >= 4 {
				le = p.LeaderEpoch
			}
			return p.Offset, le, nil
		}
	}
	return -1, -1, fmt.Errorf("%w: list offsets response has no %s[%d]", ErrMalformedResponse, o.Topic, o.Partition)
}
