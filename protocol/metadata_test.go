package protocol

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

// clusterFake answers Metadata from a mutable description.
type clusterFake struct {
	mu       sync.Mutex
	addr     string
	leaders  map[string][]int32 // topic -> leader per partition
	epoch    int32
	requests atomic.Int32
	gate     chan struct{} // if non-nil, Metadata waits on it
}

func (cf *clusterFake) handle(req kmsg.Request) kmsg.Response {
	r, ok := req.(*kmsg.MetadataRequest)
	if !ok {
		return nil
	}
	cf.requests.Add(1)
	cf.mu.Lock()
	gate := cf.gate
	cf.mu.Unlock()
	if gate != nil {
		<-gate
	}
	cf.mu.Lock()
	defer cf.mu.Unlock()
	resp := kmsg.NewPtrMetadataResponse()
	host, port := splitAddr(cf.addr)
	b := kmsg.NewMetadataResponseBroker()
	b.NodeID, b.Host, b.Port = 1, host, port
	resp.Brokers = append(resp.Brokers, b)
	for _, rt := range r.Topics {
		t := kmsg.NewMetadataResponseTopic()
		t.Topic = rt.Topic
		leaders, ok := cf.leaders[*rt.Topic]
		if !ok {
			t.ErrorCode = int16(kafkaerr.UnknownTopicOrPartition)
		}
		for i, l := range leaders {
			p := kmsg.NewMetadataResponseTopicPartition()
			p.Partition, p.Leader, p.LeaderEpoch = int32(i), l, cf.epoch
			if l < 0 {
				p.ErrorCode = int16(kafkaerr.LeaderNotAvailable)
			}
			t.Partitions = append(t.Partitions, p)
		}
		resp.Topics = append(resp.Topics, t)
	}
	return resp
}

func splitAddr(a string) (string, int32) {
	for i := len(a) - 1; i >= 0; i-- {
		if a[i] == ':' {
			var p int32
			for _, c := range a[i+1:] {
				p = p*10 + int32(c-'0')
			}
			return a[:i], p
		}
	}
	return a, 0
}

func newCluster(t *testing.T) (*fakeBroker, *clusterFake) {
	f := newFakeBroker(t)
	cf := &clusterFake{leaders: map[string][]int32{"orders": {1, 1, -1}}, epoch: 3}
	f.handle = cf.handle
	cf.addr = f.listen()
	return f, cf
}

func TestMetadataRefreshLeaderAndErrors(t *testing.T) {
	base := runtime.NumGoroutine()
	f, cf := newCluster(t)
	m := NewMetadata([]string{"127.0.0.1:1", cf.addr}, MetadataConfig{Conn: ConnConfig{DialTimeout: time.Second}})

	ctx := context.Background()
	require.NoError(t, m.Refresh(ctx, "orders"))
	n, err := m.Partitions("orders")
	require.NoError(t, err)
	require.EqualValues(t, 3, n)
	id, epoch, err := m.Leader("orders", 1)
	require.NoError(t, err)
	require.EqualValues(t, 1, id)
	require.EqualValues(t, 3, epoch)
	addr, ok := m.Broker(1)
	require.True(t, ok)
	require.Equal(t, cf.addr, addr)

	_, _, err = m.Leader("orders", 2)
	require.ErrorIs(t, err, ErrLeaderNotAvailable)
	_, _, err = m.Leader("orders", 7)
	var ute *UnknownTopicError
	require.ErrorAs(t, err, &ute)
	require.EqualValues(t, 7, ute.Partition)

	err = m.Refresh(ctx, "nope")
	require.ErrorIs(t, err, ErrUnknownTopicOrPartition)
	require.ErrorAs(t, err, &ute)
	require.Equal(t, "nope", ute.Topic)
	require.Contains(t, err.Error(), "nope")
	_, err = m.Partitions("nope")
	require.ErrorAs(t, err, &ute)

	// KIP-951 hint with a newer epoch moves the leader; an older one does not.
	m.ApplyLeaderHint("orders", 0, 2, 4, "127.0.0.1:9999")
	id, epoch, _ = m.Leader("orders", 0)
	require.EqualValues(t, 2, id)
	require.EqualValues(t, 4, epoch)
	addr, _ = m.Broker(2)
	require.Equal(t, "127.0.0.1:9999", addr)
	m.ApplyLeaderHint("orders", 0, 1, 2, "")
	id, _, _ = m.Leader("orders", 0)
	require.EqualValues(t, 2, id)

	// A refresh from a lagging broker (epoch 3 < 4) keeps the newer leader.
	require.NoError(t, m.Refresh(ctx))
	id, epoch, _ = m.Leader("orders", 0)
	require.EqualValues(t, 2, id)
	require.EqualValues(t, 4, epoch)
	// A newer epoch from the cluster wins.
	cf.mu.Lock()
	cf.epoch = 9
	cf.mu.Unlock()
	require.NoError(t, m.Refresh(ctx))
	id, epoch, _ = m.Leader("orders", 0)
	require.EqualValues(t, 1, id)
	require.EqualValues(t, 9, epoch)

	require.NoError(t, m.Close())
	f.close()
	checkNoLeak(t, base)
}

// Partitions answers from a lock-free snapshot: it must follow every
// refresh that changes a count, adds a topic or turns one into an error.
func TestMetadataPartitionsFollowsRefreshes(t *testing.T) {
	_, cf := newCluster(t)
	m := NewMetadata([]string{cf.addr}, MetadataConfig{Conn: ConnConfig{DialTimeout: time.Second}})
	ctx := context.Background()
	require.NoError(t, m.Refresh(ctx, "orders"))
	n, err := m.Partitions("orders")
	require.NoError(t, err)
	require.EqualValues(t, 3, n)

	cf.mu.Lock()
	cf.leaders["orders"] = []int32{1, 1, 1, 1, 1}
	cf.leaders["audit"] = []int32{1}
	cf.mu.Unlock()
	require.NoError(t, m.Refresh(ctx, "orders", "audit"))
	n, err = m.Partitions("orders")
	require.NoError(t, err)
	require.EqualValues(t, 5, n, "a grown topic")
	n, err = m.Partitions("audit")
	require.NoError(t, err)
	require.EqualValues(t, 1, n, "a new topic")

	cf.mu.Lock()
	delete(cf.leaders, "audit")
	cf.mu.Unlock()
	require.Error(t, m.Refresh(ctx, "audit"))
	_, err = m.Partitions("audit")
	var ute *UnknownTopicError
	require.ErrorAs(t, err, &ute, "a deleted topic is no longer counted")
	n, err = m.Partitions("orders")
	require.NoError(t, err)
	require.EqualValues(t, 5, n)
}

func TestMetadataRefreshIsSingleFlight(t *testing.T) {
	f, cf := newCluster(t)
	cf.gate = make(chan struct{})
	m := NewMetadata([]string{cf.addr}, MetadataConfig{})
	defer m.Close()
	defer f.close()

	const callers = 50
	var wg, started sync.WaitGroup
	errs := make(chan error, callers)
	for i := 0; i < callers; i++ {
		wg.Add(1)
		started.Add(1)
		go func() {
			defer wg.Done()
			started.Done()
			errs <- m.Refresh(context.Background(), "orders")
		}()
	}
	// Every caller is running (on a loaded machine goroutines can start
	// late enough to find the first refresh already over).
	started.Wait()
	// Let the first request reach the broker, then release it.
	deadline := time.Now().Add(5 * time.Second)
	for cf.requests.Load() == 0 {
		require.True(t, time.Now().Before(deadline), "no metadata request reached the broker")
		runtime.Gosched()
	}
	close(cf.gate)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	// One request, or two if some callers joined after the first finished
	// (three on a machine loaded enough to start a caller after the
	// second): never one per caller.
	require.LessOrEqual(t, cf.requests.Load(), int32(3))
}

func TestMetadataNoBroker(t *testing.T) {
	m := NewMetadata([]string{"127.0.0.1:1"}, MetadataConfig{Conn: ConnConfig{DialTimeout: time.Second}})
	defer m.Close()
	err := m.Refresh(context.Background(), "x")
	require.ErrorIs(t, err, ErrNoBroker)
}

func TestPoolConnReuseReconnectAndClose(t *testing.T) {
	base := runtime.NumGoroutine()
	f, cf := newCluster(t)
	m := NewMetadata([]string{cf.addr}, MetadataConfig{})
	require.NoError(t, m.Refresh(context.Background()))
	p := NewPool(m, PoolConfig{BackoffMin: time.Millisecond, BackoffMax: 5 * time.Millisecond})

	ctx := context.Background()
	c1, err := p.Conn(ctx, 1)
	require.NoError(t, err)
	c2, err := p.Conn(ctx, 1)
	require.NoError(t, err)
	require.Same(t, c1, c2)
	a, err := p.Any(ctx)
	require.NoError(t, err)
	require.Same(t, c1, a)

	_, err = p.Conn(ctx, 42)
	require.ErrorIs(t, err, ErrNoBroker)

	// Broker drops the connection: the pool redials.
	f.dropConns()
	<-c1.Done()
	c3, err := p.Conn(ctx, 1)
	require.NoError(t, err)
	require.NotSame(t, c1, c3)
	_, err = c3.Request(ctx, kmsg.NewPtrMetadataRequest())
	require.NoError(t, err)

	// In-flight requests fail on Close.
	gate := make(chan struct{})
	cf.mu.Lock()
	cf.gate = gate
	cf.mu.Unlock()
	errCh := make(chan error, 1)
	require.NoError(t, c3.Send(ctx, kmsg.NewPtrMetadataRequest(), func(_ kmsg.Response, err error) { errCh <- err }))
	require.NoError(t, p.Close())
	err = <-errCh
	require.ErrorIs(t, err, ErrConnLostAfterWrite)
	close(gate)
	_, err = p.Conn(ctx, 1)
	require.ErrorIs(t, err, ErrClosed)

	require.NoError(t, m.Close())
	f.close()
	checkNoLeak(t, base)
}

func TestPoolBacksOffAfterDialFailure(t *testing.T) {
	res := staticResolver{1: "127.0.0.1:1"}
	var dials atomic.Int32
	p := NewPool(res, PoolConfig{
		BackoffMin: 200 * time.Millisecond, BackoffMax: time.Second,
		Dial: func(ctx context.Context, addr string) (*Conn, error) {
			dials.Add(1)
			return nil, errors.New("refused")
		},
	})
	defer p.Close()
	_, err := p.Conn(context.Background(), 1)
	require.Error(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err = p.Conn(ctx, 1)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.EqualValues(t, 1, dials.Load(), "second dial must wait for the backoff")
	_, err = p.Any(context.Background())
	require.ErrorIs(t, err, ErrNoBroker)
}

type staticResolver map[int32]string

func (s staticResolver) Broker(id int32) (string, bool) { a, ok := s[id]; return a, ok }
func (s staticResolver) BrokerIDs() []int32 {
	var ids []int32
	for id := range s {
		ids = append(ids, id)
	}
	return ids
}

func TestPoolAnyWithoutBrokers(t *testing.T) {
	p := NewPool(staticResolver{}, PoolConfig{})
	defer p.Close()
	_, err := p.Any(context.Background())
	require.ErrorIs(t, err, ErrNoBroker)
	require.NotContains(t, err.Error(), "%!")
}

// BenchmarkMetadataPartitions guards the partition count lookup the
// producer makes once per record, from every producing goroutine at once:
// it takes no lock (a snapshot of counts), so it neither serialises the
// callers nor bounces the lock's cache line between cores.
func BenchmarkMetadataPartitions(b *testing.B) {
	f := newFakeBroker(b)
	cf := &clusterFake{leaders: map[string][]int32{"orders": {1, 1, 1}}, epoch: 3}
	f.handle = cf.handle
	cf.addr = f.listen()
	m := NewMetadata([]string{cf.addr}, MetadataConfig{Conn: ConnConfig{DialTimeout: time.Second}})
	if err := m.Refresh(context.Background(), "orders"); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if n, err := m.Partitions("orders"); err != nil || n != 3 {
				b.Errorf("Partitions: %d, %v", n, err)
				return
			}
		}
	})
}
