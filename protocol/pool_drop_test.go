package protocol

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Drop fails what is in flight on a broker's connection at once, as lost
// after the write (the broker may have it), and the next Conn dials anew.
func TestPoolDropFailsInFlight(t *testing.T) {
	f := newFakeBroker(t)
	f.handle = func(kmsg.Request) kmsg.Response { return nil } // never answers
	addr := f.listen()
	p := NewPool(staticResolver{1: addr}, PoolConfig{BackoffMin: time.Millisecond, BackoffMax: 5 * time.Millisecond})
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := p.Conn(ctx, 1)
	require.NoError(t, err)
	got := make(chan error, 1)
	require.NoError(t, c.Send(ctx, kmsg.NewPtrMetadataRequest(), func(_ kmsg.Response, err error) { got <- err }))
	p.Drop(1)
	select {
	case err := <-got:
		require.ErrorIs(t, err, ErrConnLostAfterWrite)
	case <-time.After(5 * time.Second):
		t.Fatal("the request in flight was not failed by Drop")
	}
	c2, err := p.Conn(ctx, 1)
	require.NoError(t, err)
	require.NotSame(t, c, c2, "Conn after Drop dials a new connection")
	p.Drop(2) // unknown broker: nothing to do
}

// Drop aborts a dial under way: its caller gets an error at once instead of
// waiting on a broker that does not answer.
func TestPoolDropAbortsDial(t *testing.T) {
	dialing := make(chan struct{})
	dial := func(ctx context.Context, _ string) (*Conn, error) {
		close(dialing)
		<-ctx.Done()
		return nil, ctx.Err()
	}
	p := NewPool(staticResolver{1: "127.0.0.1:1"}, PoolConfig{Dial: dial})
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := p.Conn(ctx, 1)
		done <- err
	}()
	<-dialing
	start := time.Now()
	p.Drop(1)
	select {
	case err := <-done:
		require.ErrorIs(t, err, context.Canceled)
		require.Less(t, time.Since(start), 2*time.Second)
	case <-time.After(5 * time.Second):
		t.Fatal("Drop did not abort the dial")
	}
}
