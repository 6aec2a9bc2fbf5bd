package protocol

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// fetchMaxVersion is the highest Fetch version sent: v13+ addresses topics
// by id. fetchLeaderOnlyVersion is the highest version without KIP-392
// client metadata: Kafka serves such a consumer fetch only on the leader.
const (
	fetchMaxVersion        = 12
	fetchLeaderOnlyVersion = 10
)

// ErrBadFetch: Fetch was called without a connection, topic or valid
// offset; nothing was sent.
var ErrBadFetch = errors.New("protocol: bad fetch arguments")

// FetchOptions says what Fetch reads.
type FetchOptions struct {
	Topic     string
	Partition int32
	// Offset is the first offset wanted (>= 0).
	Offset int64
	// MaxBytes bounds the response; the broker still returns at least one
	// whole batch (KIP-74). <= 0 means 1 MiB.
	MaxBytes int32
	// CurrentLeaderEpoch is the leader epoch the caller believes current
	// (from metadata), checked by the broker (Fetch v9+): an older one
	// than the broker knows gets FENCED_LEADER_EPOCH, a newer one
	// UNKNOWN_LEADER_EPOCH. -1 sends none and nothing is checked. Use
	// NoLeaderEpoch for clarity.
	CurrentLeaderEpoch int32
	// LeaderOnly sends Fetch at most v10, without KIP-392 client metadata,
	// which Kafka serves only on the partition leader: a follower answers
	// NOT_LEADER_OR_FOLLOWER. Without it (v11+), a follower or a deposed
	// leader that has a replica answers from its own log up to its own
	// high watermark, which may trail the leader's; the epoch check above
	// still applies.
	LeaderOnly bool
}

// NoLeaderEpoch is the CurrentLeaderEpoch that asks the broker not to check.
const NoLeaderEpoch int32 = -1

// FetchResult is one partition's answer to Fetch.
type FetchResult struct {
	// Records holds whole record batches as stored, from the batch
	// containing Offset, at most up to HighWatermark.
	Records []byte
	// HighWatermark is the answering replica's high watermark; on a
	// follower, or a leader just elected, it can trail what is committed.
	HighWatermark int64
	// LastStableOffset is -1 before Fetch v4; LogStartOffset before v5.
	LastStableOffset int64
	LogStartOffset   int64
	// LeaderID and LeaderEpoch are the broker's hint of the current
	// leader (KIP-951, Fetch v12+) that comes with NOT_LEADER_OR_FOLLOWER
	// or FENCED_LEADER_EPOCH; -1 when not sent.
	LeaderID, LeaderEpoch int32
	// Version is the Fetch version used.
	Version int16
}

// Fetch reads raw record batches of one partition without waiting for
// data (an empty result means nothing at the offset yet, up to the high
// watermark). A partition error comes back as a *KafkaError naming the
// partition, with the result's offsets and leader hint filled as far as the
// broker sent them; errors.Is matches ErrFencedLeaderEpoch,
// ErrUnknownLeaderEpoch, ErrNotLeaderOrFollower, ErrOffsetNotAvailable,
// ErrOffsetOutOfRange and the other codes. Fetch never writes anything, so
// no error of it says anything about a produced record.
func Fetch(ctx context.Context, c *Conn, o FetchOptions) (FetchResult, error) {
	res := FetchResult{HighWatermark: -1, LastStableOffset: -1, LogStartOffset: -1, LeaderID: -1, LeaderEpoch: -1}
	switch {
	case c == nil:
		return res, fmt.Errorf("%w: nil connection", ErrBadFetch)
	case o.Topic == "":
		return res, fmt.Errorf("%w: empty topic", ErrBadFetch)
	case o.Offset < 0:
		return res, fmt.Errorf("%w: offset %d", ErrBadFetch, o.Offset)
	}
	maxBytes := o.MaxBytes
	if maxBytes <= 0 {
		maxBytes = 1 << 20
	}
	req := kmsg.NewPtrFetchRequest()
	req.ReplicaID = -1
	req.MaxWaitMillis = 0
	req.MinBytes = 1
	req.MaxBytes = maxBytes
	req.IsolationLevel = 0
	req.SessionID = 0
	req.SessionEpoch = -1 // no fetch session
	rt := kmsg.NewFetchRequestTopic()
	rt.Topic = o.Topic
	rp := kmsg.NewFetchRequestTopicPartition()
	rp.Partition = o.Partition
	rp.CurrentLeaderEpoch = o.CurrentLeaderEpoch
	if rp.CurrentLeaderEpoch < 0 {
		rp.CurrentLeaderEpoch = NoLeaderEpoch
	}
	rp.FetchOffset = o.Offset
	rp.LogStartOffset = -1
	rp.PartitionMaxBytes = maxBytes
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)

	v, err := c.VersionFor(req.Key())
	if err != nil {
		return res, fmt.Errorf("%w: %w", ErrNotWritten, err)
	}
	limit := int16(fetchMaxVersion)
	if o.LeaderOnly {
		limit = fetchLeaderOnlyVersion
	}
	if v > limit {
		v = limit
	}
	if o.LeaderOnly {
		if br, _ := c.Versions().Broker(req.Key()); br.Min > v {
			return res, fmt.Errorf("%w: %w: broker %s takes Fetch v%d-v%d, a leader-only fetch needs v%d or lower",
				ErrNotWritten, ErrUnsupportedVersion, c.Addr(), br.Min, br.Max, fetchLeaderOnlyVersion)
		}
	}
	if o.CurrentLeaderEpoch >= 0 && v < 9 {
		return res, fmt.Errorf("%w: %w: broker %s takes Fetch up to v%d, a leader epoch needs v9",
			ErrNotWritten, ErrUnsupportedVersion, c.Addr(), v)
	}
	req.SetVersion(v)
	res.Version = v
	raw, err := c.requestAt(ctx, req)
	if err != nil {
		return res, err
	}
	resp, ok := raw.(*kmsg.FetchResponse)
	if !ok {
		return res, fmt.Errorf("%w: fetch answered with %T", ErrMalformedResponse, raw)
	}
	if err := ErrorForCode(resp.ErrorCode); err != nil {
		return res, fmt.Errorf("protocol: fetch %s[%d]: %w", o.Topic, o.Partition, err)
	}
	for _, t := range resp.Topics {
		if t.Topic != o.Topic {
			continue
		}
		for _, p := range t.Partitions {
			if p.Partition != o.Partition {
				continue
			}
			res.Records, res.HighWatermark = p.RecordBatches, p.HighWatermark
			if v >= 4 {
				res.LastStableOffset = p.LastStableOffset
			}
			if v >= 5 {
				res.LogStartOffset = p.LogStartOffset
			}
			if v >= 12 && p.CurrentLeader.LeaderID >= 0 {
				res.LeaderID, res.LeaderEpoch = p.CurrentLeader.LeaderID, p.CurrentLeader.LeaderEpoch
			}
			return res, PartitionError(p.ErrorCode, o.Topic, o.Partition, "")
		}
	}
	return res, fmt.Errorf("%w: fetch response has no %s[%d]", ErrMalformedResponse, o.Topic, o.Partition)
}
