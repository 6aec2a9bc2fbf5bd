package sim

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// maxFetchWait bounds how long a fetch is held, whatever it asks.
const maxFetchWait = 30 * time.Second

// fetch serves a replica's log up to its high watermark, whole batches as
// stored, holding the request until MinBytes are available, MaxWaitMillis
// pass or a partition has an error. No fetch sessions are created.
//
// With isolation level read_committed (1), it serves up to the replica's
// last stable offset instead, and lists the aborted transactions among
// what it returns, as Kafka does; every answer carries the last stable
// offset.
//
// As in Kafka, a consumer fetch v11+ (which carries KIP-392 client
// metadata) is served by any replica, a follower or a deposed leader
// answering from its own log up to its own high watermark, which trails the
// leader's; older versions are served by the leader only. The leader never
// redirects to a preferred read replica (no replica.selector.class).
func (b *broker) fetch(ctx context.Context, r *kmsg.FetchRequest) kmsg.Response {
	c := b.c
	wait := min(time.Duration(max(r.MaxWaitMillis, 0))*time.Millisecond, maxFetchWait)
	deadline := time.Now().Add(wait)
	for {
		c.mu.Lock()
		resp, n, failed := b.fetchLocked(ctx, r)
		ch := c.changed
		c.mu.Unlock()
		if failed || n >= int(r.MinBytes) || !waitChange(ctx, ch, deadline) {
			return resp
		}
	}
}

func (b *broker) fetchLocked(ctx context.Context, r *kmsg.FetchRequest) (resp *kmsg.FetchResponse, bytes int, failed bool) {
	c := b.c
	resp = r.ResponseKind().(*kmsg.FetchResponse)
	budget := int(r.MaxBytes)
	if r.Version < 3 || budget <= 0 {
		budget = 1 << 30
	}
	for _, rt := range r.Topics {
		ft := kmsg.NewFetchResponseTopic()
		ft.Topic = rt.Topic
		for _, rp := range rt.Partitions {
			fp := kmsg.NewFetchResponseTopicPartition()
			fp.Partition = rp.Partition
			fp.HighWatermark, fp.LastStableOffset, fp.LogStartOffset = -1, -1, -1
			fp.PreferredReadReplica = -1
			cur := int32(-1)
			if r.Version >= 9 {
				cur = rp.CurrentLeaderEpoch
			}
			leaderOnly := r.Version < 11 || r.ReplicaID >= 0 || c.cfg.sink
			pt, code := b.replicaCheckLocked(rt.Topic, rp.Partition, cur, leaderOnly)
			if !b.allowed(ctx, rt.Topic, OpRead) {
				pt, code = nil, errTopicAuthorization
			}
			if code == errNone {
				rep := pt.logs[b.id]
				hw := rep.hw
				if pt.leader == b.id {
					hw = pt.hw
				}
				lso := rep.lastStable(hw)
				// read_committed (v4+) reads up to the last stable offset.
				committed := r.IsolationLevel == 1
				upTo := hw
				if committed {
					upTo = lso
				}
				fp.HighWatermark, fp.LastStableOffset, fp.LogStartOffset = hw, lso, rep.start
				if c.cfg.sink {
					fp.HighWatermark, fp.LastStableOffset = c.sinkLEOs[tp{rt.Topic, rp.Partition}], c.sinkLEOs[tp{rt.Topic, rp.Partition}]
				} else if rp.FetchOffset < rep.start || rp.FetchOffset > rep.leo {
					code = errOffsetOutOfRange
				} else {
					limit := min(int(rp.PartitionMaxBytes), budget)
					end := rp.FetchOffset // the end of the last batch returned
					for i := rep.find(rp.FetchOffset); i < len(rep.entries); i++ {
						e := rep.entries[i]
						if e.end() > upTo {
							break
						}
						// KIP-74: the first batch goes out even if larger
						// than the limits, so consumers always progress.
						if len(e.raw) > limit && (len(fp.RecordBatches) > 0 || bytes > 0) {
							break
						}
						fp.RecordBatches = append(fp.RecordBatches, e.raw...)
						limit -= len(e.raw)
						budget -= len(e.raw)
						bytes += len(e.raw)
						end = e.end()
					}
					if committed {
						fp.AbortedTransactions = rep.abortedIn(rp.FetchOffset, end)
					}
				}
			}
			if code != errNone {
				if code == errNotLeaderOrFollower || code == errFencedLeaderEpoch {
					if pt, err := c.partitionLocked(rt.Topic, rp.Partition); err == nil && pt.leader >= 0 {
						fp.CurrentLeader.LeaderID, fp.CurrentLeader.LeaderEpoch = pt.leader, pt.epoch
					}
				}
				fp.ErrorCode = code
				failed = true
			}
			if fp.RecordBatches == nil {
				fp.RecordBatches = []byte{} // empty, not null: librdkafka rejects null
			}
			ft.Partitions = append(ft.Partitions, fp)
		}
		resp.Topics = append(resp.Topics, ft)
	}
	return resp, bytes, failed
}
