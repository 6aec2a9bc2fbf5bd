package client_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/sim"
	"github.com/rollsafe/rollsafe/sim/memnet"
)

// errorsSeen collects records' callbacks.
type errorsSeen struct {
	mu   sync.Mutex
	wg   sync.WaitGroup
	errs []error
}

func (e *errorsSeen) cb() func(*client.Record, error) {
	e.wg.Add(1)
	return func(_ *client.Record, err error) {
		defer e.wg.Done()
		e.mu.Lock()
		e.errs = append(e.errs, err)
		e.mu.Unlock()
	}
}

// Records waiting for their topic's metadata count toward MaxBuffered with
// the records in batches, exactly: beside 6 buffered records, 4 of 10 held
// ones fit a buffer of 10.
func TestHeldRecordsCountTowardMaxBuffered(t *testing.T) {
	c := newCluster(t, 1)
	p := newProducer(t, c, client.MaxBuffered(10, 1<<20), client.Linger(time.Hour), client.UnknownTopicWait(time.Minute))
	ctx := context.Background()
	p.Produce(ctx, &client.Record{Topic: "t", Value: []byte("warm")}, nil)
	require.NoError(t, p.Flush(ctx)) // t is known
	var buffered, held errorsSeen
	for range 6 {
		p.TryProduce(ctx, &client.Record{Topic: "t", Value: []byte("v")}, buffered.cb())
	}
	for range 10 {
		p.TryProduce(ctx, &client.Record{Topic: "not-yet", Value: []byte("v")}, held.cb())
	}
	n, _ := p.Buffered()
	require.Equal(t, 10, n)
	require.NoError(t, p.Purge(ctx, client.PurgeQueued))
	buffered.wg.Wait()
	held.wg.Wait()
	for _, err := range buffered.errs {
		if err != nil { // purged, or sent by Purge's flush and acknowledged
			require.ErrorIs(t, err, client.ErrPurged)
		}
	}
	full := 0
	for _, err := range held.errs {
		require.ErrorIs(t, err, client.ErrNotWritten)
		if errors.Is(err, client.ErrBufferFull) {
			full++
		} else {
			require.ErrorIs(t, err, client.ErrPurged)
		}
	}
	require.Equal(t, 6, full, "held records beyond MaxBuffered were refused")
	n, b := p.Buffered()
	require.Zero(t, n)
	require.Zero(t, b)
}

// Close fails the records still waiting for their topic's metadata with
// ErrClosed (not written), and leaves no goroutine behind (newProducer).
func TestCloseFailsHeldRecords(t *testing.T) {
	c := newCluster(t, 1)
	p := newProducer(t, c, client.UnknownTopicWait(time.Minute))
	var seen errorsSeen
	for range 5 {
		p.Produce(context.Background(), &client.Record{Topic: "not-yet", Value: []byte("v")}, seen.cb())
	}
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, p.Close(ended), client.ErrClosed)
	seen.wg.Wait()
	require.Len(t, seen.errs, 5)
	for _, err := range seen.errs {
		require.ErrorIs(t, err, client.ErrClosed)
		require.ErrorIs(t, err, client.ErrNotWritten)
		require.False(t, errors.Is(err, client.ErrOutcomeUnknown))
	}
}

// TestFlushSendsHeldRecordsAtOnce: records produced before their topic's
// metadata is known and flushed are sent as soon as the metadata arrives,
// not after Linger (an hour here) nor Flush's own next pass over the
// batches (flushPoll): on virtual time (sim/memnet, 20-50 µs a write) a
// fresh producer's first records — connections, metadata, producer id and
// the produce requests, a few round trips — are acknowledged within a
// millisecond of NewProducer (without it, they waited for Flush's next
// pass: 5 ms added to every producer's time to its first acknowledgement).
func TestFlushSendsHeldRecordsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mn := memnet.New(1, memnet.Latency(20*time.Microsecond, 50*time.Microsecond))
		c := newCluster(t, 6, sim.Network(mn))
		start := time.Now()
		p, err := client.NewProducer(client.Brokers(c.Addrs()...), client.Dialer(mn.Dial), client.SyncTest(synctest.Wait),
			client.Linger(time.Hour))
		require.NoError(t, err)
		t.Cleanup(func() { _ = p.Close(context.Background()) })
		ctx := context.Background()
		var seen errorsSeen
		for i := range 100 {
			p.Produce(ctx, &client.Record{Topic: "t", Key: []byte{byte(i)}, Value: []byte("v")}, seen.cb())
		}
		require.NoError(t, p.Flush(ctx))
		took := time.Since(start)
		seen.wg.Wait()
		for _, err := range seen.errs {
			require.NoError(t, err)
		}
		require.Less(t, took, time.Millisecond, "100 held records flushed")

		// The same for a second topic once the first is known.
		start = time.Now()
		require.NoError(t, c.CreateTopic("u", 3, 3))
		p.Produce(ctx, &client.Record{Topic: "u", Value: []byte("v")}, seen.cb())
		require.NoError(t, p.Flush(ctx))
		require.Less(t, time.Since(start), time.Millisecond, "a held record of a second topic flushed")
	})
}
