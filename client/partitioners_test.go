package client_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/client/readback"
)

// With partition 0's leader stalled (its next append held a second) and
// 100 records waiting there, least-backup gives none of 150 unkeyed
// records to partition 0 (round-robin would give it 50) and shares them
// between the partitions that answer; the log read back holds every
// record once, in order.
func TestLeastBackupAvoidsStalledPartition(t *testing.T) {
	c := newCluster(t, 3)
	l0, _ := c.Leader("t", 0)
	l1, _ := c.Leader("t", 1)
	l2, _ := c.Leader("t", 2)
	require.True(t, l0 != l1 && l0 != l2, "partition 0's leader leads no other partition (%d %d %d)", l0, l1, l2)
	p := newProducer(t, c, client.WithPartitioner(client.LeastBackupPartitioner()))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r := newRun()
	for part := range int32(3) {
		id := fmt.Sprintf("warm-%d", part)
		r.index[id] = len(r.produced)
		r.produced = append(r.produced, readback.Produced{ID: id, Offset: -1})
		r.wg.Add(1)
		p.Produce(ctx, &client.Record{Topic: "t", Partition: part, HasPartition: true, Value: []byte(id)}, r.done)
	}
	require.NoError(t, p.Flush(ctx))
	require.NoError(t, c.DelayProcessing("t", 0, 1, time.Second))
	for i := range 100 {
		id := fmt.Sprintf("stalled-%d", i)
		r.index[id] = len(r.produced)
		r.produced = append(r.produced, readback.Produced{ID: id, Offset: -1})
		r.wg.Add(1)
		p.Produce(ctx, &client.Record{Topic: "t", Partition: 0, HasPartition: true, Value: []byte(id)}, r.done)
	}
	counts := map[int32]int{}
	var placed []*client.Record
	for i := range 150 {
		id := fmt.Sprintf("lb-%d", i)
		rec := &client.Record{Topic: "t", Value: []byte(id)}
		r.mu.Lock()
		r.index[id] = len(r.produced)
		r.produced = append(r.produced, readback.Produced{ID: id, Offset: -1})
		r.mu.Unlock()
		r.wg.Add(1)
		p.Produce(ctx, rec, r.done)
		placed = append(placed, rec)
		if i%10 == 9 {
			time.Sleep(2 * time.Millisecond)
		}
	}
	require.NoError(t, p.Flush(ctx))
	for _, rec := range placed {
		counts[rec.Partition]++
	}
	require.Zero(t, counts[0], "records placed on the stalled partition: %v", counts)
	require.Greater(t, counts[1], 30, "%v", counts)
	require.Greater(t, counts[2], 30, "%v", counts)
	r.verify(t, c, "t")
}
