package bench

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/rollsafe/rollsafe/batching/fixture"
	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/compress"
)

// Buffer limits both clients get in BenchmarkBuffered: room for a million
// 1 KB records, so that the records limit (1Mi, kgo's raised default in
// BenchmarkProduce too) is the one that binds.
const (
	bufferedRecords = 1 << 20
	bufferedBytes   = 2 << 30
)

// BenchmarkBuffered measures the memory a client needs to hold records its
// stalled broker does not take: the kfake child is stopped (SIGSTOP) after
// warm-up, b.N 1 KB records are produced (each value freshly allocated, as
// an application serialising events would), then the broker resumes and
// every record is flushed. Both clients get the same limits (1Mi records,
// 2 GiB), uncompressed and with gzip (whose compressed batches a client
// may hold besides the records), on the fixture's values and on random
// ones gzip cannot shrink (values=random: a compressed copy as large as its
// records). Reported: peak-RSS-MB (VmHWM of the whole process, reset
// before the records), heap-MB (heap in use with the records buffered),
// live-MB (heap after a GC with the records still buffered) and unacked
// (records without an outcome when the last was produced). Run with
//
//	go test -run '^$' -bench BenchmarkBuffered -benchtime 1000000x -benchmem
//
// (Linux: SIGSTOP and /proc).
func BenchmarkBuffered(b *testing.B) {
	ring := eventRing(fixture.Large)
	random := randomRing(ring)
	for _, c := range []struct {
		name  string
		codec compress.Codec
		ring  []fixture.Event
	}{
		{"codec=none", compress.None, ring},
		{"codec=gzip", compress.Gzip, ring},
		{"codec=gzip/values=random", compress.Gzip, random},
	} {
		for _, name := range []string{"rollsafe", "kgo"} {
			b.Run(c.name+"/client="+name, func(b *testing.B) {
				benchBuffered(b, c.ring, c.codec, name)
			})
		}
	}
}

// randomRing is ring with random values of the same sizes: gzip finds no
// match within its 32 KiB window in them.
func randomRing(ring []fixture.Event) []fixture.Event {
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]fixture.Event, len(ring))
	for i, ev := range ring {
		v := make([]byte, len(ev.Value))
		for j := range v {
			v[j] = byte(rng.Uint32())
		}
		out[i] = fixture.Event{Key: ev.Key, Value: v, Timestamp: ev.Timestamp}
	}
	return out
}

// benchBuffered is one client and codec of BenchmarkBuffered.
func benchBuffered(b *testing.B, ring []fixture.Event, codec compress.Codec, name string) {
	bp, err := startBrokerProc(brokerSpec{"kfake", 1})
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := bp.stop(); err != nil {
			b.Error(err)
		}
	}()
	var p peerProducer
	var o *outcomes
	if name == "rollsafe" {
		rp, err := newRollsafe(bp.addrs, codec, nil, client.MaxBuffered(bufferedRecords, bufferedBytes))
		if err != nil {
			b.Fatal(err)
		}
		p, o = rp, &rp.o
	} else {
		kp, err := newKgo(bp.addrs, codec, nil, kgo.MaxBufferedRecords(bufferedRecords), kgo.MaxBufferedBytes(bufferedBytes))
		if err != nil {
			b.Fatal(err)
		}
		p, o = kp, &kp.o
	}
	defer func() {
		if err := p.close(); err != nil {
			b.Error(err)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), benchTimeout)
	defer cancel()
	for i := range benchWarmup {
		p.produce(ctx, &ring[i%len(ring)])
	}
	if err := p.flush(ctx); err != nil {
		b.Fatal(err)
	}
	if err := bp.pause(); err != nil {
		b.Skip("cannot stall the broker:", err)
	}
	runtime.GC()
	var m0, m1, m2 runtime.MemStats
	runtime.ReadMemStats(&m0)
	peakRSS(true)
	before := o.resolved.Load()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		src := &ring[i%len(ring)]
		ev := fixture.Event{Key: src.Key, Value: append([]byte(nil), src.Value...), Timestamp: src.Timestamp}
		p.produce(ctx, &ev)
	}
	b.StopTimer()
	unacked := int64(b.N) - (o.resolved.Load() - before)
	hwm, _ := peakRSS(false)
	runtime.ReadMemStats(&m1)
	runtime.GC()
	runtime.ReadMemStats(&m2)
	if err := bp.resume(); err != nil {
		b.Fatal(err)
	}
	if err := p.flush(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(hwm)/(1<<20), "peak-RSS-MB")
	b.ReportMetric(float64(m1.HeapInuse)/(1<<20), "heap-MB")
	b.ReportMetric(float64(m2.HeapAlloc)/(1<<20), "live-MB")
	b.ReportMetric(float64(unacked), "unacked")
	b.ReportMetric(0, "ns/op")
}

// TestMaxBufferedStalledBroker: with its broker stalled (SIGSTOP), a
// producer accepts records only up to MaxBuffered; TryProduce refuses the
// rest with ErrBufferFull, Produce waits for room only until its ctx ends,
// the heap stays within the bound, and once the broker resumes every
// accepted record is acknowledged.
func TestMaxBufferedStalledBroker(t *testing.T) {
	const (
		maxRecords = 3000
		maxBytes   = 2 << 20 // binds first: about 2,000 1 KB records
		attempts   = 60_000  // 60 MB offered
	)
	bp, err := startBrokerProc(brokerSpec{"kfake", 1})
	require.NoError(t, err)
	defer func() { require.NoError(t, bp.stop()) }()
	rp, err := newRollsafe(bp.addrs, compress.Gzip, nil, client.MaxBuffered(maxRecords, maxBytes))
	require.NoError(t, err)
	defer func() { require.NoError(t, rp.close()) }()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ring := eventRing(fixture.Large)
	for i := range 100 {
		rp.produce(ctx, &ring[i%len(ring)])
	}
	require.NoError(t, rp.flush(ctx))

	if err := bp.pause(); err != nil {
		t.Skip("cannot stall the broker:", err)
	}
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	var accepted, full, other atomic.Int64
	var firstOther atomic.Value
	var peakRecs int
	var peakBytes int64
	for i := range attempts {
		ev := &ring[i%len(ring)]
		rp.o.expect()
		rp.p.TryProduce(ctx, &client.Record{Topic: peersTopic, Key: ev.Key, Value: ev.Value, Timestamp: ev.Timestamp},
			func(_ *client.Record, err error) {
				switch {
				case err == nil:
					accepted.Add(1)
				case errors.Is(err, client.ErrBufferFull) && errors.Is(err, client.ErrNotWritten):
					full.Add(1)
				default:
					other.Add(1)
					firstOther.CompareAndSwap(nil, err)
				}
				rp.o.settle()
			})
		if r, b := rp.p.Buffered(); r > peakRecs || b > peakBytes {
			peakRecs, peakBytes = max(r, peakRecs), max(b, peakBytes)
		}
	}
	require.LessOrEqual(t, peakRecs, maxRecords, "records buffered beyond MaxBuffered")
	require.LessOrEqual(t, peakBytes, int64(maxBytes), "bytes buffered beyond MaxBuffered")

	// Produce waits for room only until its ctx ends.
	short, cancelShort := context.WithTimeout(ctx, 100*time.Millisecond)
	var waitErr error
	rp.o.expect()
	rp.p.Produce(short, &client.Record{Topic: peersTopic, Value: ring[0].Value}, func(_ *client.Record, err error) {
		waitErr = err
		rp.o.settle()
	})
	cancelShort()

	runtime.GC()
	runtime.ReadMemStats(&m1)
	grown := int64(m1.HeapAlloc) - int64(m0.HeapAlloc)
	// The bound, the batch pool's spare buffers and the clients' own state:
	// far below the 60 MB offered.
	require.Less(t, grown, int64(24<<20), "live heap grew %d MiB while %d MiB were offered to a stalled broker", grown>>20, attempts>>10)

	require.NoError(t, bp.resume())
	require.NoError(t, rp.o.wait(ctx))
	require.ErrorIs(t, waitErr, client.ErrNotWritten, "Produce past its ctx with a full buffer")
	require.Zero(t, other.Load(), "unexpected outcomes, first: %v", firstOther.Load())
	// Counted once every callback has run: a refusal's callback goes
	// through the callback queue, so it may still be queued when the
	// offering loop ends.
	require.Greater(t, full.Load(), int64(attempts/2), "TryProduce refused too few records with the broker stalled")
	require.Equal(t, int64(attempts), accepted.Load()+full.Load())
	t.Logf("accepted %d, refused %d, peak buffered %d records / %d bytes, heap +%d KiB", accepted.Load(), full.Load(), peakRecs, peakBytes, grown>>10)
}
