package client_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/sim"
)

// purgeRun is a producer's records on one partition with their outcomes.
type purgeRun struct {
	mu   sync.Mutex
	errs map[string]error // by value; nil: acknowledged
	wg   sync.WaitGroup
	seq  []string
	offs map[string]int64
}

func (pr *purgeRun) produce(ctx context.Context, p *client.Producer, prefix string, n int) {
	for i := range n {
		v := fmt.Sprintf("%s-%d", prefix, i)
		pr.mu.Lock()
		pr.seq = append(pr.seq, v)
		pr.mu.Unlock()
		pr.wg.Add(1)
		p.Produce(ctx, &client.Record{Topic: "t", Partition: 0, HasPartition: true, Value: []byte(v)}, func(r *client.Record, err error) {
			defer pr.wg.Done()
			pr.mu.Lock()
			defer pr.mu.Unlock()
			pr.errs[v] = err
			if err == nil {
				pr.offs[v] = r.Offset
			}
		})
	}
}

// check reads partition 0 back: every acknowledged record exactly once at
// its offset and in order, every record reported not written absent.
func (pr *purgeRun) check(t *testing.T, c *sim.Cluster) (acked, notWritten, unknown int) {
	t.Helper()
	pr.wg.Wait()
	var produced []readback.Produced
	for _, v := range pr.seq {
		err := pr.errs[v]
		rec := readback.Produced{ID: v, Partition: 0, Offset: -1, Acked: err == nil, NotWritten: errors.Is(err, client.ErrNotWritten)}
		switch {
		case err == nil:
			rec.Offset = pr.offs[v]
			acked++
		case errors.Is(err, client.ErrNotWritten):
			notWritten++
		default:
			require.ErrorIs(t, err, client.ErrOutcomeUnknown, v)
			unknown++
		}
		produced = append(produced, rec)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	log, err := readback.ReadTopic(ctx, c.Addrs(), "t")
	require.NoError(t, err)
	rep := readback.Check(log, produced, func(r readback.Record) string { return string(r.Value) })
	require.True(t, rep.OK(), "%s", rep)
	return acked, notWritten, unknown
}

// TestPurge: with one request in flight (its append held by the leader)
// and records queued behind it, PurgeQueued fails the queued ones not
// written at once, PurgeInFlight the one in flight, outcome unknown (the
// queue then goes on behind it). The producer goes on, and the log read
// back holds no purged-not-written record and every acknowledged one
// once, in order.
func TestPurge(t *testing.T) {
	for _, what := range []client.PurgeFlags{client.PurgeQueued, client.PurgeQueued | client.PurgeInFlight, client.PurgeInFlight} {
		queued, inFlight := what&client.PurgeQueued != 0, what&client.PurgeInFlight != 0
		t.Run(fmt.Sprintf("queued=%v/inFlight=%v", queued, inFlight), func(t *testing.T) {
			c := newCluster(t, 1)
			p := newProducer(t, c, client.MaxInFlight(1), client.BatchRecords(10))
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			require.NoError(t, p.ProduceSync(ctx, &client.Record{Topic: "t", Partition: 0, HasPartition: true, Value: []byte("warm")}).FirstErr())

			pr := &purgeRun{errs: map[string]error{}, offs: map[string]int64{}}
			pr.seq = append(pr.seq, "warm") // acknowledged above
			pr.errs["warm"], pr.offs["warm"] = nil, 0
			require.NoError(t, c.DelayProcessing("t", 0, 1, 1500*time.Millisecond))
			pr.produce(ctx, p, "held", 10) // one batch: its append waits at the leader
			time.Sleep(200 * time.Millisecond)
			pr.produce(ctx, p, "queued", 95) // ten batches behind it, one in flight at most

			start := time.Now()
			require.NoError(t, p.Purge(ctx, what))
			took := time.Since(start)
			require.Less(t, took, time.Second, "Purge waited for the cluster")
			// The purged records' callbacks were queued when Purge
			// returned; they run at once, long before the held append
			// ends.
			last := "held-9"
			if queued {
				last = "queued-94"
			}
			var errs map[string]error
			for wait := time.Now(); ; time.Sleep(5 * time.Millisecond) {
				pr.mu.Lock()
				errs = maps.Clone(pr.errs)
				pr.mu.Unlock()
				if _, ok := errs[last]; ok || time.Since(wait) > 500*time.Millisecond {
					break
				}
			}
			for i := range 95 {
				err, ok := errs[fmt.Sprintf("queued-%d", i)]
				require.Equal(t, queued, ok, "queued-%d called back soon after Purge returned: %v", i, err)
				if queued {
					require.ErrorIs(t, err, client.ErrPurged)
					require.ErrorIs(t, err, client.ErrNotWritten)
				}
			}
			for i := range 10 {
				err, ok := errs[fmt.Sprintf("held-%d", i)]
				require.Equal(t, inFlight, ok, "held-%d (in flight) called back: %v", i, err)
				if inFlight {
					require.ErrorIs(t, err, client.ErrPurged)
					require.ErrorIs(t, err, client.ErrOutcomeUnknown)
					require.NotErrorIs(t, err, client.ErrNotWritten)
				}
			}

			pr.produce(ctx, p, "after", 30)
			require.NoError(t, p.Flush(ctx))
			acked, notWritten, unknown := pr.check(t, c)
			switch {
			case queued && inFlight:
				require.Equal(t, [3]int{31, 95, 10}, [3]int{acked, notWritten, unknown})
			case queued:
				require.Equal(t, [3]int{41, 95, 0}, [3]int{acked, notWritten, unknown})
			default:
				require.Equal(t, [3]int{126, 0, 10}, [3]int{acked, notWritten, unknown})
			}
			if inFlight {
				// The held request was appended all the same, once.
				require.Contains(t, partitionValues(t, c, "t", 0), "held-0")
			}
		})
	}
}

// TestPurgeHeld: records waiting for a topic's metadata are purged at
// once; after Close, Purge says ErrClosed.
func TestPurgeHeld(t *testing.T) {
	c := newCluster(t, 1)
	p := newProducer(t, c, client.UnknownTopicWait(time.Minute))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		p.Produce(ctx, &client.Record{Topic: "not-yet", Value: fmt.Appendf(nil, "%d", i)}, func(_ *client.Record, err error) {
			defer wg.Done()
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		})
	}
	n, _ := p.Buffered()
	require.Equal(t, 20, n)
	start := time.Now()
	require.NoError(t, p.Purge(ctx, client.PurgeQueued))
	wg.Wait()
	require.Less(t, time.Since(start), 2*time.Second)
	require.Len(t, errs, 20)
	for _, err := range errs {
		require.ErrorIs(t, err, client.ErrPurged)
		require.ErrorIs(t, err, client.ErrNotWritten)
	}
	n, _ = p.Buffered()
	require.Zero(t, n)
	require.NoError(t, p.Flush(ctx), "nothing left to flush")

	require.NoError(t, p.Close(ctx))
	require.ErrorIs(t, p.Purge(ctx, client.PurgeQueued|client.PurgeInFlight), client.ErrClosed)
}
