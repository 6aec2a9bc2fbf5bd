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

// simConn dials broker id of c, closed when the test ends.
func simConn(t *testing.T, ctx context.Context, c *sim.Cluster, id int32) *protocol.Conn {
	t.Helper()
	cn, err := protocol.Dial(ctx, c.Addrs()[id], protocol.ConnConfig{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cn.Close() })
	return cn
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
	conn := func(id int32) *protocol.Conn { return simConn(t, ctx, c, id) }
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

// TestPoolFollowsSimBrokerToNewAddress: broker 1 restarts on a new port
// and broker 2 takes over broker 1's old address (a rescheduled pod's
// address reused). A connection the pool made to the old address before its
// metadata learned of the move is alive — to the wrong broker; after a
// refresh the pool closes it and dials broker 1 where it now is.
func TestPoolFollowsSimBrokerToNewAddress(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := sim.NewCluster(sim.Brokers(3), sim.Topic("t", 1, 3))
	require.NoError(t, err)
	defer c.Close()
	m := protocol.NewMetadata(c.Addrs()[:1], protocol.MetadataConfig{})
	defer m.Close()
	require.NoError(t, m.Refresh(ctx, "t"))
	p := protocol.NewPool(m, protocol.PoolConfig{BackoffMin: time.Millisecond, BackoffMax: 10 * time.Millisecond})
	defer p.Close()
	old := c.Addrs()[1]
	first, err := p.Conn(ctx, 1)
	require.NoError(t, err)

	require.NoError(t, c.StopBroker(1))
	<-first.Done()
	moved, err := c.StartBrokerAt(1, "127.0.0.1:0")
	require.NoError(t, err)
	require.NoError(t, c.StopBroker(2))
	_, err = c.StartBrokerAt(2, old)
	require.NoError(t, err)

	// Stale metadata: the pool redials broker 1's old address and gets
	// broker 2.
	stale, err := p.Conn(ctx, 1)
	require.NoError(t, err)
	require.Equal(t, old, stale.Addr())

	require.NoError(t, m.Refresh(ctx, "t"))
	got, ok := m.Broker(1)
	require.True(t, ok)
	require.Equal(t, moved, got)
	cn, err := p.Conn(ctx, 1)
	require.NoError(t, err)
	require.Equal(t, moved, cn.Addr())
	<-stale.Done()
	_, _, err = protocol.ListOffsets(ctx, cn, "t", 0, protocol.ListEarliest)
	if err != nil {
		// Broker 1 may not lead t/0; a partition answer proves the link.
		require.ErrorIs(t, err, protocol.ErrNotLeaderOrFollower)
	}
}

// TestFetchFollowerAgainstSim: a follower answers a v11+ fetch from its
// own high watermark; a leader-only fetch (v10) is refused there.
func TestFetchFollowerAgainstSim(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := sim.NewCluster(sim.Brokers(2), sim.Topic("t", 1, 2))
	require.NoError(t, err)
	defer c.Close()
	reps, err := c.Replicas("t", 0)
	require.NoError(t, err)
	leader, follower := reps[0], reps[1]
	lc, err := protocol.Dial(ctx, c.Addrs()[leader], protocol.ConnConfig{})
	require.NoError(t, err)
	defer lc.Close()
	fc, err := protocol.Dial(ctx, c.Addrs()[follower], protocol.ConnConfig{})
	require.NoError(t, err)
	defer fc.Close()
	require.Equal(t, int16(0), simProduce(t, ctx, lc, -1, simBatch(-1, -1, -1, 3)).ErrorCode)
	require.NoError(t, c.PauseReplication("t", 0, follower))
	require.Equal(t, int16(0), simProduce(t, ctx, lc, -1, simBatch(-1, -1, -1, 2)).ErrorCode)
	_, epoch := c.Leader("t", 0)

	res, err := protocol.Fetch(ctx, lc, protocol.FetchOptions{Topic: "t", CurrentLeaderEpoch: epoch, LeaderOnly: true})
	require.NoError(t, err)
	require.Equal(t, int64(5), res.HighWatermark)
	res, err = protocol.Fetch(ctx, fc, protocol.FetchOptions{Topic: "t", CurrentLeaderEpoch: epoch})
	require.NoError(t, err)
	require.LessOrEqual(t, res.HighWatermark, int64(3), "the follower's own high watermark")
	_, err = protocol.Fetch(ctx, fc, protocol.FetchOptions{Topic: "t", CurrentLeaderEpoch: epoch, LeaderOnly: true})
	require.ErrorIs(t, err, protocol.ErrNotLeaderOrFollower)
}

// TestListOffsetsNewLeaderAgainstSim: a leader elected while the high
// watermark trails its log end answers OFFSET_NOT_AVAILABLE until its
// followers catch up; a stale epoch is fenced.
func TestListOffsetsNewLeaderAgainstSim(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := sim.NewCluster(sim.Brokers(3), sim.Topic("t", 1, 3))
	require.NoError(t, err)
	defer c.Close()
	reps, err := c.Replicas("t", 0)
	require.NoError(t, err)
	leader, f1, f2 := reps[0], reps[1], reps[2]
	lc, err := protocol.Dial(ctx, c.Addrs()[leader], protocol.ConnConfig{})
	require.NoError(t, err)
	defer lc.Close()
	require.NoError(t, c.SetFollowerLag(f2, time.Hour))
	require.Equal(t, int16(0), simProduce(t, ctx, lc, 1, simBatch(-1, -1, -1, 2)).ErrorCode)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		bs, err := c.ReplicaRecords("t", 0, f1)
		require.NoError(t, err)
		if len(bs) == 1 {
			break
		}
		require.True(t, time.Now().Before(deadline), "f1 never copied")
	}
	_, oldEpoch := c.Leader("t", 0)
	require.NoError(t, c.MoveLeader("t", 0, f1))
	_, epoch := c.Leader("t", 0)
	nc, err := protocol.Dial(ctx, c.Addrs()[f1], protocol.ConnConfig{})
	require.NoError(t, err)
	defer nc.Close()
	_, _, err = protocol.ListOffsetsWith(ctx, nc, protocol.ListOffsetsOptions{Topic: "t", Timestamp: protocol.ListLatest, CurrentLeaderEpoch: epoch})
	require.ErrorIs(t, err, protocol.ErrOffsetNotAvailable)
	require.True(t, protocol.IsRetriable(err))
	_, _, err = protocol.ListOffsetsWith(ctx, nc, protocol.ListOffsetsOptions{Topic: "t", Timestamp: protocol.ListLatest, CurrentLeaderEpoch: oldEpoch})
	require.ErrorIs(t, err, protocol.ErrFencedLeaderEpoch)
	_, _, err = protocol.ListOffsetsWith(ctx, lc, protocol.ListOffsetsOptions{Topic: "t", Timestamp: protocol.ListLatest, CurrentLeaderEpoch: epoch})
	require.ErrorIs(t, err, protocol.ErrNotLeaderOrFollower)

	require.NoError(t, c.SetFollowerLag(f2, 0))
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		off, le, err := protocol.ListOffsetsWith(ctx, nc, protocol.ListOffsetsOptions{Topic: "t", Timestamp: protocol.ListLatest, CurrentLeaderEpoch: epoch})
		if err == nil {
			require.Equal(t, int64(2), off)
			require.Equal(t, oldEpoch, le, "the epoch of the batch before the high watermark")
			break
		}
		require.ErrorIs(t, err, protocol.ErrOffsetNotAvailable)
		require.True(t, time.Now().Before(deadline), "the new leader's high watermark never caught up")
	}
	_, _, err = protocol.ListOffsetsWith(ctx, nil, protocol.ListOffsetsOptions{Topic: "t"})
	require.ErrorIs(t, err, protocol.ErrBadListOffsets)
}

// TestPoolDropsSilentConnOnMove: broker 1 vanishes (its connections stay
// open and silent) and comes back at a new address. A request in flight on
// the pool's connection to the old address fails as soon as a metadata
// refresh shows the move — the outcome unknown — instead of waiting out
// the connection's timeout; the pool then dials the new address.
func TestPoolDropsSilentConnOnMove(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := sim.NewCluster(sim.Brokers(3), sim.Topic("t", 1, 3))
	require.NoError(t, err)
	defer c.Close()
	m := protocol.NewMetadata(c.Addrs()[:1], protocol.MetadataConfig{})
	defer m.Close()
	require.NoError(t, m.Refresh(ctx, "t"))
	p := protocol.NewPool(m, protocol.PoolConfig{Conn: protocol.ConnConfig{RequestTimeout: time.Minute}})
	defer p.Close()
	silent, err := p.Conn(ctx, 1)
	require.NoError(t, err)

	require.NoError(t, c.VanishBroker(1))
	moved, err := c.StartBrokerAt(1, "127.0.0.1:0")
	require.NoError(t, err)
	failed := make(chan error, 1)
	go func() {
		_, _, err := protocol.ListOffsets(ctx, silent, "t", 0, protocol.ListEarliest)
		failed <- err
	}()
	select {
	case err := <-failed:
		t.Fatalf("a vanished broker answered: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	start := time.Now()
	require.NoError(t, m.Refresh(ctx, "t"))
	select {
	case err := <-failed:
		require.ErrorIs(t, err, protocol.ErrConnLostAfterWrite)
	case <-time.After(5 * time.Second):
		t.Fatal("the silent connection outlived the refresh that showed the move")
	}
	t.Logf("request failed %v after the refresh", time.Since(start))
	cn, err := p.Conn(ctx, 1)
	require.NoError(t, err)
	require.Equal(t, moved, cn.Addr())
}

// TestMetadataRefreshSkipsSilentBroker: the view's connection is to a
// broker that vanished (silent, not closed), and the next address it would
// dial is silent too; a refresh asks each for a third of RefreshTimeout and
// gets its answer from the third broker within the refresh.
func TestMetadataRefreshSkipsSilentBroker(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := sim.NewCluster(sim.Brokers(3), sim.Topic("t", 1, 3))
	require.NoError(t, err)
	defer c.Close()
	addrs := c.Addrs()
	m := protocol.NewMetadata(addrs, protocol.MetadataConfig{RefreshTimeout: 3500 * time.Millisecond})
	defer m.Close()
	require.NoError(t, m.Refresh(ctx, "t")) // the view's connection: broker 0, the first address
	require.NoError(t, c.VanishBroker(0))
	require.NoError(t, c.VanishBroker(1))
	require.NoError(t, m.Refresh(ctx, "t"))
	l, _, err := m.Leader("t", 0)
	require.NoError(t, err)
	require.Equal(t, int32(2), l, "the only broker left leads")
}

// TestFetchDeposedLeaderAgainstSim: leadership moves
// from L to F and L stops copying, so F commits batches L never sees. A
// consumer-style fetch without a leader epoch (v11+, CurrentLeaderEpoch
// -1) is answered by L from its own, trailing high watermark — as Kafka
// answers it — which would make the producer's last acknowledged batch
// look missing. rollsafe's reads are leader-only (v10) and carry the
// epoch: L refuses them (FENCED_LEADER_EPOCH with the epoch the producer
// last saw L lead, NOT_LEADER_OR_FOLLOWER with the current one), and only
// F's answer, the whole committed log, is ever used.
func TestFetchDeposedLeaderAgainstSim(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := sim.NewCluster(sim.Brokers(2), sim.Topic("t", 1, 2))
	require.NoError(t, err)
	defer c.Close()
	reps, err := c.Replicas("t", 0)
	require.NoError(t, err)
	l, f := reps[0], reps[1]
	dial := func(id int32) *protocol.Conn {
		cn, err := protocol.Dial(ctx, c.Addrs()[id], protocol.ConnConfig{})
		require.NoError(t, err)
		t.Cleanup(func() { _ = cn.Close() })
		return cn
	}
	lc, fc := dial(l), dial(f)
	require.Equal(t, int16(0), simProduce(t, ctx, lc, -1, simBatch(-1, -1, -1, 3)).ErrorCode)
	_, oldEpoch := c.Leader("t", 0)
	require.NoError(t, c.MoveLeader("t", 0, f))
	require.NoError(t, c.PauseReplication("t", 0, l))
	require.Equal(t, int16(0), simProduce(t, ctx, fc, -1, simBatch(-1, -1, -1, 2)).ErrorCode)
	_, epoch := c.Leader("t", 0)

	stale, err := protocol.Fetch(ctx, lc, protocol.FetchOptions{Topic: "t", CurrentLeaderEpoch: -1})
	require.NoError(t, err, "Kafka answers a v11+ fetch without an epoch from any replica")
	require.Equal(t, int64(3), stale.HighWatermark, "the deposed leader's own high watermark")

	_, err = protocol.Fetch(ctx, lc, protocol.FetchOptions{Topic: "t", CurrentLeaderEpoch: oldEpoch, LeaderOnly: true})
	require.ErrorIs(t, err, protocol.ErrFencedLeaderEpoch)
	_, err = protocol.Fetch(ctx, lc, protocol.FetchOptions{Topic: "t", CurrentLeaderEpoch: epoch, LeaderOnly: true})
	require.ErrorIs(t, err, protocol.ErrNotLeaderOrFollower)
	res, err := protocol.Fetch(ctx, fc, protocol.FetchOptions{Topic: "t", CurrentLeaderEpoch: epoch, LeaderOnly: true})
	require.NoError(t, err)
	require.Equal(t, int64(5), res.HighWatermark)
}
