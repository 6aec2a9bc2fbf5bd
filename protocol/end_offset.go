package protocol

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// ErrBadEndOffset: EndOffset was called without a connection, topic or
// leader epoch; nothing was sent.
var ErrBadEndOffset = errors.New("protocol: bad end-offset arguments")

// EndOffset asks the leader of topic[partition] for its log end offset in
// leaderEpoch, its current epoch (OffsetForLeaderEpoch v3+ as a consumer,
// KIP-320; DESCRIBE on the topic is enough). Unlike ListOffsets and Fetch,
// which stop at the high watermark, the answer counts every batch the
// leader has appended, committed or not (Kafka's
// Partition.lastOffsetForLeaderEpoch answers the log end for the latest
// epoch): a read that reaches it has seen all the leader holds. A broker
// that is not the leader of leaderEpoch answers NOT_LEADER_OR_FOLLOWER,
// FENCED_LEADER_EPOCH or UNKNOWN_LEADER_EPOCH; partition errors are
// *KafkaError naming the partition. Brokers before Kafka 2.3 (v3) get
// ErrUnsupportedVersion.
func EndOffset(ctx context.Context, c *Conn, topic string, partition int32, leaderEpoch int32) (int64, error) {
	switch {
	case c == nil:
		return -1, fmt.Errorf("%w: nil connection", ErrBadEndOffset)
	case topic == "":
		return -1, fmt.Errorf("%w: empty topic", ErrBadEndOffset)
	case leaderEpoch < 0:
		return -1, fmt.Errorf("%w: no leader epoch", ErrBadEndOffset)
	}
	req := kmsg.NewPtrOffsetForLeaderEpochRequest()
	req.ReplicaID = -1
	rt := kmsg.NewOffsetForLeaderEpochRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewOffsetForLeaderEpochRequestTopicPartition()
	rp.Partition = partition
	rp.CurrentLeaderEpoch = leaderEpoch
	rp.LeaderEpoch = leaderEpoch
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	v, err := c.VersionFor(req.Key())
	if err != nil {
		return -1, err
	}
	if v < 3 {
		return -1, fmt.Errorf("%w: broker %s takes OffsetForLeaderEpoch up to v%d, a consumer's request needs v3",
			ErrUnsupportedVersion, c.Addr(), v)
	}
	req.SetVersion(v)
	raw, err := c.requestAt(ctx, req)
	if err != nil {
		return -1, err
	}
	resp, ok := raw.(*kmsg.OffsetForLeaderEpochResponse)
	if !ok {
		return -1, fmt.Errorf("%w: offset for leader epoch answered with %T", ErrMalformedResponse, raw)
	}
	for _, t := range resp.Topics {
		if t.Topic != topic {
			continue
		}
		for _, p := range t.Partitions {
			if p.Partition != partition {
				continue
			}
			if err := PartitionError(p.ErrorCode, topic, partition, ""); err != nil {
				return -1, err
			}
			if p.LeaderEpoch != leaderEpoch || p.EndOffset < 0 {
				return -1, fmt.Errorf("%w: %s[%d]: epoch %d ends at %d in epoch %d, not the current epoch",
					ErrMalformedResponse, topic, partition, leaderEpoch, p.EndOffset, p.LeaderEpoch)
			}
			return p.EndOffset, nil
		}
	}
	return -1, fmt.Errorf("%w: offset for leader epoch response has no %s[%d]", ErrMalformedResponse, topic, partition)
}
