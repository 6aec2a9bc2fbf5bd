package protocol

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// silentListener accepts connections and never answers; closed with t.
func silentListener(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan struct{})
	go func() {
		defer close(done)
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				_ = c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() { _ = ln.Close(); <-done })
	return ln.Addr().String()
}

// TestDescribeKeepsItsContext: a Describe given a short context returns
// with it while a refresh holds the view's connection slot dialing a
// broker that never answers (the refresh's own attempt lasts seconds).
func TestDescribeKeepsItsContext(t *testing.T) {
	m := NewMetadata([]string{silentListener(t)}, MetadataConfig{RefreshTimeout: 9 * time.Second})
	refreshed := make(chan error, 1)
	go func() { refreshed <- m.Refresh(context.Background(), "x") }()
	time.Sleep(100 * time.Millisecond) // the refresh is dialing
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, _, err := m.Describe(ctx, nil)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.ErrorIs(t, err, ErrNoBroker)
	require.Less(t, time.Since(start), time.Second, "Describe outlived its context")
	require.NoError(t, m.Close())
	require.Error(t, <-refreshed)
	_, _, err = m.Describe(context.Background(), nil)
	require.ErrorIs(t, err, ErrClosed)
}
