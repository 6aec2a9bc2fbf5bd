package protocol

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Pool.Close waits for every connection's end, OnDisconnect included, even
// while a response callback is running on a connection's reader (a
// callback on another goroutine must not make Close skip the wait).
func TestPoolCloseWaitsWhileACallbackRuns(t *testing.T) {
	f := newFakeBroker(t)
	f.handle = func(kmsg.Request) kmsg.Response { return kmsg.NewPtrMetadataResponse() }
	addr := f.listen()
	var ended atomic.Int32
	p := NewPool(staticResolver{1: addr}, PoolConfig{
		OnDisconnect: func(int32, string, error) { ended.Add(1) },
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := p.Conn(ctx, 1)
	require.NoError(t, err)
	entered, release := make(chan struct{}), make(chan struct{})
	require.NoError(t, c.Send(ctx, kmsg.NewPtrMetadataRequest(), func(kmsg.Response, error) {
		close(entered)
		<-release
	}))
	<-entered
	closed := make(chan int32)
	go func() {
		_ = p.Close()
		closed <- ended.Load()
	}()
	select {
	case n := <-closed:
		t.Fatalf("Pool.Close returned while a callback ran, %d of 1 connection ends reported", n)
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	require.Equal(t, int32(1), <-closed, "the connection's end is reported before Close returns")
}
