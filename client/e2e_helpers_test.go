package client_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/sim"
)

// run is one producer's work against a cluster, with what it reported.
type run struct {
	mu       sync.Mutex
	produced []readback.Produced
	index    map[string]int
	errs     []error
	wg       sync.WaitGroup
}

func newRun() *run { return &run{index: map[string]int{}} }

// produce hands n records with unique values prefix-i to p, spread by key
// over the topic's partitions (keys "k<i%keys>").
func (r *run) produce(ctx context.Context, t testing.TB, p *client.Producer, topic, prefix string, n, keys int) {
	t.Helper()
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("%s-%d", prefix, i)
		rec := &client.Record{Topic: topic, Key: []byte(fmt.Sprintf("k%d", i%keys)), Value: []byte(id)}
		r.mu.Lock()
		r.index[id] = len(r.produced)
		r.produced = append(r.produced, readback.Produced{ID: id, Offset: -1})
		r.mu.Unlock()
		r.wg.Add(1)
		p.Produce(ctx, rec, r.done)
	}
}

func (r *run) done(rec *client.Record, err error) {
	defer r.wg.Done()
	r.mu.Lock()
	defer r.mu.Unlock()
	pr := &r.produced[r.index[string(rec.Value)]]
	pr.Partition = rec.Partition
	if err == nil {
		pr.Acked, pr.Offset = true, rec.Offset
		return
	}
	pr.NotWritten = errors.Is(err, client.ErrNotWritten)
	r.errs = append(r.errs, err)
}

// verify reads the topic back and checks it against what was reported.
func (r *run) verify(t testing.TB, c *sim.Cluster, topic string) readback.Report {
	t.Helper()
	r.wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	log, err := readback.ReadTopic(ctx, c.Addrs(), topic)
	require.NoError(t, err)
	r.mu.Lock()
	defer r.mu.Unlock()
	rep := readback.Check(log, r.produced, func(rec readback.Record) string { return string(rec.Value) })
	if !rep.OK() {
		var sb strings.Builder
		_ = c.Recorder().Dump(&sb)
		dump := sb.String()
		if len(dump) > 20000 {
			dump = dump[len(dump)-20000:]
		}
		t.Logf("recorder (tail):\n%s", dump)
	}
	require.True(t, rep.OK(), "%s\n%s", rep, strings.Join(rep.Problems, "\n"))
	return rep
}

// newCluster starts a 3-broker sim with topic t of parts partitions.
func newCluster(t testing.TB, parts int32, opts ...sim.Option) *sim.Cluster {
	t.Helper()
	opts = append([]sim.Option{sim.Brokers(3), sim.Topic("t", parts, 3), sim.Seed(1)}, opts...)
	c, err := sim.NewCluster(opts...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	return c
}

// newProducer starts a producer on c and closes it (checking for leaked
// goroutines) when the test ends.
func newProducer(t testing.TB, c *sim.Cluster, opts ...client.Option) *client.Producer {
	t.Helper()
	before := runtime.NumGoroutine()
	opts = append([]client.Option{client.Brokers(c.Addrs()...), client.Linger(2 * time.Millisecond)}, opts...)
	p, err := client.NewProducer(opts...)
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = p.Close(ctx)
		waitGoroutines(t, before)
	})
	return p
}

// waitGoroutines fails the test if the goroutine count does not fall back
// to before within a few seconds.
func waitGoroutines(t testing.TB, before int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		t.Fatalf("goroutines leaked: %d before, %d after\n%s", before, n, buf)
	}
}

// partitionValues reads partition part of topic back from c and returns
// its record values, in log order.
func partitionValues(t testing.TB, c *sim.Cluster, topic string, part int32) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	log, err := readback.ReadTopic(ctx, c.Addrs(), topic)
	require.NoError(t, err)
	var values []string
	for _, rec := range log[part] {
		values = append(values, string(rec.Value))
	}
	return values
}
