package sim

import (
	"context"
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// describeProducers answers DescribeProducers (KIP-664) as Kafka does:
// from the producer state of whichever replica this broker hosts — the
// leader's moves on append, so it includes batches above the high
// watermark; a follower's is what it has replicated. A broker without a
// replica answers NOT_LEADER_OR_FOLLOWER, an unknown topic or partition
// UNKNOWN_TOPIC_OR_PARTITION, a principal without READ on the topic
// TOPIC_AUTHORIZATION_FAILED. Producers come sorted by id.
func (b *broker) describeProducers(ctx context.Context, r *kmsg.DescribeProducersRequest) kmsg.Response {
	c := b.c
	resp := r.ResponseKind().(*kmsg.DescribeProducersResponse)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rt := range r.Topics {
		ot := kmsg.NewDescribeProducersResponseTopic()
		ot.Topic = rt.Topic
		for _, p := range rt.Partitions {
			op := kmsg.NewDescribeProducersResponseTopicPartition()
			op.Partition = p
			pt, err := c.partitionLocked(rt.Topic, p)
			var rep *replica
			if err == nil {
				rep = pt.logs[b.id]
			}
			switch {
			case !b.allowed(ctx, rt.Topic, OpRead):
				op.ErrorCode = errTopicAuthorization
			case err != nil:
				op.ErrorCode = errUnknownTopicOrPartition
			case rep == nil:
				op.ErrorCode = errNotLeaderOrFollower
			default:
				op.ActiveProducers = rep.pstate.describe()
			}
			ot.Partitions = append(ot.Partitions, op)
		}
		resp.Topics = append(resp.Topics, ot)
	}
	return resp
}

// describe lists the table as DescribeProducers reports it, by producer
// id: its last batch's (or marker's) largest timestamp, the coordinator
// epoch of its last marker here and the offset where its open transaction
// here began (-1 for none).
func (t producerTable) describe() []kmsg.DescribeProducersResponseTopicPartitionActiveProducer {
	ids := make([]int64, 0, len(t))
	for pid := range t {
		ids = append(ids, pid)
	}
	slices.Sort(ids)
	out := make([]kmsg.DescribeProducersResponseTopicPartitionActiveProducer, 0, len(ids))
	for _, pid := range ids {
		e := t[pid]
		ap := kmsg.NewDescribeProducersResponseTopicPartitionActiveProducer()
		ap.ProducerID, ap.ProducerEpoch, ap.LastSequence = pid, int32(e.epoch), e.lastSeq()
		ap.LastTimestamp, ap.CoordinatorEpoch, ap.CurrentTxnStartOffset = e.lastTimestamp, e.coordEpoch, e.txnFirst
		out = append(out, ap)
	}
	return out
}
