package client_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/sim"
)

// cancelRun is records produced to partition 0 of topic t, some with a
// context cancelled later, and their outcomes.
type cancelRun struct {
	mu        sync.Mutex
	wg        sync.WaitGroup
	seq       []string
	cancelled map[string]bool
	errs      map[string]error
	offs      map[string]int64
}

func newCancelRun() *cancelRun {
	return &cancelRun{cancelled: map[string]bool{}, errs: map[string]error{}, offs: map[string]int64{}}
}

func (cr *cancelRun) produce(ctx context.Context, p *client.Producer, topic, v string, cancellable bool) {
	cr.mu.Lock()
	cr.seq = append(cr.seq, v)
	cr.cancelled[v] = cancellable
	cr.mu.Unlock()
	cr.wg.Add(1)
	p.Produce(ctx, &client.Record{Topic: topic, Partition: 0, HasPartition: true, Value: []byte(v)}, func(r *client.Record, err error) {
		defer cr.wg.Done()
		cr.mu.Lock()
		defer cr.mu.Unlock()
		cr.errs[v] = err
		if err == nil {
			cr.offs[v] = r.Offset
		}
	})
}

// check: every cancellable record failed not written with the context's
// error, every other one was acknowledged; the log read back holds the
// acknowledged ones once each, in order, and none of the others.
func (cr *cancelRun) check(t *testing.T, c *sim.Cluster, topic string) {
	t.Helper()
	cr.wg.Wait()
	cr.mu.Lock()
	defer cr.mu.Unlock()
	var produced []readback.Produced
	for _, v := range cr.seq {
		err := cr.errs[v]
		if cr.cancelled[v] {
			require.ErrorIs(t, err, client.ErrNotWritten, v)
			require.ErrorIs(t, err, context.Canceled, v)
			require.Contains(t, err.Error(), "before the record was sent", v)
		} else {
			require.NoError(t, err, v)
		}
		produced = append(produced, readback.Produced{ID: v, Partition: 0, Offset: cr.offs[v], Acked: err == nil, NotWritten: err != nil})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	log, err := readback.ReadTopic(ctx, c.Addrs(), topic)
	require.NoError(t, err)
	rep := readback.Check(log, produced, func(r readback.Record) string { return string(r.Value) })
	require.True(t, rep.OK(), "%s", rep)
	var values []string
	for _, r := range log[0] {
		values = append(values, string(r.Value))
	}
	var want []string
	for _, v := range cr.seq {
		if !cr.cancelled[v] {
			want = append(want, v)
		}
	}
	require.Equal(t, want, values, "the log holds exactly the records not cancelled, in order")
}

// noAttemptFails is a hook failing the test on any failed produce
// attempt: a cancelled record leaving a hole in a partition's sequence
// would be answered OUT_OF_ORDER_SEQUENCE_NUMBER.
func noAttemptFails(t *testing.T) client.Option {
	var mu sync.Mutex
	var fails []string
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		require.Empty(t, fails, "produce attempts failed")
	})
	return client.WithHooks(client.Hooks{AttemptFailed: func(topic string, partition, broker int32, records int, err error) {
		mu.Lock()
		fails = append(fails, fmt.Sprintf("%s[%d] at %d: %v", topic, partition, broker, err))
		mu.Unlock()
	}})
}

// A record whose context is cancelled while its batch is queued behind the
// request in flight (MaxInFlight 1, that request's append held by the
// leader) — closed, not numbered — is taken back at once: not written,
// never sent. Its batch is rebuilt from the records left, and the
// numbering goes on without a hole: no attempt fails.
func TestCancelQueuedBatch(t *testing.T) {
	c := newCluster(t, 1)
	p := newProducer(t, c, client.MaxInFlight(1), client.BatchRecords(10), noAttemptFails(t))
	bg, cancelBG := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancelBG()
	require.NoError(t, p.ProduceSync(bg, &client.Record{Topic: "t", Partition: 0, HasPartition: true, Value: []byte("warm")}).FirstErr())

	cr := newCancelRun()
	cr.seq, cr.offs["warm"] = append(cr.seq, "warm"), 0
	require.NoError(t, c.DelayProcessing("t", 0, 1, 800*time.Millisecond))
	for i := range 10 {
		cr.produce(bg, p, "t", fmt.Sprintf("held-%d", i), false) // one batch, in flight
	}
	time.Sleep(100 * time.Millisecond)
	ctx, cancel := context.WithCancel(bg)
	for i := range 50 {
		// Five batches behind it: in the second, every record is
		// cancelled (the batch is removed); in the others every third.
		cancellable := i%3 == 0 || (i >= 10 && i < 20)
		rctx := bg
		if cancellable {
			rctx = ctx
		}
		cr.produce(rctx, p, "t", fmt.Sprintf("q-%d", i), cancellable)
	}
	time.Sleep(100 * time.Millisecond) // the batches are closed and queued
	start := time.Now()
	cancel()
	// The cancelled records are called back long before the held append
	// ends.
	for {
		cr.mu.Lock()
		n := 0
		for v, err := range cr.errs {
			if cr.cancelled[v] && errors.Is(err, client.ErrNotWritten) {
				n++
			}
		}
		cr.mu.Unlock()
		if n == 24 {
			break
		}
		require.Less(t, time.Since(start), 500*time.Millisecond, "cancelled records not taken back at once (%d of 24)", n)
		time.Sleep(5 * time.Millisecond)
	}
	require.NoError(t, p.Flush(bg))
	cr.check(t, c, "t")
	n, b := p.Buffered()
	require.Zero(t, n)
	require.Zero(t, b)
}

// A record cancelled while its batch is still open is taken back when the
// batch closes (here at Flush), before it is numbered.
func TestCancelOpenBatch(t *testing.T) {
	c := newCluster(t, 1)
	p := newProducer(t, c, client.Linger(time.Hour), noAttemptFails(t))
	bg, cancelBG := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancelBG()
	cr := newCancelRun()
	cr.produce(bg, p, "t", "warm", false)
	require.NoError(t, p.Flush(bg))
	ctx, cancel := context.WithCancel(bg)
	for i := range 20 {
		rctx := bg
		if i%2 == 1 {
			rctx = ctx
		}
		cr.produce(rctx, p, "t", fmt.Sprintf("open-%d", i), i%2 == 1)
	}
	cancel()
	time.Sleep(50 * time.Millisecond) // the loop hears of it while the batch is open
	require.NoError(t, p.Flush(bg))
	cr.check(t, c, "t")
}

// A record held for its topic's metadata is taken back at once when its
// context is cancelled; the records held beside it go on once the topic
// exists.
func TestCancelHeldRecord(t *testing.T) {
	c := newCluster(t, 1)
	p := newProducer(t, c, client.UnknownTopicWait(time.Minute), noAttemptFails(t))
	bg, cancelBG := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancelBG()
	cr := newCancelRun()
	ctx, cancel := context.WithCancel(bg)
	for i := range 10 {
		rctx := bg
		if i%3 == 0 {
			rctx = ctx
		}
		cr.produce(rctx, p, "later", fmt.Sprintf("held-%d", i), i%3 == 0)
	}
	cancel()
	start := time.Now()
	for {
		cr.mu.Lock()
		n := len(cr.errs)
		cr.mu.Unlock()
		if n == 4 {
			break
		}
		require.Less(t, time.Since(start), 500*time.Millisecond, "held records not taken back at once")
		time.Sleep(5 * time.Millisecond)
	}
	require.NoError(t, c.CreateTopic("later", 1, 3))
	require.NoError(t, p.Flush(bg))
	cr.check(t, c, "later")
}

// Once its batch is numbered, a record's context no longer matters: one
// cancelled while its batch is in flight is acknowledged.
func TestCancelAfterNumbering(t *testing.T) {
	c := newCluster(t, 1)
	p := newProducer(t, c, client.MaxInFlight(1), client.BatchRecords(10), noAttemptFails(t))
	bg, cancelBG := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancelBG()
	require.NoError(t, p.ProduceSync(bg, &client.Record{Topic: "t", Partition: 0, HasPartition: true, Value: []byte("warm")}).FirstErr())
	require.NoError(t, c.DelayProcessing("t", 0, 1, 300*time.Millisecond))
	ctx, cancel := context.WithCancel(bg)
	var seen errorsSeen
	for range 10 {
		p.Produce(ctx, &client.Record{Topic: "t", Partition: 0, HasPartition: true, Value: []byte("v")}, seen.cb())
	}
	time.Sleep(100 * time.Millisecond) // sent: its append is held
	cancel()
	seen.wg.Wait()
	for _, err := range seen.errs {
		require.NoError(t, err)
	}
	require.Len(t, partitionValues(t, c, "t", 0), 11)
}
