package protocol

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// movingResolver is a BrokerResolver whose addresses a test changes.
type movingResolver struct {
	mu    sync.Mutex
	addrs map[int32]string
}

func (r *movingResolver) Broker(id int32) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	a, ok := r.addrs[id]
	return a, ok
}

func (r *movingResolver) BrokerIDs() []int32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ids []int32
	for id := range r.addrs {
		ids = append(ids, id)
	}
	return ids
}

func (r *movingResolver) set(id int32, addr string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.addrs[id] = addr
}

func TestPoolRedialsWhenBrokerMoves(t *testing.T) {
	base := runtime.NumGoroutine()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	oldB, newB := newFakeBroker(t), newFakeBroker(t)
	oldB.handle, newB.handle = metadataResponder, metadataResponder
	oldAddr, newAddr := oldB.listen(), newB.listen()
	res := &movingResolver{addrs: map[int32]string{7: oldAddr}}
	p := NewPool(res, PoolConfig{BackoffMin: time.Millisecond, BackoffMax: 5 * time.Millisecond})

	c1, err := p.Conn(ctx, 7)
	require.NoError(t, err)
	require.Equal(t, oldAddr, c1.Addr())

	// The old broker is still up and its connection alive, but the
	// metadata now places broker 7 elsewhere.
	res.set(7, newAddr)
	a, err := p.Any(ctx)
	require.NoError(t, err)
	require.Equal(t, newAddr, a.Addr(), "Any must not hand out the connection to the old address")
	c2, err := p.Conn(ctx, 7)
	require.NoError(t, err)
	require.Same(t, a, c2)
	require.Equal(t, newAddr, c2.Addr())
	select {
	case <-c1.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the connection to the old address was left open")
	}
	_, err = c2.Request(ctx, kmsg.NewPtrMetadataRequest())
	require.NoError(t, err)

	// Unchanged address: the connection is reused.
	c3, err := p.Conn(ctx, 7)
	require.NoError(t, err)
	require.Same(t, c2, c3)

	require.NoError(t, p.Close())
	oldB.close()
	newB.close()
	checkNoLeak(t, base)
}

func TestPoolMoveSkipsOldAddressBackoff(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	newB := newFakeBroker(t)
	newB.handle = metadataResponder
	newAddr := newB.listen()
	res := &movingResolver{addrs: map[int32]string{1: "127.0.0.1:1"}}
	var mu sync.Mutex
	var dialed []string
	p := NewPool(res, PoolConfig{
		BackoffMin: time.Hour, BackoffMax: time.Hour,
		Dial: func(ctx context.Context, addr string) (*Conn, error) {
			mu.Lock()
			dialed = append(dialed, addr)
			mu.Unlock()
			return Dial(ctx, addr, ConnConfig{})
		},
	})
	defer p.Close()
	_, err := p.Conn(ctx, 1)
	require.Error(t, err, "nothing listens on port 1")
	res.set(1, newAddr)
	c, err := p.Conn(ctx, 1) // would wait an hour for the old address
	require.NoError(t, err)
	require.Equal(t, newAddr, c.Addr())
	mu.Lock()
	require.Equal(t, []string{"127.0.0.1:1", newAddr}, dialed)
	mu.Unlock()
}
