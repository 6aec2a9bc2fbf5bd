package protocol

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

func describeResponder(code int16, producers ...kmsg.DescribeProducersResponseTopicPartitionActiveProducer) func(kmsg.Request) kmsg.Response {
	return func(req kmsg.Request) kmsg.Response {
		r, ok := req.(*kmsg.DescribeProducersRequest)
		if !ok {
			return nil
		}
		resp := r.ResponseKind().(*kmsg.DescribeProducersResponse)
		for _, rt := range r.Topics {
			t := kmsg.NewDescribeProducersResponseTopic()
			t.Topic = rt.Topic
			for _, p := range rt.Partitions {
				rp := kmsg.NewDescribeProducersResponseTopicPartition()
				rp.Partition, rp.ErrorCode = p, code
				if code == 0 {
					rp.ActiveProducers = producers
				}
				t.Partitions = append(t.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, t)
		}
		return resp
	}
}

func activeProducer(pid int64, epoch, lastSeq int32) kmsg.DescribeProducersResponseTopicPartitionActiveProducer {
	ap := kmsg.NewDescribeProducersResponseTopicPartitionActiveProducer()
	ap.ProducerID, ap.ProducerEpoch, ap.LastSequence = pid, epoch, lastSeq
	ap.LastTimestamp, ap.CoordinatorEpoch, ap.CurrentTxnStartOffset = 1700000000000, -1, -1
	return ap
}

func TestDescribeProducers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	f := newFakeBroker(t)
	f.handle = describeResponder(0, activeProducer(1000, 3, 41), activeProducer(2000, 0, 4))
	c := pipeConn(t, f, ConnConfig{})
	got, err := DescribeProducers(ctx, c, "t", 4)
	require.NoError(t, err)
	require.Equal(t, []ProducerState{
		{ProducerID: 1000, ProducerEpoch: 3, LastSequence: 41, LastTimestamp: 1700000000000, CoordinatorEpoch: -1, CurrentTxnStartOffset: -1},
		{ProducerID: 2000, ProducerEpoch: 0, LastSequence: 4, LastTimestamp: 1700000000000, CoordinatorEpoch: -1, CurrentTxnStartOffset: -1},
	}, got)
	s, ok := Producer(got, 2000)
	require.True(t, ok)
	require.Equal(t, int32(4), s.LastSequence)
	_, ok = Producer(got, 3000)
	require.False(t, ok)
}

func TestDescribeProducersErrors(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	_, err := DescribeProducers(ctx, nil, "t", 0)
	require.ErrorIs(t, err, ErrBadDescribe)

	f := newFakeBroker(t)
	f.handle = describeResponder(int16(kafkaerr.NotLeaderOrFollower))
	c := pipeConn(t, f, ConnConfig{})
	_, err = DescribeProducers(ctx, c, "", 0)
	require.ErrorIs(t, err, ErrBadDescribe)
	_, err = DescribeProducers(ctx, c, "t", 1)
	require.ErrorIs(t, err, ErrNotLeaderOrFollower)
	var ke *KafkaError
	require.ErrorAs(t, err, &ke)
	require.Equal(t, "t", ke.Topic)
	require.Equal(t, int32(1), ke.Partition)

	// A broker before Kafka 2.8 does not advertise API 61.
	old := newFakeBroker(t)
	old.versions = map[int16]VersionRange{1: {4, 12}, 18: {0, 3}}
	old.handle = describeResponder(0)
	co := pipeConn(t, old, ConnConfig{})
	_, err = DescribeProducers(ctx, co, "t", 0)
	require.ErrorIs(t, err, ErrUnsupportedVersion)
	require.ErrorIs(t, err, ErrNotWritten)
	var ve *VersionError
	require.ErrorAs(t, err, &ve)
	require.False(t, ve.BrokerHas)

	// An epoch outside int16 or a missing partition is malformed.
	bad := newFakeBroker(t)
	bad.handle = describeResponder(0, activeProducer(1, 1<<20, 0))
	cb := pipeConn(t, bad, ConnConfig{})
	_, err = DescribeProducers(ctx, cb, "t", 0)
	require.ErrorIs(t, err, ErrMalformedResponse)
	none := newFakeBroker(t)
	none.handle = func(req kmsg.Request) kmsg.Response {
		if r, ok := req.(*kmsg.DescribeProducersRequest); ok {
			return r.ResponseKind()
		}
		return nil
	}
	cn := pipeConn(t, none, ConnConfig{})
	_, err = DescribeProducers(ctx, cn, "t", 0)
	require.ErrorIs(t, err, ErrMalformedResponse)
}
