package kafkacheck

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/kafkaerr"
	"github.com/rollsafe/rollsafe/protocol"
)

// allTopicOperations is the AclOperation bit field of every operation
// Kafka supports on a topic (read, write, create, delete, alter, describe,
// describe configs, alter configs): what a broker without an authorizer
// answers.
const allTopicOperations = 1<<3 | 1<<4 | 1<<5 | 1<<6 | 1<<7 | 1<<8 | 1<<10 | 1<<11

// DescribeRules checks DescribeTopicPartitions (KIP-966) over conn against
// Apache Kafka 4.4 (no authorizer), with topics a, of three partitions,
// and b, of two, named a < b, every partition led and in sync:
//
//   - named b, a: both in name order, no next cursor, every operation
//     authorized, each partition as Metadata shows it (leader, epoch,
//     replicas, ISR), no eligible replica (empty lists, not null);
//   - pages of two partitions: a/0-1 with a cursor at a/2, then a/2 and
//     b/0 with a cursor at b/1, then b/1 and no cursor; a limit of 0
//     answers one partition;
//   - an unknown topic named with a: UNKNOWN_TOPIC_OR_PARTITION, after a
//     (its operations filled in all the same); names Kafka does not allow
//     ("..", a slash, 250 bytes): INVALID_TOPIC_EXCEPTION;
//   - a cursor on a topic not named, or on a negative partition: the
//     request refused, INVALID_REQUEST for every named topic.
func DescribeRules(ctx context.Context, conn *protocol.Conn, a, b string) error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	whole, err := describeTopics(ctx, conn, 2000, nil, b, a)
	if err != nil {
		return err
	}
	if names := describedNames(whole); !slices.Equal(names, []string{a, b}) || whole.NextCursor != nil {
		fail("named %s, %s: topics %v, next cursor %+v; Kafka answers %s, %s and no cursor", b, a, names, whole.NextCursor, a, b)
	}
	md, err := metadataOf(ctx, conn, a, b)
	if err != nil {
		return err
	}
	for _, t := range whole.Topics {
		if t.ErrorCode != 0 || t.AuthorizedOperations != allTopicOperations {
			fail("%s: error %d, operations %b; Kafka answers none, %b", *t.Topic, t.ErrorCode, t.AuthorizedOperations, allTopicOperations)
		}
		mps := md[*t.Topic]
		if len(t.Partitions) != len(mps) {
			fail("%s: %d partitions; Metadata shows %d", *t.Topic, len(t.Partitions), len(mps))
			continue
		}
		for i, p := range t.Partitions {
			mp := mps[i]
			if p.ErrorCode != 0 || p.Partition != int32(i) || p.LeaderID != mp.Leader || p.LeaderEpoch != mp.LeaderEpoch ||
				!slices.Equal(p.Replicas, mp.Replicas) || !sameIDs(p.ISR, mp.ISR) || len(p.EligibleLeaderReplicas) > 0 || len(p.LastKnownELR) > 0 {
				fail("%s/%d: %+v; Metadata shows %+v, and no replica is eligible", *t.Topic, i, p, mp)
			}
			// Nullable on the wire, but Kafka sends empty lists (its own
			// Admin client fails on null).
			if p.EligibleLeaderReplicas == nil || p.LastKnownELR == nil {
				fail("%s/%d: ELR %v, last known ELR %v null; Kafka sends empty lists", *t.Topic, i, p.EligibleLeaderReplicas == nil, p.LastKnownELR == nil)
			}
		}
	}

	// Pages of two partitions.
	type page struct {
		parts  []string
		cursor string
	}
	var pages []page
	var cur *kmsg.DescribeTopicPartitionsRequestCursor
	for range 4 {
		r, err := describeTopics(ctx, conn, 2, cur, a, b)
		if err != nil {
			return err
		}
		pg := page{parts: describedParts(r)}
		cur = nil
		if r.NextCursor != nil {
			pg.cursor = fmt.Sprintf("%s/%d", r.NextCursor.Topic, r.NextCursor.Partition)
			cur = &kmsg.DescribeTopicPartitionsRequestCursor{Topic: r.NextCursor.Topic, Partition: r.NextCursor.Partition}
		}
		pages = append(pages, pg)
		if cur == nil {
			break
		}
	}
	want := []page{
		{[]string{a + "/0", a + "/1"}, a + "/2"},
		{[]string{a + "/2", b + "/0"}, b + "/1"},
		{[]string{b + "/1"}, ""},
	}
	if !slices.EqualFunc(pages, want, func(x, y page) bool { return slices.Equal(x.parts, y.parts) && x.cursor == y.cursor }) {
		fail("pages of two partitions: %v; Kafka answers %v", pages, want)
	}
	if r, err := describeTopics(ctx, conn, 0, nil, a); err != nil {
		return err
	} else if got := describedParts(r); !slices.Equal(got, []string{a + "/0"}) || r.NextCursor == nil || r.NextCursor.Partition != 1 {
		fail("a limit of 0: %v, next cursor %+v; Kafka answers %s/0 and a cursor at %s/1", got, r.NextCursor, a, a)
	}

	unknown := b + "-never-created"
	if r, err := describeTopics(ctx, conn, 2000, nil, unknown, a); err != nil {
		return err
	} else if names := describedNames(r); !slices.Equal(names, []string{a, unknown}) || kafkaerr.Code(r.Topics[1].ErrorCode) != kafkaerr.UnknownTopicOrPartition ||
		len(r.Topics[1].Partitions) > 0 || r.Topics[1].AuthorizedOperations != allTopicOperations {
		fail("named %s, %s: %v, the unknown one %+v; Kafka answers %s, then %s UNKNOWN_TOPIC_OR_PARTITION", unknown, a, names, r.Topics, a, unknown)
	}

	// Names Kafka does not allow: INVALID_TOPIC_EXCEPTION, in name order.
	invalid := []string{"..", "bad/name", strings.Repeat("x", 250)}
	if r, err := describeTopics(ctx, conn, 2000, nil, invalid...); err != nil {
		return err
	} else {
		names := describedNames(r)
		want := slices.Sorted(slices.Values(invalid))
		ok := slices.Equal(names, want)
		for _, t := range r.Topics {
			ok = ok && kafkaerr.Code(t.ErrorCode) == kafkaerr.InvalidTopicException && len(t.Partitions) == 0
		}
		if !ok {
			fail("invalid names: %+v; Kafka answers INVALID_TOPIC_EXCEPTION for each", r.Topics)
		}
	}

	for _, bad := range []kmsg.DescribeTopicPartitionsRequestCursor{{Topic: b}, {Topic: a, Partition: -1}} {
		r, err := describeTopics(ctx, conn, 2000, &bad, a)
		if err != nil {
			return err
		}
		if len(r.Topics) != 1 || kafkaerr.Code(r.Topics[0].ErrorCode) != kafkaerr.InvalidRequest || len(r.Topics[0].Partitions) > 0 {
			fail("named %s with the cursor %s/%d: %+v; Kafka refuses the request: %s INVALID_REQUEST", a, bad.Topic, bad.Partition, r.Topics, a)
		}
	}
	return errors.Join(errs...)
}

// Eligible returns partition p of topic's eligible leader replicas and
// last known ELR as the broker behind conn answers DescribeTopicPartitions.
func Eligible(ctx context.Context, conn *protocol.Conn, topic string, p int32) (elr, lastKnown []int32, err error) {
	r, err := describeTopics(ctx, conn, 2000, nil, topic)
	if err != nil {
		return nil, nil, err
	}
	for _, t := range r.Topics {
		if deref(t.Topic) != topic || t.ErrorCode != 0 {
			continue
		}
		for _, pp := range t.Partitions {
			if pp.Partition == p {
				return pp.EligibleLeaderReplicas, pp.LastKnownELR, nil
			}
		}
	}
	return nil, nil, fmt.Errorf("DescribeTopicPartitions of %s[%d]: not answered (%+v)", topic, p, r.Topics)
}

func describeTopics(ctx context.Context, conn *protocol.Conn, limit int32, cursor *kmsg.DescribeTopicPartitionsRequestCursor, topics ...string) (*kmsg.DescribeTopicPartitionsResponse, error) {
	req := kmsg.NewPtrDescribeTopicPartitionsRequest()
	for _, t := range topics {
		req.Topics = append(req.Topics, kmsg.DescribeTopicPartitionsRequestTopic{Topic: t})
	}
	req.ResponsePartitionLimit = limit
	req.Cursor = cursor
	resp, err := conn.Request(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("DescribeTopicPartitions: %w", err)
	}
	return resp.(*kmsg.DescribeTopicPartitionsResponse), nil
}

func describedNames(r *kmsg.DescribeTopicPartitionsResponse) []string {
	var out []string
	for _, t := range r.Topics {
		out = append(out, deref(t.Topic))
	}
	return out
}

func describedParts(r *kmsg.DescribeTopicPartitionsResponse) []string {
	var out []string
	for _, t := range r.Topics {
		for _, p := range t.Partitions {
			out = append(out, fmt.Sprintf("%s/%d", deref(t.Topic), p.Partition))
		}
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// metadataOf returns the partitions of topics, in partition order, as
// Metadata answers them.
func metadataOf(ctx context.Context, conn *protocol.Conn, topics ...string) (map[string][]kmsg.MetadataResponseTopicPartition, error) {
	req := kmsg.NewPtrMetadataRequest()
	for _, t := range topics {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(t)
		req.Topics = append(req.Topics, rt)
	}
	resp, err := conn.Request(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	out := map[string][]kmsg.MetadataResponseTopicPartition{}
	for _, t := range resp.(*kmsg.MetadataResponse).Topics {
		ps := slices.Clone(t.Partitions)
		slices.SortFunc(ps, func(x, y kmsg.MetadataResponseTopicPartition) int { return int(x.Partition - y.Partition) })
		out[deref(t.Topic)] = ps
	}
	return out, nil
}

// sameIDs reports whether x and y hold the same broker ids, in any order.
func sameIDs(x, y []int32) bool {
	return slices.Equal(slices.Sorted(slices.Values(x)), slices.Sorted(slices.Values(y)))
}
