package sim

import (
	"errors"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// describeTP asks for topics (none: every topic) from cursor (nil: the
// start), at most limit partitions.
func describeTP(tc *testConn, limit int32, cursor *kmsg.DescribeTopicPartitionsRequestCursor, topics ...string) *kmsg.DescribeTopicPartitionsResponse {
	req := kmsg.NewPtrDescribeTopicPartitionsRequest()
	for _, t := range topics {
		req.Topics = append(req.Topics, kmsg.DescribeTopicPartitionsRequestTopic{Topic: t})
	}
	req.ResponsePartitionLimit = limit
	req.Cursor = cursor
	return tc.do(req).(*kmsg.DescribeTopicPartitionsResponse)
}

// describedPartition is one partition of a DescribeTopicPartitions answer.
type describedPartition struct {
	topic string
	kmsg.DescribeTopicPartitionsResponseTopicPartition
}

func flattenDescribed(resp *kmsg.DescribeTopicPartitionsResponse) []describedPartition {
	var out []describedPartition
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			out = append(out, describedPartition{*t.Topic, p})
		}
	}
	return out
}

// TestDescribeTopicPartitions: every topic in name order with what
// Metadata shows of each partition, pages of ResponsePartitionLimit
// partitions chained by the next cursor, unknown topics and bad cursors
// answered as Kafka 4.4 does, and a partition without a leader shown with
// no error, an empty ISR, its last replica eligible and remembered as the
// last leader.
func TestDescribeTopicPartitions(t *testing.T) {
	c := newTestCluster(t, Brokers(3), Topic("b", 2, 3), Topic("a", 3, 2), Topic("c", 1, 1))
	tc := dial(t, c.Addrs()[0])

	whole := describeTP(tc, 2000, nil)
	if whole.NextCursor != nil {
		t.Fatalf("next cursor %+v with every partition answered", whole.NextCursor)
	}
	var names []string
	for _, tp := range whole.Topics {
		names = append(names, *tp.Topic)
		if tp.ErrorCode != errNone || tp.AuthorizedOperations != topicOperations || tp.TopicID == [16]byte{} {
			t.Fatalf("topic %s: code %d, operations %d, id %x", *tp.Topic, tp.ErrorCode, tp.AuthorizedOperations, tp.TopicID)
		}
	}
	if !slices.Equal(names, []string{"a", "b", "c"}) {
		t.Fatalf("topics %v; want a, b, c (name order)", names)
	}
	md := tc.do(metadataAll()).(*kmsg.MetadataResponse)
	all := flattenDescribed(whole)
	if len(all) != 6 {
		t.Fatalf("%d partitions; want 6", len(all))
	}
	for _, p := range all {
		var mp *kmsg.MetadataResponseTopicPartition
		for i := range md.Topics {
			if *md.Topics[i].Topic == p.topic {
				mp = &md.Topics[i].Partitions[p.Partition]
			}
		}
		if p.ErrorCode != errNone || p.LeaderID != mp.Leader || p.LeaderEpoch != mp.LeaderEpoch ||
			!slices.Equal(p.Replicas, mp.Replicas) || !slices.Equal(p.ISR, mp.ISR) ||
			len(p.EligibleLeaderReplicas) != 0 || len(p.LastKnownELR) != 0 {
			t.Fatalf("%s/%d: %+v; metadata says %+v", p.topic, p.Partition, p.DescribeTopicPartitionsResponseTopicPartition, *mp)
		}
	}

	// Pages of two partitions chain to the same answer.
	var paged []describedPartition
	var cursors []string
	var cur *kmsg.DescribeTopicPartitionsRequestCursor
	for range 10 {
		page := describeTP(tc, 2, cur)
		got := flattenDescribed(page)
		if len(got) > 2 {
			t.Fatalf("a page of %d partitions with a limit of 2", len(got))
		}
		paged = append(paged, got...)
		if page.NextCursor == nil {
			break
		}
		cursors = append(cursors, page.NextCursor.Topic+"/"+string(rune('0'+page.NextCursor.Partition)))
		cur = &kmsg.DescribeTopicPartitionsRequestCursor{Topic: page.NextCursor.Topic, Partition: page.NextCursor.Partition}
	}
	if !slices.EqualFunc(paged, all, func(x, y describedPartition) bool { return x.topic == y.topic && x.Partition == y.Partition }) {
		t.Fatalf("pages %v; want %v", paged, all)
	}
	// a/0-1 | a/2 b/0 | b/1 c/0: the cursor points at the next partition.
	if !slices.Equal(cursors, []string{"a/2", "b/1"}) {
		t.Fatalf("next cursors %v; want a/2, b/1", cursors)
	}

	// Named topics, in name order, an unknown one where it sorts.
	named := describeTP(tc, 2000, nil, "c", "zz", "a", "c")
	var got []string
	for _, tp := range named.Topics {
		got = append(got, *tp.Topic)
	}
	if !slices.Equal(got, []string{"a", "c", "zz"}) || named.Topics[2].ErrorCode != errUnknownTopicOrPartition || len(named.Topics[2].Partitions) != 0 {
		t.Fatalf("named c, zz, a, c: %v, zz code %d", got, named.Topics[2].ErrorCode)
	}
	// A cursor on a topic not named, or on a negative partition: Kafka
	// refuses the request, every named topic answered INVALID_REQUEST.
	for _, bad := range []*kmsg.DescribeTopicPartitionsRequestCursor{{Topic: "b"}, {Topic: "a", Partition: -1}} {
		r := describeTP(tc, 2000, bad, "a", "c")
		if len(r.Topics) != 2 || r.Topics[0].ErrorCode != errInvalidRequest || r.Topics[1].ErrorCode != errInvalidRequest {
			t.Fatalf("cursor %+v: %+v", *bad, r.Topics)
		}
	}

	// c's only replica stops: no leader, no error code here (Metadata
	// answers LEADER_NOT_AVAILABLE), an empty ISR, the replica eligible
	// and the last leader.
	rs, err := c.Replicas("c", 0)
	if err != nil {
		t.Fatal(err)
	}
	only := rs[0]
	if err := c.StopBroker(only); err != nil {
		t.Fatal(err)
	}
	up := dial(t, c.Addrs()[(only+1)%3])
	p := describeTP(up, 2000, nil, "c").Topics[0].Partitions[0]
	if p.ErrorCode != errNone || p.LeaderID != -1 || len(p.ISR) != 0 || !slices.Equal(p.EligibleLeaderReplicas, []int32{only}) ||
		!slices.Equal(p.LastKnownELR, []int32{only}) || !slices.Equal(p.OfflineReplicas, []int32{only}) {
		t.Fatalf("c/0 with its replica stopped: %+v", p)
	}
	mr := kmsg.NewPtrMetadataRequest()
	mr.Topics = []kmsg.MetadataRequestTopic{{Topic: kmsg.StringPtr("c")}}
	if mp := up.do(mr).(*kmsg.MetadataResponse).Topics[0].Partitions[0]; mp.ErrorCode != errLeaderNotAvailable || len(mp.ISR) != 0 {
		t.Fatalf("metadata of c/0: code %d, ISR %v; want LEADER_NOT_AVAILABLE, empty", mp.ErrorCode, mp.ISR)
	}
	if err := c.StartBroker(only); err != nil {
		t.Fatal(err)
	}
	p = describeTP(up, 2000, nil, "c").Topics[0].Partitions[0]
	if p.LeaderID != only || !slices.Equal(p.ISR, []int32{only}) || len(p.EligibleLeaderReplicas) != 0 || len(p.LastKnownELR) != 0 {
		t.Fatalf("c/0 with its replica back: %+v", p)
	}
}

// TestDescribeTopicPartitionsAuthorization: a principal sees the topics it
// may describe with the operations its ACLs grant; a named topic it may
// not describe is TOPIC_AUTHORIZATION_FAILED, listed after the others,
// and left out of the list of every topic.
func TestDescribeTopicPartitionsAuthorization(t *testing.T) {
	c := newTestCluster(t, Topic("t", 1, 1), Topic("u", 1, 1),
		SASL(MechPlain, "writer", "w"), SASL(MechPlain, "admin", "a"),
		ACL("writer", "t", OpWrite), SuperUser("admin"))
	login := func(user, pass string) *testConn {
		tc := dial(t, c.Addrs()[0])
		tc.mustLogin(1, MechPlain, user, pass)
		return tc
	}
	w := login("writer", "w")
	r := describeTP(w, 2000, nil, "u", "t")
	if len(r.Topics) != 2 || *r.Topics[0].Topic != "t" || *r.Topics[1].Topic != "u" {
		t.Fatalf("writer's answer: %+v", r.Topics)
	}
	if tp := r.Topics[0]; tp.ErrorCode != errNone || tp.AuthorizedOperations != 1<<4|1<<8 || len(tp.Partitions) != 1 {
		t.Fatalf("t for its writer: code %d, operations %b; want none, WRITE and DESCRIBE", tp.ErrorCode, tp.AuthorizedOperations)
	}
	if tp := r.Topics[1]; tp.ErrorCode != errTopicAuthorization || tp.TopicID != [16]byte{} || len(tp.Partitions) != 0 {
		t.Fatalf("u without DESCRIBE: %+v", tp)
	}
	if r := describeTP(w, 2000, nil); len(r.Topics) != 1 || *r.Topics[0].Topic != "t" {
		t.Fatalf("every topic for the writer: %+v; want t alone", r.Topics)
	}
	a := login("admin", "a")
	if r := describeTP(a, 2000, nil); len(r.Topics) != 2 || r.Topics[1].AuthorizedOperations != topicOperations {
		t.Fatalf("every topic for a super user: %+v", r.Topics)
	}
}

// TestDescribeTopicPartitionsPre25: a broker older than the API does not
// advertise it and closes the connection that sends it.
func TestDescribeTopicPartitionsPre25(t *testing.T) {
	c := newTestCluster(t, Topic("t", 1, 1), Pre25())
	tc := dial(t, c.Addrs()[0])
	if advertises(t, tc, 75) {
		t.Fatal("DescribeTopicPartitions advertised by a pre-2.5 broker")
	}
	req := kmsg.NewPtrDescribeTopicPartitionsRequest()
	if _, err := tc.recv(req, tc.send(req), 5*time.Second); !errors.Is(err, io.EOF) {
		t.Fatalf("got %v, want the connection closed", err)
	}
	if !advertises(t, dial(t, newTestCluster(t).Addrs()[0]), 75) {
		t.Fatal("DescribeTopicPartitions not advertised by default")
	}
}
