package protocol_test

import (
	"context"
	"encoding/binary"
	"hash/crc32"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/protocol"
	"github.com/rollsafe/rollsafe/sim"
)

// simBatch is an uncompressed v2 batch of n records from pid at seq.
func simBatch(pid int64, epoch int16, seq int32, n int) []byte {
	var recs []byte
	for i := range n {
		r := kmsg.Record{OffsetDelta: int32(i), Key: []byte("k"), Value: []byte("v")}
		body := r.AppendTo(nil)[1:]
		recs = binary.AppendVarint(recs, int64(len(body)))
		recs = append(recs, body...)
	}
	b := kmsg.RecordBatch{
		Length: int32(49 + len(recs)), PartitionLeaderEpoch: -1, Magic: 2,
		LastOffsetDelta: int32(n - 1), FirstTimestamp: 5000, MaxTimestamp: 5000,
		ProducerID: pid, ProducerEpoch: epoch, FirstSequence: seq, NumRecords: int32(n), Records: recs,
	}
	raw := b.AppendTo(nil)
	binary.BigEndian.PutUint32(raw[17:], crc32.Checksum(raw[21:], crc32.MakeTable(crc32.Castagnoli)))
	return raw
}

func simProduce(t *testing.T, ctx context.Context, c *protocol.Conn, acks int16, raw []byte) kmsg.ProduceResponseTopicPartition {
	t.Helper()
	req := kmsg.NewPtrProduceRequest()
	req.Acks, req.TimeoutMillis = acks, 5000
	rt := kmsg.NewProduceRequestTopic()
	rt.Topic = "t"
	rp := kmsg.NewProduceRequestTopicPartition()
	rp.Records = raw
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	resp, err := c.Request(ctx, req)
	require.NoError(t, err)
	return resp.(*kmsg.ProduceResponse).Topics[0].Partitions[0]
}

func TestDescribeProducersAgainstSim(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := sim.NewCluster(sim.Brokers(3), sim.Topic("t", 1, 2))
	require.NoError(t, err)
	defer c.Close()
	reps, err := c.Replicas("t", 0)
	require.NoError(t, err)
	leader, follower, other := reps[0], reps[1], 3-reps[0]-reps[1]
	// Two elections, so that an older epoch than the current exists.
	require.NoError(t, c.MoveLeader("t", 0, follower))
	require.NoError(t, c.MoveLeader("t", 0, leader))
	_, epoch := c.Leader("t", 0)
	require.Equal(t, int32(2), epoch)
	conn := func(id int32) *protocol.Conn {
		cn, err := protocol.Dial(ctx, c.Addrs()[id], protocol.ConnConfig{})
		require.NoError(t, err)
		t.Cleanup(func() { _ = cn.Close() })
		return cn
	}
	lc := conn(leader)
	require.Equal(t, int16(0), simProduce(t, ctx, lc, -1, simBatch(42, 3, 0, 4)).ErrorCode)
	// The follower stops copying: the next batch is only on the leader.
	require.NoError(t, c.SetFollowerLag(follower, time.Hour))
	require.Equal(t, int16(0), simProduce(t, ctx, lc, 1, simBatch(42, 3, 4, 2)).ErrorCode)

	got, err := protocol.DescribeProducers(ctx, lc, "t", 0)
	require.NoError(t, err)
	require.Equal(t, []protocol.ProducerState{{ProducerID: 42, ProducerEpoch: 3, LastSequence: 5,
		LastTimestamp: 5000, CoordinatorEpoch: -1, CurrentTxnStartOffset: -1}}, got)

	// A tail read of the leader with its epoch stops at the high watermark.
	res, err := protocol.Fetch(ctx, lc, protocol.FetchOptions{Topic: "t", Offset: 0, CurrentLeaderEpoch: epoch})
	require.NoError(t, err)
	require.Equal(t, int64(4), res.HighWatermark)
	_, err = protocol.Fetch(ctx, lc, protocol.FetchOptions{Topic: "t", Offset: 0, CurrentLeaderEpoch: epoch - 1})
	require.ErrorIs(t, err, protocol.ErrFencedLeaderEpoch)
	_, err = protocol.Fetch(ctx, lc, protocol.FetchOptions{Topic: "t", Offset: 0, CurrentLeaderEpoch: epoch + 1})
	require.ErrorIs(t, err, protocol.ErrUnknownLeaderEpoch)

	fs, err := protocol.DescribeProducers(ctx, conn(follower), "t", 0)
	require.NoError(t, err)
	require.Len(t, fs, 1)
	require.Equal(t, int32(3), fs[0].LastSequence, "a follower answers with its own state")

	_, err = protocol.DescribeProducers(ctx, conn(other), "t", 0)
	require.ErrorIs(t, err, protocol.ErrNotLeaderOrFollower)
	_, err = protocol.DescribeProducers(ctx, lc, "t", 5)
	require.ErrorIs(t, err, protocol.ErrUnknownTopicOrPartition)
}

func TestDescribeProducersOldSimBroker(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := sim.NewCluster(sim.Topic("t", 1, 1), sim.WithoutDescribeProducers())
	require.NoError(t, err)
	defer c.Close()
	cn, err := protocol.Dial(ctx, c.Addrs()[0], protocol.ConnConfig{})
	require.NoError(t, err)
	defer cn.Close()
	_, err = protocol.DescribeProducers(ctx, cn, "t", 0)
	require.ErrorIs(t, err, protocol.ErrUnsupportedVersion)
	require.ErrorIs(t, err, protocol.ErrNotWritten)
}
