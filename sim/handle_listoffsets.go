package sim

import (
	"context"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Special ListOffsets timestamps.
const (
	tsLatest        = -1
	tsEarliest      = -2
	tsMax           = -3
	tsEarliestLocal = -4
)

func (b *broker) listOffsets(ctx context.Context, r *kmsg.ListOffsetsRequest) kmsg.Response {
	c := b.c
	resp := r.ResponseKind().(*kmsg.ListOffsetsResponse)
	type pending struct {
		ti, pi  int
		entries []*entry
		ts      int64
	}
	var searches []pending
	c.mu.Lock()
	for ti, rt := range r.Topics {
		resp.Topics = append(resp.Topics, kmsg.NewListOffsetsResponseTopic())
		ot := &resp.Topics[ti]
		ot.Topic = rt.Topic
		for _, rp := range rt.Partitions {
			op := kmsg.NewListOffsetsResponseTopicPartition()
			op.Partition = rp.Partition
			op.Timestamp, op.Offset = -1, -1
			cur := int32(-1)
			if r.Version >= 4 {
				cur = rp.CurrentLeaderEpoch
			}
			pt, code := b.leaderCheckLocked(rt.Topic, rp.Partition, cur)
			if code == errNone && r.Version >= 2 && pt.epochStart > pt.hw {
				// A leader just elected whose high watermark has not
				// reached its epoch's start offset (Kafka 2.3+, KIP-207).
				code = errOffsetNotAvailable
			}
			if !b.allowed(ctx, rt.Topic, OpDescribe) {
				code = errTopicAuthorization
			}
			op.ErrorCode = code
			if code == errNone {
				lead := pt.logs[pt.leader]
				// The last offset a read can reach: the high watermark,
				// or for read_committed (v2+) the last stable offset.
				upTo := pt.hw
				if r.IsolationLevel == 1 {
					upTo = lead.lastStable(pt.hw)
				}
				switch ts := rp.Timestamp; {
				case ts == tsLatest:
					op.Offset = upTo
					op.LeaderEpoch = epochBefore(lead, upTo, pt.epoch)
				case ts == tsEarliest || ts == tsEarliestLocal:
					op.Offset = lead.start
					op.LeaderEpoch = epochBefore(lead, lead.start+1, pt.epoch)
				case ts >= 0 || ts == tsMax:
					end := lead.find(upTo)
					searches = append(searches, pending{ti: ti, pi: len(ot.Partitions), ts: ts, entries: append([]*entry(nil), lead.entries[:end]...)})
				default:
					op.ErrorCode = errInvalidRequest
				}
			}
			ot.Partitions = append(ot.Partitions, op)
		}
	}
	c.mu.Unlock()
	// Timestamp searches decode records, so they run without the lock.
	for _, s := range searches {
		op := &resp.Topics[s.ti].Partitions[s.pi]
		op.Offset, op.Timestamp, op.LeaderEpoch = searchTimestamp(s.entries, s.ts, c.cfg.maxDecompressed)
	}
	return resp
}

// epochBefore is the leader epoch of the batch holding offset-1, or current
// for an empty log.
func epochBefore(r *replica, offset int64, current int32) int32 {
	if i := r.find(offset - 1); i < len(r.entries) {
		return r.entries[i].leaderEpoch
	}
	if n := len(r.entries); n > 0 {
		return r.entries[n-1].leaderEpoch
	}
	return current
}

// searchTimestamp finds the first record with a timestamp >= ts, or for
// tsMax the record with the largest timestamp (the first of equals).
func searchTimestamp(entries []*entry, ts int64, limit int) (offset, timestamp int64, epoch int32) {
	offset, timestamp, epoch = -1, -1, -1
	for _, e := range entries {
		if ts >= 0 && e.h.maxTimestamp < ts {
			continue
		}
		if ts == tsMax && e.h.maxTimestamp <= timestamp {
			continue
		}
		b, err := decodeEntry(e, limit)
		if err != nil {
			continue
		}
		for _, rec := range b.Records {
			if ts >= 0 && rec.Timestamp >= ts {
				return rec.Offset, rec.Timestamp, e.leaderEpoch
			}
			if ts == tsMax && rec.Timestamp > timestamp {
				offset, timestamp, epoch = rec.Offset, rec.Timestamp, e.leaderEpoch
			}
		}
	}
	return offset, timestamp, epoch
}
