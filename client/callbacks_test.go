package client_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/client/readback"
)

// A dead-letter produce from a callback: ProduceSync called inside a record
// callback returns its outcome instead of waiting behind that callback;
// Flush and Close called there fail at once with ErrInCallback.
func TestCallbackMayProduceSyncButNotFlush(t *testing.T) {
	c := newCluster(t, 1)
	p := newProducer(t, c)
	ctx := context.Background()
	type got struct {
		dlq          client.Results
		flush, close error
	}
	done := make(chan got, 1)
	p.Produce(ctx, &client.Record{Topic: "t", Value: []byte("first")}, func(_ *client.Record, err error) {
		require.NoError(t, err)
		var g got
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		g.dlq = p.ProduceSync(cctx, &client.Record{Topic: "t", Value: []byte("dead-letter")})
		g.flush = p.Flush(cctx)
		g.close = p.Close(cctx)
		done <- g
	})
	var g got
	select {
	case g = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("ProduceSync inside a callback did not return")
	}
	require.NoError(t, g.dlq.FirstErr())
	require.ErrorIs(t, g.flush, client.ErrInCallback)
	require.ErrorIs(t, g.close, client.ErrInCallback)
	require.NoError(t, p.Flush(ctx))
	require.Equal(t, []string{"first", "dead-letter"}, partitionValues(t, c, "t", 0), "each record once, in order")
}

// A broker that stops answering: the delivery timeout still bounds the
// outcome (reported unknown at the deadline, since the request may have
// been written), and ProduceSync's context bounds the call.
func TestDeadlinesHoldWhenTheBrokerStopsAnswering(t *testing.T) {
	c := newCluster(t, 1)
	p := newProducer(t, c, client.DeliveryTimeout(time.Second), client.RequestTimeout(30*time.Second))
	ctx := context.Background()
	require.NoError(t, p.ProduceSync(ctx, &client.Record{Topic: "t", Value: []byte("warm")}).FirstErr())
	// The brokers answer 4 s late: the 1 s delivery timeout must not wait
	// for them.
	const stall = 4 * time.Second
	for b := int32(0); b < 3; b++ {
		require.NoError(t, c.DelayResponses(b, stall))
	}
	t.Cleanup(func() {
		for b := int32(0); b < 3; b++ {
			_ = c.DelayResponses(b, 0)
		}
	})
	start := time.Now()
	res := p.ProduceSync(ctx, &client.Record{Topic: "t", Value: []byte("stalled")})
	took := time.Since(start)
	require.ErrorIs(t, res.FirstErr(), client.ErrDeliveryTimeout)
	require.ErrorIs(t, res.FirstErr(), client.ErrOutcomeUnknown)
	require.False(t, errors.Is(res.FirstErr(), client.ErrNotWritten), "an in-flight record reported not written")
	require.Less(t, took, stall-time.Second, "the outcome waited for the broker, not the delivery timeout")

	cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	slow, err := client.NewProducer(client.Brokers(c.Addrs()...), client.DeliveryTimeout(time.Hour))
	require.NoError(t, err)
	res = slow.ProduceSync(cctx, &client.Record{Topic: "t", Value: []byte("bounded")})
	require.ErrorIs(t, res.FirstErr(), client.ErrOutcomeUnknown)
	require.ErrorIs(t, res.FirstErr(), context.DeadlineExceeded)
	// Close's context bounds it too: what is in flight fails unknown.
	closeCtx, cancelClose := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancelClose()
	require.ErrorIs(t, slow.Close(closeCtx), context.DeadlineExceeded)
}

// Records of Produce and ProduceSync sharing one batch: every record learns
// its own offset (the one the read back finds it at), Produce's callbacks
// run in produce order, and ProduceSync returns without waiting for them.
func TestMixedBatchOffsetsMatchTheLog(t *testing.T) {
	c := newCluster(t, 1)
	var mixed atomic.Bool
	acked := func(_ string, _ int32, records int, _ int64) {
		if records >= 21 {
			mixed.Store(true)
		}
	}
	p := newProducer(t, c, client.Linger(300*time.Millisecond), client.WithHooks(client.Hooks{BatchAcked: acked}))
	ctx := context.Background()
	require.NoError(t, p.ProduceSync(ctx, &client.Record{Topic: "t", Value: []byte("warm")}).FirstErr())

	const async = 20
	var mu sync.Mutex
	var order []string
	offsets := map[string]int64{}
	cb := func(r *client.Record, err error) {
		require.NoError(t, err)
		mu.Lock()
		defer mu.Unlock()
		order = append(order, string(r.Value))
		offsets[string(r.Value)] = r.Offset
	}
	for i := range async / 2 {
		p.Produce(ctx, &client.Record{Topic: "t", Value: fmt.Appendf(nil, "a%02d", i)}, cb)
	}
	syncDone := make(chan client.Results, 1)
	go func() {
		syncDone <- p.ProduceSync(ctx, &client.Record{Topic: "t", Value: []byte("sync")})
	}()
	time.Sleep(20 * time.Millisecond) // the sync record lands between the halves
	for i := async / 2; i < async; i++ {
		p.Produce(ctx, &client.Record{Topic: "t", Value: fmt.Appendf(nil, "a%02d", i)}, cb)
	}
	res := <-syncDone
	require.NoError(t, res.FirstErr())
	require.NoError(t, p.Flush(ctx))
	require.True(t, mixed.Load(), "the records did not share one batch; the test proves nothing")

	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	log, err := readback.ReadTopic(rctx, c.Addrs(), "t")
	require.NoError(t, err)
	at := map[string]int64{}
	for _, rec := range log[0] {
		at[string(rec.Value)] = rec.Offset
	}
	require.Len(t, at, async+2, "each record once")
	require.Equal(t, at["sync"], res[0].Record.Offset, "ProduceSync's offset")
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, order, async)
	for i, v := range order {
		require.Equal(t, fmt.Sprintf("a%02d", i), v, "callbacks in produce order")
		require.Equal(t, at[v], offsets[v], "offset of %s", v)
	}
}
