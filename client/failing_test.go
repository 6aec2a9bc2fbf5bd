package client_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/protocol"
	"github.com/rollsafe/rollsafe/sim"
	"github.com/rollsafe/rollsafe/sim/memnet"
)

// lockedBuffer is a bytes.Buffer a logger may write while a test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestLongFailureIsLoggedAndHooked: a partition refused NOT_ENOUGH_REPLICAS
// 25 times in a row (about 19 s of growing backoffs, on virtual time)
// calls AttemptFailed for every attempt with the broker's code, logs one
// warning once the failures have lasted 5 s — none for a short run of
// failures — and an Info line when it is acknowledged again; the record
// is written once, its callback never sees an error.
func TestLongFailureIsLoggedAndHooked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mn := memnet.New(1)
		c := newCluster(t, 1, sim.Network(mn))
		var logs lockedBuffer
		var mu sync.Mutex
		var failed []error
		hook := func(topic string, partition int32, broker int32, records int, err error) {
			mu.Lock()
			defer mu.Unlock()
			if topic != "t" || partition != 0 || records != 1 || broker < 0 {
				err = errors.Join(err, errors.New("hook called with the wrong partition, broker or records"))
			}
			failed = append(failed, err)
		}
		p, err := client.NewProducer(client.Brokers(c.Addrs()...), client.Dialer(mn.Dial), client.SyncTest(synctest.Wait),
			client.WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))),
			client.WithHooks(client.Hooks{AttemptFailed: hook}))
		require.NoError(t, err)
		t.Cleanup(func() { _ = p.Close(context.Background()) })
		ctx := context.Background()

		// A short run of failures: hooked, not logged.
		require.NoError(t, c.InjectError("t", 0, 19, 3))
		require.NoError(t, p.ProduceSync(ctx, &client.Record{Topic: "t", Value: []byte("short")}).FirstErr())
		require.NotContains(t, logs.String(), "failing")

		require.NoError(t, c.InjectError("t", 0, 19, 25))
		start := time.Now()
		rec := &client.Record{Topic: "t", Value: []byte("long")}
		require.NoError(t, p.ProduceSync(ctx, rec).FirstErr())
		took := time.Since(start)
		t.Logf("25 refusals in a row: acknowledged after %v\n%s", took, logs.String())
		require.Greater(t, took, 10*time.Second, "the backoff grows to 1 s")

		mu.Lock()
		require.Len(t, failed, 28)
		for _, err := range failed {
			require.ErrorIs(t, err, protocol.ErrNotEnoughReplicas)
		}
		mu.Unlock()
		out := logs.String()
		require.Equal(t, 1, strings.Count(out, "keep failing"), out)
		require.Contains(t, out, "level=WARN")
		require.Contains(t, out, "NOT_ENOUGH_REPLICAS")
		require.Equal(t, 1, strings.Count(out, "partition acknowledged again"), out)
		require.Contains(t, out, "failed_attempts=25")
		log, err := readback.ReadTopicConn(ctx, c.Addrs(), "t", protocol.ConnConfig{Dial: mn.Dial})
		require.NoError(t, err)
		var got []string
		for _, r := range log[0] {
			got = append(got, string(r.Value))
		}
		require.Equal(t, []string{"short", "long"}, got)
	})
}
