package sim

import (
	"context"
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// maxDescribePartitions is Kafka's max.request.partition.size.limit: the
// most partitions one DescribeTopicPartitions answer holds.
const maxDescribePartitions = 2000

// topicOperations are the operations Kafka supports on a topic (read,
// write, create, delete, alter, describe, describe configs, alter
// configs), as the bit field of their AclOperation codes.
const topicOperations = 1<<3 | 1<<4 | 1<<5 | 1<<6 | 1<<7 | 1<<8 | 1<<10 | 1<<11

// describeTopicPartitions answers DescribeTopicPartitions (KIP-966) as
// Kafka 4.4 does: the requested topics (every topic the principal may
// describe when none is named) in name order, from the cursor on, at most
// ResponsePartitionLimit partitions (1 to 2000) with a next cursor where
// it stops; each partition with its ISR, eligible leader replicas and last
// known ELR. An unknown topic is UNKNOWN_TOPIC_OR_PARTITION (a name Kafka
// does not allow, INVALID_TOPIC_EXCEPTION); one the principal may not
// describe, TOPIC_AUTHORIZATION_FAILED, listed last.
func (b *broker) describeTopicPartitions(ctx context.Context, r *kmsg.DescribeTopicPartitionsRequest) kmsg.Response {
	c := b.c
	resp := r.ResponseKind().(*kmsg.DescribeTopicPartitionsResponse)
	cursorTopic, cursorPart := "", int32(0)
	if r.Cursor != nil {
		cursorTopic, cursorPart = r.Cursor.Topic, r.Cursor.Partition
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	all := len(r.Topics) == 0
	var names []string
	if all {
		for _, name := range c.names {
			if name >= cursorTopic {
				names = append(names, name)
			}
		}
	} else {
		seen := make(map[string]bool, len(r.Topics))
		for _, rt := range r.Topics {
			if rt.Topic >= cursorTopic && !seen[rt.Topic] {
				seen[rt.Topic] = true
				names = append(names, rt.Topic)
			}
		}
	}
	if (r.Cursor != nil && !all && !slices.Contains(names, cursorTopic)) || cursorPart < 0 {
		// Kafka refuses the request: every named topic gets the error.
		for _, rt := range r.Topics {
			t := kmsg.NewDescribeTopicPartitionsResponseTopic()
			t.Topic = kmsg.StringPtr(rt.Topic)
			t.ErrorCode = errInvalidRequest
			resp.Topics = append(resp.Topics, t)
		}
		return resp
	}
	slices.Sort(names)
	var refused []kmsg.DescribeTopicPartitionsResponseTopic
	remaining := int(max(min(r.ResponsePartitionLimit, maxDescribePartitions), 1))
	for _, name := range names {
		if !b.allowed(ctx, name, OpDescribe) {
			if !all {
				t := kmsg.NewDescribeTopicPartitionsResponseTopic()
				t.Topic = kmsg.StringPtr(name)
				t.ErrorCode = errTopicAuthorization
				refused = append(refused, t)
			}
			continue
		}
		if remaining == 0 {
			resp.NextCursor = &kmsg.DescribeTopicPartitionsResponseNextCursor{Topic: name, Partition: 0}
			break
		}
		tp := c.topics[name]
		if tp == nil {
			t := kmsg.NewDescribeTopicPartitionsResponseTopic()
			t.Topic = kmsg.StringPtr(name)
			t.ErrorCode = errUnknownTopicOrPartition
			if !validTopicName(name) {
				t.ErrorCode = errInvalidTopicException
			}
			t.AuthorizedOperations = b.topicOperations(ctx, name) // Kafka fills it in for every topic it describes
			resp.Topics = append(resp.Topics, t)
			continue
		}
		t := kmsg.NewDescribeTopicPartitionsResponseTopic()
		t.Topic = kmsg.StringPtr(name)
		t.TopicID = tp.id
		t.AuthorizedOperations = b.topicOperations(ctx, name)
		start := 0
		if name == cursorTopic {
			start = int(cursorPart)
		}
		end := min(len(tp.parts), start+remaining)
		for _, pt := range tp.parts[min(start, end):end] {
			t.Partitions = append(t.Partitions, c.describePartitionLocked(pt))
		}
		resp.Topics = append(resp.Topics, t)
		if end < len(tp.parts) {
			resp.NextCursor = &kmsg.DescribeTopicPartitionsResponseNextCursor{Topic: name, Partition: int32(end)}
			break
		}
		remaining -= len(t.Partitions)
	}
	resp.Topics = append(resp.Topics, refused...)
	return resp
}

// validTopicName is Kafka's rule for topic names: 1 to 249 ASCII
// letters, digits, '.', '_' and '-', and neither "." nor "..".
func validTopicName(name string) bool {
	if name == "" || name == "." || name == ".." || len(name) > 249 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// describePartitionLocked is pt as DescribeTopicPartitions shows it: no
// error code even without a leader (leader -1 then).
func (c *Cluster) describePartitionLocked(pt *partition) kmsg.DescribeTopicPartitionsResponseTopicPartition {
	p := kmsg.NewDescribeTopicPartitionsResponseTopicPartition()
	p.Partition = pt.index
	p.LeaderID = -1
	if pt.leader >= 0 && c.brokers[pt.leader].up {
		p.LeaderID = pt.leader
	}
	p.LeaderEpoch = pt.epoch
	p.Replicas = slices.Clone(pt.replicas)
	p.ISR = slices.Sorted(slices.Values(pt.isr))
	// Both are nullable on the wire; Kafka always sends a list, and its own
	// Admin client fails on null.
	p.EligibleLeaderReplicas = append([]int32{}, slices.Sorted(slices.Values(pt.elr))...)
	p.LastKnownELR = append([]int32{}, pt.lastKnownELR()...)
	for _, id := range pt.replicas {
		if !c.brokers[id].up {
			p.OfflineReplicas = append(p.OfflineReplicas, id)
		}
	}
	return p
}

// topicOperations is the bit field of the operations the principal may do
// on topic: all of Kafka's without authorization; with it, those the sim's
// ACLs grant (read, write, describe).
func (b *broker) topicOperations(ctx context.Context, topic string) int32 {
	user, _ := ctx.Value(principalKey{}).(string)
	acls := &b.c.cfg.acls
	if !acls.enabled() || slices.Contains(acls.super, user) {
		return topicOperations
	}
	var ops int32
	for op, bit := range map[Operation]int32{OpRead: 1 << 3, OpWrite: 1 << 4, OpDescribe: 1 << 8} {
		if acls.allows(user, topic, op) {
			ops |= bit
		}
	}
	return ops
}
