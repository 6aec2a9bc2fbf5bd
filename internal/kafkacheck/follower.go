package kafkacheck

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/kafkaerr"
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
//     NOT_LEADER_OR_FOLLOWER; Fetch v11+ is served by it, once its high
//     watermark covers a record written to the leader;
//   - Produce, Fetch and ListOffsets to the leader with a leader epoch one
//     above the current: UNKNOWN_LEADER_EPOCH for Fetch and ListOffsets
//     (Produce carries none);
//   - Produce to partition 99 of topic and to a topic that does not exist:
//     UNKNOWN_TOPIC_OR_PARTITION.
func FollowerRules(ctx context.Context, leader, follower *protocol.Conn, leaderID int32, topic string, p int32) error {
	var errs []error
	code, pr, err := produceAnswer(ctx, follower, topic, p, batchOf(recordsOf("f"), 1, 0))
	if err != nil {
		return fmt.Errorf("produce to the follower: %w", err)
	}
	part := pr.Topics[0].Partitions[0]
	if code != kafkaerr.NotLeaderOrFollower {
		errs = append(errs, fmt.Errorf("produce to the follower: %v; Kafka answers NOT_LEADER_OR_FOLLOWER", code))
	}
	if err := checkHint(pr, leaderID, 0); err != nil {
		errs = append(errs, fmt.Errorf("produce to the follower: %w", err))
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
	// A consumer's Fetch v11+ (KIP-392 client metadata) is served by a
	// follower, up to its own high watermark.
	if _, err := produce(ctx, leader, topic, p, batchOf(recordsOf("g"), 1, 0)); err != nil {
		errs = append(errs, fmt.Errorf("produce to the leader: %w", err))
	} else if err := fetchedFrom(ctx, follower, topic, p); err != nil {
		errs = append(errs, fmt.Errorf("Fetch v11+ from the follower: %w; Kafka serves it once the follower's high watermark covers the record", err))
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

// produceAnswer sends raw, acks=all, and returns the partition's code with
// the whole response (which holds exactly that partition).
func produceAnswer(ctx context.Context, conn *protocol.Conn, topic string, p int32, raw []byte) (kafkaerr.Code, *kmsg.ProduceResponse, error) {
	resp, err := conn.Request(ctx, produceRequest(topic, p, raw, -1))
	if err != nil {
		return 0, nil, err
	}
	pr := resp.(*kmsg.ProduceResponse)
	if len(pr.Topics) != 1 || len(pr.Topics[0].Partitions) != 1 {
		return 0, nil, fmt.Errorf("a response of %d topics for one partition", len(pr.Topics))
	}
	return kafkaerr.Code(pr.Topics[0].Partitions[0].ErrorCode), pr, nil
}

// checkHint checks a NOT_LEADER_OR_FOLLOWER produce response's KIP-951
// hint (Produce v10+): the leader's id, an epoch of at least minEpoch, and
// its endpoint among the response's brokers.
func checkHint(pr *kmsg.ProduceResponse, leaderID, minEpoch int32) error {
	if pr.Version < 10 {
		return nil
	}
	hint := pr.Topics[0].Partitions[0].CurrentLeader
	if hint.LeaderID != leaderID || hint.LeaderEpoch < minEpoch {
		return fmt.Errorf("hint leader %d epoch %d; Kafka names leader %d at epoch %d or later", hint.LeaderID, hint.LeaderEpoch, leaderID, minEpoch)
	}
	if !slices.ContainsFunc(pr.Brokers, func(b kmsg.ProduceResponseBroker) bool { return b.NodeID == leaderID }) {
		return fmt.Errorf("the response's brokers %v omit the leader %d", pr.Brokers, leaderID)
	}
	return nil
}

// fetchedFrom fetches partition p of topic at 0 over conn (Fetch v11+)
// until it returns records, within ctx.
func fetchedFrom(ctx context.Context, conn *protocol.Conn, topic string, p int32) error {
	for {
		r, err := protocol.Fetch(ctx, conn, protocol.FetchOptions{Topic: topic, Partition: p, Offset: 0, CurrentLeaderEpoch: protocol.NoLeaderEpoch})
		if err != nil {
			return err
		}
		if len(r.Records) > 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("no records (high watermark %d): %w", r.HighWatermark, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
