package protocol

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A watcher has every refresh's snapshot, in order, before the refresh's
// outcome can be read from the view; a snapshot never changes, and a
// leader hint gives its caller the next one.
func TestMetadataSnapshots(t *testing.T) {
	_, cf := newCluster(t)
	m := NewMetadata([]string{cf.addr}, MetadataConfig{Conn: ConnConfig{DialTimeout: time.Second}})
	defer m.Close()

	var got []*Snapshot
	m.Watch(func(s *Snapshot) {
		// The view is locked: nothing of this refresh is readable yet.
		require.False(t, m.mu.TryRLock(), "watcher called without the view locked")
		got = append(got, s)
	})
	var none *Snapshot
	_, _, _, err := none.LeaderIn("orders", 0)
	var ute *UnknownTopicError
	require.ErrorAs(t, err, &ute)

	ctx := context.Background()
	require.NoError(t, m.Refresh(ctx, "orders"))
	require.Len(t, got, 1)
	first := got[0]
	require.Same(t, first, m.Snapshot())
	id, epoch, inc, err := first.LeaderIn("orders", 1)
	require.NoError(t, err)
	require.EqualValues(t, 1, id)
	require.EqualValues(t, 3, epoch)
	require.Equal(t, m.Incarnation("orders"), inc)
	n, err := first.Partitions("orders")
	require.NoError(t, err)
	require.EqualValues(t, 3, n)
	_, _, _, err = first.LeaderIn("orders", 2)
	require.ErrorIs(t, err, ErrLeaderNotAvailable)
	_, ok := first.Broker(1)
	require.True(t, ok)

	after := m.ApplyLeaderHints(
		LeaderHint{Topic: "orders", Partition: 0, Leader: 2, LeaderEpoch: 4, Addr: "127.0.0.1:9999"},
		LeaderHint{Topic: "orders", Partition: 1, Leader: 2, LeaderEpoch: 2}, // older: ignored
		LeaderHint{Topic: "nope", Partition: 0, Leader: 2, LeaderEpoch: 9},   // unknown: ignored
	)
	require.Len(t, got, 1, "a hint's snapshot went to the watchers")
	require.Greater(t, after.Seq(), first.Seq())
	require.Same(t, after, m.Snapshot())
	id, epoch, _, err = after.LeaderIn("orders", 0)
	require.NoError(t, err)
	require.EqualValues(t, 2, id)
	require.EqualValues(t, 4, epoch)
	id, _, _, _ = after.LeaderIn("orders", 1)
	require.EqualValues(t, 1, id)
	addr, ok := after.Broker(2)
	require.True(t, ok)
	require.Equal(t, "127.0.0.1:9999", addr)

	// The earlier snapshot is as it was.
	id, epoch, _, _ = first.LeaderIn("orders", 0)
	require.EqualValues(t, 1, id)
	require.EqualValues(t, 3, epoch)
	_, ok = first.Broker(2)
	require.False(t, ok)

	require.NoError(t, m.Refresh(ctx))
	require.Len(t, got, 2)
	require.Greater(t, got[1].Seq(), after.Seq())
	id, _, _, _ = got[1].LeaderIn("orders", 0) // the refresh's epoch 3 < 4
	require.EqualValues(t, 2, id)
}
