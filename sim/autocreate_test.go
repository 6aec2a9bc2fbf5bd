package sim

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func metadataFor(version int16, allow bool, topics ...string) *kmsg.MetadataRequest {
	req := kmsg.NewPtrMetadataRequest()
	req.SetVersion(version)
	req.AllowAutoTopicCreation = allow
	for _, name := range topics {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(name)
		req.Topics = append(req.Topics, rt)
	}
	return req
}

// TestAutoCreateTopics: with AutoCreateTopics, a Metadata request creates
// a topic it names as Kafka's auto.create.topics.enable does — when v4+
// allows it, or always before v4 — answering LEADER_NOT_AVAILABLE and then
// the partitions; an illegal name is INVALID_TOPIC_EXCEPTION. Without the
// option nothing is created.
func TestAutoCreateTopics(t *testing.T) {
	c := newTestCluster(t, Brokers(3), AutoCreateTopics(4, 2))
	tc := dial(t, c.Addrs()[0])
	topicErr := func(r kmsg.Response) (int16, int) {
		mt := r.(*kmsg.MetadataResponse).Topics[0]
		return mt.ErrorCode, len(mt.Partitions)
	}

	code, _ := topicErr(tc.do(metadataFor(12, false, "orders")))
	require.Equal(t, errUnknownTopicOrPartition, code, "v4+ without allow_auto_topic_creation")
	code, _ = topicErr(tc.do(metadataFor(12, true, "orders")))
	require.Equal(t, errLeaderNotAvailable, code, "the creating answer")
	code, n := topicErr(tc.do(metadataFor(12, false, "orders")))
	require.Equal(t, int16(0), code)
	require.Equal(t, 4, n)
	for _, p := range tc.do(metadataFor(12, false, "orders")).(*kmsg.MetadataResponse).Topics[0].Partitions {
		require.Len(t, p.Replicas, 2)
	}

	code, _ = topicErr(tc.do(metadataFor(3, false, "legacy")))
	require.Equal(t, errLeaderNotAvailable, code, "before v4 a request always allows creation")
	code, _ = topicErr(tc.do(metadataFor(12, true, "bad/name")))
	require.Equal(t, errInvalidTopicException, code)

	// The topic takes records (on a partition broker 0 leads).
	lead := int32(-1)
	for _, p := range tc.do(metadataFor(12, false, "orders")).(*kmsg.MetadataResponse).Topics[0].Partitions {
		if p.Leader == 0 {
			lead = p.Partition
		}
	}
	require.GreaterOrEqual(t, lead, int32(0))
	p := tc.produce("orders", lead, -1, makeBatch(t, spec{pid: -1, epoch: -1, seq: -1, values: vals("v", 2)}))
	require.Equal(t, int16(0), p.ErrorCode)

	off := newTestCluster(t, Brokers(1))
	code, _ = topicErr(dial(t, off.Addrs()[0]).do(metadataFor(12, true, "orders")))
	require.Equal(t, errUnknownTopicOrPartition, code, "auto-creation is off by default")
}
