package bench

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/rollsafe/rollsafe/client"
)

// TestClientKfakeLeaderMoves: rollsafe's producer writes 100,000 records to
// kfake (an independent broker implementation) while partition leaders
// move every few milliseconds, and kgo's consumer reads every record back
// exactly once, in the order produced within each partition, at the offset
// the producer reported.
func TestClientKfakeLeaderMoves(t *testing.T) {
	const (
		topic      = "moves"
		partitions = 6
		records    = 100_000
	)
	c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(partitions, topic))
	require.NoError(t, err)
	defer c.Close()

	p, err := client.NewProducer(client.Brokers(c.ListenAddrs()...), client.Linger(time.Millisecond), client.BatchBytes(16<<10))
	require.NoError(t, err)

	stop := make(chan struct{})
	var moves atomic.Int64
	var movers sync.WaitGroup
	movers.Add(1)
	go func() {
		defer movers.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(3 * time.Millisecond):
			}
			part := int32(i % partitions)
			if c.MoveTopicPartition(topic, part, (c.LeaderFor(topic, part)+1)%3) == nil {
				moves.Add(1)
			}
		}
	}()

	type ack struct {
		partition int32
		offset    int64
	}
	acks := make([]ack, records)
	var failed atomic.Int64
	var wg sync.WaitGroup
	wg.Add(records)
	ctx := context.Background()
	for i := 0; i < records; i++ {
		rec := &client.Record{Topic: topic, Key: []byte("k" + strconv.Itoa(i%97)), Value: []byte(strconv.Itoa(i))}
		p.Produce(ctx, rec, func(r *client.Record, err error) {
			defer wg.Done()
			if err != nil {
				failed.Add(1)
				return
			}
			n, _ := strconv.Atoi(string(r.Value))
			acks[n] = ack{r.Partition, r.Offset}
		})
	}
	wg.Wait()
	close(stop)
	movers.Wait()
	closeCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	require.NoError(t, p.Close(closeCtx))
	cancel()
	require.Zero(t, failed.Load(), "every record acknowledged")
	require.Positive(t, moves.Load(), "leaders moved")
	t.Logf("leader moves while producing: %d", moves.Load())

	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	require.NoError(t, err)
	defer cl.Close()
	seen := make([]bool, records)
	lastIndex := map[int32]int{}
	got := 0
	readCtx, cancelRead := context.WithTimeout(ctx, 60*time.Second)
	defer cancelRead()
	for got < records {
		fs := cl.PollFetches(readCtx)
		require.NoError(t, readCtx.Err(), "read %d of %d", got, records)
		fs.EachError(func(_ string, _ int32, err error) { t.Fatalf("fetch: %v", err) })
		fs.EachRecord(func(r *kgo.Record) {
			n, err := strconv.Atoi(string(r.Value))
			require.NoError(t, err)
			require.False(t, seen[n], "record %d read twice", n)
			seen[n] = true
			got++
			require.Equal(t, acks[n], ack{r.Partition, r.Offset}, "record %d at the acknowledged place", n)
			if last, ok := lastIndex[r.Partition]; ok {
				require.Greater(t, n, last, fmt.Sprintf("partition %d order", r.Partition))
			}
			lastIndex[r.Partition] = n
		})
	}
}
