package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client"
)

func TestProduceReadBack(t *testing.T) {
	c := newCluster(t, 6)
	p := newProducer(t, c)
	r := newRun()
	ctx := context.Background()
	r.produce(ctx, t, p, "t", "a", 5000, 50)
	require.NoError(t, p.Flush(ctx))
	rep := r.verify(t, c, "t")
	require.Equal(t, 5000, rep.Acked)
}

func TestProduceSyncOffsets(t *testing.T) {
	c := newCluster(t, 2)
	p := newProducer(t, c)
	res := p.ProduceSync(context.Background(),
		&client.Record{Topic: "t", Partition: 1, HasPartition: true, Value: []byte("x")},
		&client.Record{Topic: "t", Partition: 1, HasPartition: true, Value: []byte("y")},
	)
	require.NoError(t, res.FirstErr())
	require.Equal(t, int64(0), res[0].Record.Offset)
	require.Equal(t, int64(1), res[1].Record.Offset)
}

func TestLeaderMovesDuringProduce(t *testing.T) {
	c := newCluster(t, 4)
	p := newProducer(t, c)
	r := newRun()
	ctx := context.Background()
	stop := make(chan struct{})
	moved := make(chan int)
	go func() {
		n := 0
		defer func() { moved <- n }()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(3 * time.Millisecond):
			}
			part := int32(i % 4)
			leader, _ := c.Leader("t", part)
			if c.MoveLeader("t", part, (leader+1)%3) == nil {
				n++
			}
		}
	}()
	r.produce(ctx, t, p, "t", "m", 20000, 64)
	require.NoError(t, p.Flush(ctx))
	close(stop)
	t.Logf("leader moves: %d", <-moved)
	r.verify(t, c, "t")
}
