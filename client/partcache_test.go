package client_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client"
)

// A topic that grows from 3 to 6 partitions between records: once the
// producer's metadata knows the new count, keyed records go to all six (the
// key's hash over six, as every Kafka client places them), and the log read
// back holds every record acknowledged, once, in order, where its callback
// said.
func TestPartitionsGrow(t *testing.T) {
	c := newCluster(t, 3)
	p := newProducer(t, c, client.MetadataMaxAge(50*time.Millisecond))
	r := newRun()
	ctx := context.Background()

	r.produce(ctx, t, p, "t", "before", 600, 60)
	require.NoError(t, p.Flush(ctx))
	require.NoError(t, c.AddPartitions("t", 6))

	// Until the producer has seen the new count, records go to the first
	// three; keep producing until all six take records.
	deadline := time.Now().Add(10 * time.Second)
	for round := 0; ; round++ {
		require.True(t, time.Now().Before(deadline), "records never reached the new partitions")
		prefix := fmt.Sprintf("grow%d", round)
		r.produce(ctx, t, p, "t", prefix, 120, 60)
		r.wg.Wait()
		r.mu.Lock()
		seen := map[int32]bool{}
		for _, pr := range r.produced[len(r.produced)-120:] {
			require.True(t, pr.Acked, "%s not acknowledged", pr.ID)
			seen[pr.Partition] = true
		}
		r.mu.Unlock()
		if len(seen) == 6 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	r.produce(ctx, t, p, "t", "after", 600, 60)
	require.NoError(t, p.Flush(ctx))

	r.mu.Lock()
	before, after := 0, 0
	for _, pr := range r.produced {
		require.True(t, pr.Acked, "%s not acknowledged", pr.ID)
		prefix, i, _ := strings.Cut(pr.ID, "-")
		n, err := strconv.Atoi(i)
		require.NoError(t, err)
		key := []byte(fmt.Sprintf("k%d", n%60))
		switch prefix {
		case "before":
			before++
			require.Equal(t, client.KeyPartition(key, 3), pr.Partition, "%s", pr.ID)
		case "after":
			after++
			require.Equal(t, client.KeyPartition(key, 6), pr.Partition, "%s", pr.ID)
		}
	}
	r.mu.Unlock()
	require.Equal(t, 600, before)
	require.Equal(t, 600, after)
	rep := r.verify(t, c, "t")
	require.Equal(t, len(r.produced), rep.Acked)
	for part := int32(3); part < 6; part++ {
		require.NotEmpty(t, partitionValues(t, c, "t", part), "partition %d got no records", part)
	}
}
