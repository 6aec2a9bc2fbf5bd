package sim

import (
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestDeleteAndCreateTopic: a topic created again under a deleted one's
// name is a new topic, as in Kafka: a new id, leader epochs from 0, an
// empty log, no producer state (a producer's next sequence is taken at
// any number), and another partition count if asked.
func TestDeleteAndCreateTopic(t *testing.T) {
	c := newTestCluster(t, Brokers(3), Topic("t", 2, 3))
	oldID, _ := c.TopicID("t")
	if err := c.MoveLeader("t", 0, (func() int32 { l, _ := c.Leader("t", 0); return (l + 1) % 3 })()); err != nil {
		t.Fatal(err)
	}
	leader, epoch := c.Leader("t", 0)
	if epoch != 1 {
		t.Fatalf("leader epoch %d after a move, want 1", epoch)
	}
	tc := dial(t, c.Addrs()[leader])
	for seq := int32(0); seq < 6; seq += 3 {
		if rp := tc.produce("t", 0, -1, makeBatch(t, spec{pid: 5, seq: seq, values: vals("a", 3)})); rp.ErrorCode != 0 {
			t.Fatalf("produce: code %d", rp.ErrorCode)
		}
	}
	if err := c.DeleteTopic("t"); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteTopic("t"); !errors.Is(err, ErrUnknownTopic) {
		t.Fatalf("deleting it twice: %v", err)
	}
	if rp := tc.produce("t", 0, -1, makeBatch(t, spec{pid: 5, seq: 6, values: vals("b", 1)})); rp.ErrorCode != errUnknownTopicOrPartition {
		t.Fatalf("produce to a deleted topic: code %d", rp.ErrorCode)
	}
	if err := c.CreateTopic("t", 3, 3); err != nil {
		t.Fatal(err)
	}
	newID, _ := c.TopicID("t")
	if newID == oldID || newID == ([16]byte{}) {
		t.Fatalf("topic id %x after re-creation, was %x", newID, oldID)
	}
	req := kmsg.NewPtrMetadataRequest()
	req.SetVersion(12)
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr("t")
	req.Topics = append(req.Topics, rt)
	resp := tc.do(req).(*kmsg.MetadataResponse)
	if mt := resp.Topics[0]; mt.ErrorCode != 0 || mt.TopicID != newID || len(mt.Partitions) != 3 {
		t.Fatalf("metadata of the new topic: code %d id %x, %d partitions", mt.ErrorCode, mt.TopicID, len(mt.Partitions))
	}
	for _, mp := range resp.Topics[0].Partitions {
		if mp.LeaderEpoch != 0 {
			t.Fatalf("partition %d at leader epoch %d, want 0", mp.Partition, mp.LeaderEpoch)
		}
	}
	// No producer state, an empty log: sequence 10 from producer 5 is
	// taken at offset 0 (KAFKA-15591 not modelled: the default).
	leader, _ = c.Leader("t", 0)
	tc = dial(t, c.Addrs()[leader])
	if rp := tc.produce("t", 0, -1, makeBatch(t, spec{pid: 5, seq: 10, values: vals("c", 1)})); rp.ErrorCode != 0 || rp.BaseOffset != 0 {
		t.Fatalf("first produce to the new topic: code %d at %d", rp.ErrorCode, rp.BaseOffset)
	}
	if err := c.CreateTopic("t", 1, 1); err == nil {
		t.Fatal("created a topic that exists")
	}
}

// TestWithoutTopicIDs: brokers before Kafka 2.8 serve Metadata up to v9,
// without topic ids, and no DescribeTopicPartitions.
func TestWithoutTopicIDs(t *testing.T) {
	for name, opt := range map[string]Option{"option": WithoutTopicIDs(), "pre-2.5": Pre25()} {
		t.Run(name, func(t *testing.T) {
			c := newTestCluster(t, Topic("t", 1, 1), opt)
			tc := dial(t, c.Addrs()[0])
			req := kmsg.NewPtrApiVersionsRequest()
			req.SetVersion(3)
			for _, k := range tc.do(req).(*kmsg.ApiVersionsResponse).ApiKeys {
				if k.ApiKey == 3 && k.MaxVersion != 9 {
					t.Fatalf("Metadata up to v%d, want v9", k.MaxVersion)
				}
			}
			if advertises(t, tc, 75) {
				t.Fatal("DescribeTopicPartitions advertised")
			}
		})
	}
}
