package protocol_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/protocol"
	"github.com/rollsafe/rollsafe/sim"
)

// TestEndOffsetAboveHighWatermark: the leader's end offset counts a batch
// it appended but no follower copied, which ListOffsets (the high
// watermark) does not; a stale epoch or a follower is refused.
func TestEndOffsetAboveHighWatermark(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := sim.NewCluster(sim.Brokers(2), sim.Topic("t", 1, 2))
	require.NoError(t, err)
	defer c.Close()
	reps, err := c.Replicas("t", 0)
	require.NoError(t, err)
	leader, follower := reps[0], reps[1]
	_, epoch := c.Leader("t", 0)
	conn := func(id int32) *protocol.Conn { return simConn(t, ctx, c, id) }
	lc := conn(leader)
	require.Equal(t, int16(0), simProduce(t, ctx, lc, -1, simBatch(42, 0, 0, 4)).ErrorCode)
	require.NoError(t, c.SetFollowerLag(follower, time.Hour))
	require.Equal(t, int16(0), simProduce(t, ctx, lc, 1, simBatch(42, 0, 4, 3)).ErrorCode)

	hw, _, err := protocol.ListOffsets(ctx, lc, "t", 0, protocol.ListLatest)
	require.NoError(t, err)
	require.Equal(t, int64(4), hw)
	end, err := protocol.EndOffset(ctx, lc, "t", 0, epoch)
	require.NoError(t, err)
	require.Equal(t, int64(7), end)

	_, err = protocol.EndOffset(ctx, lc, "t", 0, epoch+1)
	require.Error(t, err)
	_, err = protocol.EndOffset(ctx, conn(follower), "t", 0, epoch)
	require.ErrorIs(t, err, protocol.ErrNotLeaderOrFollower)

	_, err = protocol.EndOffset(ctx, nil, "t", 0, epoch)
	require.True(t, errors.Is(err, protocol.ErrBadEndOffset))
	_, err = protocol.EndOffset(ctx, lc, "t", 0, -1)
	require.True(t, errors.Is(err, protocol.ErrBadEndOffset))
}
