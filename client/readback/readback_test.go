package readback_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/sim"
)

// A leader that moves while the topic is read (the reader's metadata
// older than the move: the old leader answers NOT_LEADER_OR_FOLLOWER) does
// not end the read: it goes on at the new leader, every record read once.
func TestScanFollowsALeaderThatMoved(t *testing.T) {
	c, err := sim.NewCluster(sim.Brokers(3), sim.Topic("t", 2, 3))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := client.NewProducer(client.Brokers(c.Addrs()...))
	require.NoError(t, err)
	var rs []*client.Record
	for i := range 20 {
		rs = append(rs, &client.Record{Topic: "t", Partition: int32(i % 2), HasPartition: true, Value: fmt.Appendf(nil, "v%d", i)})
	}
	require.NoError(t, p.ProduceSync(ctx, rs...).FirstErr())
	require.NoError(t, p.Close(ctx))

	moved := false
	seen := map[string]int{}
	err = readback.Scan(ctx, c.Addrs(), "t", func(r readback.Record) error {
		seen[string(r.Value)]++
		if !moved {
			// Partition 1 changes leader after the reader's metadata.
			leader, _ := c.Leader("t", 1)
			require.NoError(t, c.MoveLeader("t", 1, (leader+1)%3))
			moved = true
		}
		return nil
	})
	require.NoError(t, err)
	require.True(t, moved)
	require.Len(t, seen, 20)
	for v, n := range seen {
		require.Equal(t, 1, n, "%s read %d times", v, n)
	}
}
