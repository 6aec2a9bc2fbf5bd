package client_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/protocol"
	"github.com/rollsafe/rollsafe/sim"
)

// requireMetadataAsCluster checks a topic's metadata against the sim's own
// state: every partition's leader, leader epoch, replicas and ISR, and the
// replicas on brokers that are down.
func requireMetadataAsCluster(t *testing.T, c *sim.Cluster, tm client.TopicMetadata, parts int32) {
	t.Helper()
	require.NoError(t, tm.Err, tm.Topic)
	require.Len(t, tm.Partitions, int(parts), tm.Topic)
	for i, pm := range tm.Partitions {
		require.Equal(t, int32(i), pm.Partition)
		leader, epoch := c.Leader(tm.Topic, pm.Partition)
		require.Equal(t, leader, pm.Leader, "%s[%d] leader", tm.Topic, i)
		require.Equal(t, epoch, pm.LeaderEpoch, "%s[%d] leader epoch", tm.Topic, i)
		replicas, err := c.Replicas(tm.Topic, pm.Partition)
		require.NoError(t, err)
		require.Equal(t, replicas, pm.Replicas, "%s[%d] replicas", tm.Topic, i)
		isr, err := c.ISR(tm.Topic, pm.Partition)
		require.NoError(t, err)
		require.ElementsMatch(t, isr, pm.ISR, "%s[%d] ISR", tm.Topic, i)
		var offline []int32
		for _, r := range replicas {
			if !c.BrokerUp(r) {
				offline = append(offline, r)
			}
		}
		require.ElementsMatch(t, offline, pm.Offline, "%s[%d] offline replicas", tm.Topic, i)
		if pm.Leader < 0 {
			require.ErrorIs(t, pm.Err, protocol.ErrLeaderNotAvailable)
		} else {
			require.NoError(t, pm.Err)
		}
	}
}

// TestMetadata: the cluster as the sim holds it, before and after its
// partition leader's broker is killed; an unknown topic is reported in its
// TopicMetadata (and not created); with no topic named, the topics the
// producer has produced to.
func TestMetadata(t *testing.T) {
	c := newCluster(t, 4, sim.Topic("two", 2, 2))
	p := newProducer(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	md, err := p.Metadata(ctx, "t", "missing")
	require.NoError(t, err)
	require.Equal(t, c.ClusterID(), md.ClusterID)
	var addrs []string
	for i, b := range md.Brokers {
		require.Equal(t, int32(i), b.ID)
		addrs = append(addrs, net.JoinHostPort(b.Host, strconv.Itoa(b.Port)))
	}
	require.Equal(t, c.Addrs(), addrs)
	require.Contains(t, md.Brokers, md.From)
	require.GreaterOrEqual(t, md.Controller, int32(0))
	require.Len(t, md.Topics, 2)
	require.Equal(t, "missing", md.Topics[0].Topic)
	require.ErrorIs(t, md.Topics[0].Err, client.ErrUnknownTopic)
	require.ErrorIs(t, md.Topics[0].Err, protocol.ErrUnknownTopicOrPartition)
	require.Empty(t, md.Topics[0].Partitions)
	requireMetadataAsCluster(t, c, md.Topics[1], 4)
	require.NotContains(t, c.Topics(), "missing")

	all, err := p.AllMetadata(ctx)
	require.NoError(t, err)
	require.Len(t, all.Topics, 2)
	require.Equal(t, "t", all.Topics[0].Topic)
	require.Equal(t, "two", all.Topics[1].Topic)
	requireMetadataAsCluster(t, c, all.Topics[1], 2)

	mine, err := p.Metadata(ctx)
	require.NoError(t, err)
	require.Empty(t, mine.Topics, "nothing produced yet")
	require.NoError(t, p.ProduceSync(ctx, &client.Record{Topic: "two", Value: []byte("v")}).FirstErr())
	mine, err = p.Metadata(ctx)
	require.NoError(t, err)
	require.Len(t, mine.Topics, 1)
	require.Equal(t, "two", mine.Topics[0].Topic)

	// Kill partition 0's leader: the answer shows the new leader, the
	// replica offline and the broker gone.
	victim, _ := c.Leader("t", 0)
	require.NoError(t, c.KillBroker(victim))
	md, err = p.Metadata(ctx, "t")
	require.NoError(t, err)
	require.Len(t, md.Brokers, 2)
	for _, b := range md.Brokers {
		require.NotEqual(t, victim, b.ID)
	}
	require.NotEqual(t, victim, md.Topics[0].Partitions[0].Leader)
	requireMetadataAsCluster(t, c, md.Topics[0], 4)
}

// TestMetadataCalls: no broker reachable ends with ctx; after Close,
// ErrClosed at once; a nil context is a background one.
func TestMetadataCalls(t *testing.T) {
	c := newCluster(t, 1)
	p := newProducer(t, c)
	md, err := p.Metadata(nil, "t") // a nil context is what is tested
	require.NoError(t, err)
	require.Len(t, md.Topics, 1)

	for id := range int32(3) {
		require.NoError(t, c.KillBroker(id))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = p.Metadata(ctx, "t")
	require.Error(t, err)
	require.Less(t, time.Since(start), 2*time.Second, "the call outlived its context")
	require.True(t, strings.HasPrefix(err.Error(), "rollsafe: metadata: "), err.Error())
	require.NotContains(t, err.Error(), "\n", "one line")
	_, _, err = p.Watermarks(ctx, "t", 0)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.ErrorIs(t, err, client.ErrBrokersUnreachable)
	require.True(t, strings.HasPrefix(err.Error(), "rollsafe: watermarks of t[0]: "), err.Error())
	require.NotContains(t, err.Error(), "\n", "one line")

	cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer ccancel()
	require.NoError(t, p.Close(cctx))
	_, err = p.Metadata(cctx, "t")
	require.ErrorIs(t, err, client.ErrClosed)
	_, _, err = p.Watermarks(cctx, "t", 0)
	require.ErrorIs(t, err, client.ErrClosed)
	_, err = p.OffsetForTime(cctx, "t", 0, time.Now())
	require.ErrorIs(t, err, client.ErrClosed)
}

// TestWatermarks: the offsets a consumer can read, as the log read back
// shows them, also right after the partition's leader is killed (the
// producer asks the new leader); a topic or partition the cluster lacks is
// a typed error.
func TestWatermarks(t *testing.T) {
	c := newCluster(t, 2)
	p := newProducer(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	low, high, err := p.Watermarks(ctx, "t", 1)
	require.NoError(t, err)
	require.Equal(t, [2]int64{0, 0}, [2]int64{low, high}, "an empty partition")

	const n = 250
	for i := range n {
		p.Produce(ctx, &client.Record{Topic: "t", Partition: 1, HasPartition: true, Value: fmt.Appendf(nil, "v%d", i)}, nil)
	}
	require.NoError(t, p.Flush(ctx))
	values := partitionValues(t, c, "t", 1)
	require.Len(t, values, n)
	low, high, err = p.Watermarks(ctx, "t", 1)
	require.NoError(t, err)
	require.Equal(t, int64(0), low)
	require.Equal(t, int64(len(values)), high, "high watermark against the records read back")

	victim, _ := c.Leader("t", 1)
	require.NoError(t, c.KillBroker(victim))
	low, high, err = p.Watermarks(ctx, "t", 1)
	require.NoError(t, err)
	require.Equal(t, [2]int64{0, n}, [2]int64{low, high}, "from the new leader")
	now, _ := c.Leader("t", 1)
	require.NotEqual(t, victim, now)

	_, _, err = p.Watermarks(ctx, "missing", 0)
	require.ErrorIs(t, err, client.ErrUnknownTopic)
	require.NotErrorIs(t, err, context.DeadlineExceeded)
	_, _, err = p.Watermarks(ctx, "t", 7)
	require.ErrorIs(t, err, client.ErrUnknownPartition)
	_, _, err = p.Watermarks(ctx, "t", -1)
	require.ErrorIs(t, err, client.ErrUnknownPartition)
}

// TestOffsetForTime: the first offset at or after a time, checked against
// the timestamps in the leader's own log; -1 past the last record.
func TestOffsetForTime(t *testing.T) {
	c := newCluster(t, 1)
	p := newProducer(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	base := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	const n = 40
	var recs []*client.Record
	for i := range n {
		// Two records a second, with one step back in time (CreateTime
		// need not rise along the log).
		ts := base.Add(time.Duration(i) * 500 * time.Millisecond)
		if i == 20 {
			ts = base.Add(3 * time.Second)
		}
		recs = append(recs, &client.Record{Topic: "t", Value: fmt.Appendf(nil, "v%d", i), Timestamp: ts})
	}
	require.NoError(t, p.ProduceSync(ctx, recs...).FirstErr())
	batches, err := c.Records("t", 0)
	require.NoError(t, err)
	var stamps []int64
	var offsets []int64
	for _, b := range batches {
		for _, r := range b.Records {
			stamps, offsets = append(stamps, r.Timestamp), append(offsets, r.Offset)
		}
	}
	require.Len(t, stamps, n)
	want := func(at time.Time) int64 {
		for i, ts := range stamps {
			if ts >= at.UnixMilli() {
				return offsets[i]
			}
		}
		return -1
	}
	for _, at := range []time.Time{
		base.Add(-time.Hour), base, base.Add(250 * time.Millisecond), base.Add(3 * time.Second),
		base.Add(3001 * time.Millisecond), base.Add(19500 * time.Millisecond), base.Add(20 * time.Second),
		{}, // the zero time: before every record
	} {
		got, err := p.OffsetForTime(ctx, "t", 0, at)
		require.NoError(t, err, at)
		require.Equal(t, want(at), got, "at %v", at)
	}
	require.Equal(t, int64(-1), want(base.Add(20*time.Second)))
	require.Equal(t, int64(7), want(base.Add(3001*time.Millisecond)), "the fixture as intended")

	_, err = p.OffsetForTime(ctx, "missing", 0, base)
	require.ErrorIs(t, err, client.ErrUnknownTopic)
	require.True(t, errors.Is(err, protocol.ErrUnknownTopicOrPartition))
	require.False(t, slices.Contains(c.Topics(), "missing"))
}
