package kafkacheck

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/protocol"
)

// FollowerRules asks a follower of partition p of topic (over follower)
// what only the leader (broker leaderID) serves, and the leader what it
// has no answer for, and checks what Apache Kafka 4.4 answers:
//
//   - Produce to the follower: NOT_LEADER_OR_FOLLOWER, with the leader's
//     id and epoch as the hint (KIP-951, Produce v10+) and its endpoint
//     among the response's brokers;
//   - ListOffsets to the follower: NOT_LEADER_OR_FOLLOWER;
//   - Fetch v10 (no KIP-392 client metadata) from the follower:
//     NOT_LEADER_OR_FOLLOWER;
//   - Produce, Fetch and ListOffsets to the leader with a leader epoch one
//     above the current: UNKNOWN_LEADER_EPOCH for Fetch and ListOffsets
//     (Produce carries none);
//   - Produce to partition 99 of topic and to a topic that does not exist:
//     UNKNOWN_TOPIC_OR_PARTITION.
func FollowerRules(ctx context.Context, leader, follower *protocol.Conn, leaderID int32, topic string, p int32) error {
	var errs []error
	req := produceRequest(topic, p, batchOf(recordsOf("f"), 1, 0), -1)
	resp, err := follower.Request(ctx, req)
	if err != nil {
		return fmt.Errorf("produce to the follower: %w", err)
	}
	pr := resp.(*kmsg.ProduceResponse)
	if len(pr.Topics) != 1 || len(pr.Topics[0].Partitions) != 1 {
		return fmt.Errorf("produce to the follower: a response of %d topics for one partition", len(pr.Topics))
	}
	part := pr.Topics[0].Partitions[0]
	if code := protocol.ErrorCode(part.ErrorCode); code != protocol.NotLeaderOrFollower {
		errs = append(errs, fmt.Errorf("produce to the follower: %v; Kafka answers NOT_LEADER_OR_FOLLOWER", code))
	}
	if pr.Version >= 10 {
		hint := part.CurrentLeader
		if hint.LeaderID != leaderID || hint.LeaderEpoch < 0 {
			errs = append(errs, fmt.Errorf("produce to the follower: hint leader %d epoch %d; Kafka names leader %d and its epoch", hint.LeaderID, hint.LeaderEpoch, leaderID))
		}
		if !slices.ContainsFunc(pr.Brokers, func(b kmsg.ProduceResponseBroker) bool { return b.NodeID == leaderID }) {
			errs = append(errs, fmt.Errorf("produce to the follower: the response's brokers %v omit the leader %d", pr.Brokers, leaderID))
		}
	}
	epoch := int32(-1)
	if pr.Version >= 10 {
		epoch = part.CurrentLeader.LeaderEpoch
	}
	if _, _, err := protocol.ListOffsets(ctx, follower, topic, p, protocol.ListLatest); !errors.Is(err, protocol.ErrNotLeaderOrFollower) {
		errs = append(errs, fmt.Errorf("ListOffsets on the follower: %s; Kafka answers NOT_LEADER_OR_FOLLOWER", answer(err)))
	}
	if _, err := protocol.Fetch(ctx, follower, protocol.FetchOptions{Topic: topic, Partition: p, Offset: 0,
		CurrentLeaderEpoch: protocol.NoLeaderEpoch, LeaderOnly: true}); !errors.Is(err, protocol.ErrNotLeaderOrFollower) {
		errs = append(errs, fmt.Errorf("Fetch v10 from the follower: %s; Kafka answers NOT_LEADER_OR_FOLLOWER", answer(err)))
	}
	if epoch >= 0 {
		if _, err := protocol.Fetch(ctx, leader, protocol.FetchOptions{Topic: topic, Partition: p, Offset: 0,
			CurrentLeaderEpoch: epoch + 1}); !errors.Is(err, protocol.ErrUnknownLeaderEpoch) {
			errs = append(errs, fmt.Errorf("Fetch with the leader epoch ahead: %s; Kafka answers UNKNOWN_LEADER_EPOCH", answer(err)))
		}
		if _, _, err := protocol.ListOffsetsWith(ctx, leader, protocol.ListOffsetsOptions{Topic: topic, Partition: p,
			Timestamp: protocol.ListLatest, CurrentLeaderEpoch: epoch + 1}); !errors.Is(err, protocol.ErrUnknownLeaderEpoch) {
			errs = append(errs, fmt.Errorf("ListOffsets with the leader epoch ahead: %s; Kafka answers UNKNOWN_LEADER_EPOCH", answer(err)))
		}
	}
	for _, tp := range []struct {
		topic string
		p     int32
	}{{topic, 99}, {topic + "-never-created", 0}} {
		if _, err := produce(ctx, leader, tp.topic, tp.p, batchOf(recordsOf("u"), 1, 0)); !errors.Is(err, protocol.ErrUnknownTopicOrPartition) {
			errs = append(errs, fmt.Errorf("produce to %s[%d]: %s; Kafka answers UNKNOWN_TOPIC_OR_PARTITION", tp.topic, tp.p, answer(err)))
		}
	}
	return errors.Join(errs...)
}

// produceRequest is a Produce request of raw to one partition.
func produceRequest(topic string, p int32, raw []byte, acks int16) *kmsg.ProduceRequest {
	req := kmsg.NewPtrProduceRequest()
	req.Acks = acks
	req.TimeoutMillis = 10000
	rt := kmsg.NewProduceRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewProduceRequestTopicPartition()
	rp.Partition = p
	rp.Records = raw
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	return req
}
