package sim

import (
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestACLWriteOnlyPrincipal: a principal granted WRITE on t may produce
// and describe t (metadata, ListOffsets, OffsetForLeaderEpoch: WRITE
// implies DESCRIBE) but not read it: Fetch and DescribeProducers answer
// TOPIC_AUTHORIZATION_FAILED, as Kafka's authorizer does; a principal with
// no grant cannot produce nor see the topic in metadata; a super user
// reads everything.
func TestACLWriteOnlyPrincipal(t *testing.T) {
	c := newTestCluster(t, Topic("t", 1, 1), Topic("u", 1, 1),
		SASL(MechPlain, "writer", "w"), SASL(MechPlain, "nobody", "n"), SASL(MechPlain, "admin", "a"),
		ACL("writer", "t", OpWrite), SuperUser("admin"))
	addr := c.Addrs()[0]
	login := func(user, pass string) *testConn {
		tc := dial(t, addr)
		tc.mustLogin(1, MechPlain, user, pass)
		return tc
	}
	w := login("writer", "w")
	ip := kmsg.NewPtrInitProducerIDRequest()
	ip.SetVersion(4)
	ipr := w.do(ip).(*kmsg.InitProducerIDResponse)
	if ipr.ErrorCode != errNone {
		t.Fatalf("InitProducerId for a principal with WRITE: %d", ipr.ErrorCode)
	}
	if got := w.produce("t", 0, -1, makeBatch(t, spec{pid: ipr.ProducerID, values: vals("a", 3)})); got.ErrorCode != errNone {
		t.Fatalf("produce with WRITE: %d", got.ErrorCode)
	}
	if got := w.produce("u", 0, -1, makeBatch(t, spec{pid: ipr.ProducerID, values: vals("a", 3)})); got.ErrorCode != errTopicAuthorization {
		t.Fatalf("produce to a topic without WRITE: %d", got.ErrorCode)
	}
	if f := w.fetch("t", 0, 0, 0); f.code != errTopicAuthorization {
		t.Fatalf("fetch without READ: %d", f.code)
	}
	dp := kmsg.NewPtrDescribeProducersRequest()
	dt := kmsg.NewDescribeProducersRequestTopic()
	dt.Topic, dt.Partitions = "t", []int32{0}
	dp.Topics = append(dp.Topics, dt)
	if code := w.do(dp).(*kmsg.DescribeProducersResponse).Topics[0].Partitions[0].ErrorCode; code != errTopicAuthorization {
		t.Fatalf("DescribeProducers without READ: %d", code)
	}
	lo := kmsg.NewPtrListOffsetsRequest()
	lo.SetVersion(7)
	lt := kmsg.NewListOffsetsRequestTopic()
	lt.Topic = "t"
	lp := kmsg.NewListOffsetsRequestTopicPartition()
	lp.Timestamp, lp.CurrentLeaderEpoch = -1, -1
	lt.Partitions = append(lt.Partitions, lp)
	lo.Topics = append(lo.Topics, lt)
	if got := w.do(lo).(*kmsg.ListOffsetsResponse).Topics[0].Partitions[0]; got.ErrorCode != errNone || got.Offset != 3 {
		t.Fatalf("ListOffsets with WRITE (DESCRIBE implied): code %d offset %d", got.ErrorCode, got.Offset)
	}
	md := w.do(metadataAll()).(*kmsg.MetadataResponse)
	if len(md.Topics) != 1 || *md.Topics[0].Topic != "t" {
		t.Fatalf("metadata for all topics lists %d topics; want t alone", len(md.Topics))
	}

	n := login("nobody", "n")
	if got := n.do(ip).(*kmsg.InitProducerIDResponse); got.ErrorCode != errClusterAuthorization {
		t.Fatalf("InitProducerId without WRITE anywhere: %d", got.ErrorCode)
	}
	if got := n.produce("t", 0, -1, makeBatch(t, spec{pid: -1, epoch: -1, seq: -1, values: vals("x", 1)})); got.ErrorCode != errTopicAuthorization {
		t.Fatalf("produce without WRITE: %d", got.ErrorCode)
	}
	mr := metadataAll()
	mt := kmsg.NewMetadataRequestTopic()
	mt.Topic = kmsg.StringPtr("t")
	mr.Topics = append(mr.Topics, mt)
	if got := n.do(mr).(*kmsg.MetadataResponse); got.Topics[0].ErrorCode != errTopicAuthorization {
		t.Fatalf("metadata of a topic without DESCRIBE: %d", got.Topics[0].ErrorCode)
	}

	a := login("admin", "a")
	if f := a.fetch("t", 0, 0, 0); f.code != errNone || len(f.values) != 3 {
		t.Fatalf("super user fetch: code %d, %d records", f.code, len(f.values))
	}
}

func TestACLNeedsSASL(t *testing.T) {
	if _, err := NewCluster(ACL("writer", "t", OpWrite)); !errors.Is(err, ErrBadConfig) {
		t.Fatalf("ACLs without SASL: %v", err)
	}
}
