package bench

import (
	"context"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/batching/fixture"
	"github.com/rollsafe/rollsafe/compress"
)

// TestPeersProduce runs BenchmarkProduce's code once, small: every client
// produces a few fixture records to each broker setup (every codec to one
// broker, gzip to three) and every record must be acknowledged at its own
// offset, the offsets of each partition consecutive (the brokers discard
// the records but still count offsets, so a lost or doubled write shows).
func TestPeersProduce(t *testing.T) {
	base := liveGoroutines()
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	events := fixture.Events(fixture.Seed, 60, fixture.Small)

	for _, setup := range []struct {
		spec   brokerSpec
		codecs []compress.Codec
	}{
		{brokerSpec{"kfake", 1}, compress.Codecs()},
		{brokerSpec{"sim", 1}, compress.Codecs()},
		{brokerSpec{"kfake", 3}, []compress.Codec{compress.Gzip}},
		{brokerSpec{"sim", 3}, []compress.Codec{compress.Gzip}},
	} {
		t.Run(setup.spec.String(), func(t *testing.T) {
			bp, err := startBrokerProc(setup.spec)
			require.NoError(t, err)
			require.Len(t, bp.addrs, setup.spec.brokers)
			defer func() { require.NoError(t, bp.stop()) }()
			for _, pc := range peerClients {
				for _, codec := range setup.codecs {
					t.Run(pc.name+"/"+codec.String(), func(t *testing.T) {
						produceChecked(ctx, t, bp, pc, codec, events)
					})
				}
			}
		})
	}

	deadline := time.Now().Add(5 * time.Second)
	for len(liveGoroutines()) > len(base) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if left := liveGoroutines(); len(left) > len(base) {
		t.Fatalf("goroutines left after the clients closed: %d, before %d:\n%s", len(left), len(base), strings.Join(left, "\n\n"))
	}
}

// processWide are goroutines a dependency starts once per process and never
// stops: not leaks of a client. go-metrics' meter ticker comes with sarama's
// default metrics registry.
var processWide = []string{"rcrowley/go-metrics.(*meterArbiter).tick"}

// liveGoroutines returns the stacks of all goroutines but the process-wide
// ones.
func liveGoroutines() []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var out []string
next:
	for _, g := range strings.Split(string(buf), "\n\n") {
		for _, skip := range processWide {
			if strings.Contains(g, skip) {
				continue next
			}
		}
		out = append(out, g)
	}
	return out
}

func produceChecked(ctx context.Context, t *testing.T, bp *brokerProc, pc peerClient, codec compress.Codec, events []fixture.Event) {
	var mu sync.Mutex
	offsets := map[int32][]int64{}
	p, err := pc.open(ctx, bp.addrs, codec, func(part int32, off int64) {
		mu.Lock()
		offsets[part] = append(offsets[part], off)
		mu.Unlock()
	})
	require.NoError(t, err)
	for i := range events {
		p.produce(ctx, &events[i])
	}
	require.NoError(t, p.flush(ctx))
	require.NoError(t, p.close())

	mu.Lock()
	defer mu.Unlock()
	total := 0
	for part, offs := range offsets {
		require.True(t, part >= 0 && part < peersPartitions, "partition %d", part)
		slices.Sort(offs)
		for i := 1; i < len(offs); i++ {
			require.Equal(t, offs[i-1]+1, offs[i], "partition %d offsets %v", part, offs)
		}
		total += len(offs)
	}
	require.Equal(t, len(events), total, "acknowledged records")
	require.GreaterOrEqual(t, len(offsets), 2, "keys should spread over partitions")
}

func TestParseBrokerSpec(t *testing.T) {
	s, err := parseBrokerSpec("sim:3")
	require.NoError(t, err)
	require.Equal(t, brokerSpec{"sim", 3}, s)
	require.Equal(t, "sim:3", s.String())
	for _, bad := range []string{"", "sim", "sim:0", "sim:x", "redpanda:1", "kfake:99"} {
		_, err := parseBrokerSpec(bad)
		require.ErrorIs(t, err, errBadBrokerSpec, bad)
	}
}
