package kafkatest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/client/readback"
)

// steadyLoad produces records with ids prefix000000, prefix000001, ... to
// one partition through p, one every 2 ms while running, and keeps what
// each was answered: the producer-under-faults tests' load.
type steadyLoad struct {
	p         *client.Producer
	topic     string
	partition int32
	prefix    string

	mu       sync.Mutex
	produced []readback.Produced
	acked    int
	failed   []error
}

func (l *steadyLoad) send(ctx context.Context) {
	l.mu.Lock()
	i := len(l.produced)
	id := fmt.Sprintf("%s%06d", l.prefix, i)
	l.produced = append(l.produced, readback.Produced{ID: id, Partition: l.partition, Offset: -1})
	l.mu.Unlock()
	l.p.Produce(ctx, &client.Record{Topic: l.topic, Partition: l.partition, HasPartition: true, Value: []byte(id)}, func(rec *client.Record, err error) {
		l.mu.Lock()
		defer l.mu.Unlock()
		if err != nil {
			l.failed = append(l.failed, fmt.Errorf("%s: %w", id, err))
			return
		}
		l.produced[i].Acked, l.produced[i].Offset = true, rec.Offset
		l.acked++
	})
}

// run sends until the returned stop is called, which returns once the
// sending has stopped (and may be called again). t's cleanup stops it too.
func (l *steadyLoad) run(t *testing.T, ctx context.Context) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
				l.send(ctx)
			}
		}
	}()
	stop = sync.OnceFunc(func() { close(quit); <-done })
	t.Cleanup(stop)
	return stop
}

func (l *steadyLoad) ackedNow() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.acked
}

// waitAcked waits up to 30 s until n records are acknowledged.
func (l *steadyLoad) waitAcked(t *testing.T, n int, what string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); l.ackedNow() < n; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d records acknowledged, %d wanted %s", l.ackedNow(), n, what)
		}
	}
}

// newLoadProducer returns a rollsafe producer to c with a 5 s request
// timeout and opts, closed (within a minute) when t ends.
func newLoadProducer(t *testing.T, c *Cluster, opts ...client.Option) *client.Producer {
	t.Helper()
	p, err := client.NewProducer(append([]client.Option{client.Brokers(c.Addrs()...), client.RequestTimeout(5 * time.Second)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := p.Close(cctx); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return p
}
