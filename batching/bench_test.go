package batching

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/rollsafe/rollsafe/batching/fixture"
	"github.com/rollsafe/rollsafe/compress"
)

// benchRecords returns fixture records filling exactly one batch of
// DefaultBatchBytes, and that batch's records section.
func benchRecords(b *testing.B, valueSize int) ([]Record, []byte) {
	b.Helper()
	events := fixture.Events(fixture.Seed, 2*DefaultBatchBytes/valueSize, valueSize)
	recs := make([]Record, len(events))
	for i, e := range events {
		recs[i] = Record{Key: e.Key, Value: e.Value, Timestamp: e.Timestamp}
	}
	var first *Batch
	a, err := NewAccumulator(Config{Linger: -1, Workers: 1}, func(bt *Batch) {
		if first == nil {
			first = bt
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	for i := range recs {
		if err := a.TryAppend(TopicPartition{"bench", 0}, &recs[i], nil); err != nil {
			b.Fatal(err)
		}
	}
	a.Close()
	return recs[:first.Records], append([]byte(nil), first.raw[batchHeaderLen:]...)
}

// BenchmarkRawGzip1KB is klauspost's gzip writer alone at the default
// level on one full batch's records section of 1 KB fixture records: the
// floor of any client's CPU per record in the gzip 1 KB cells (cpu-ns/rec),
// and the reference of BatchGzip1KB's cpu-MB/s (the hot path stays
// >= 85 % of it).
func BenchmarkRawGzip1KB(b *testing.B) { benchRawGzip(b, fixture.Large) }

// BenchmarkRawGzip100B is BenchmarkRawGzip1KB with 100 B values.
func BenchmarkRawGzip100B(b *testing.B) { benchRawGzip(b, fixture.Small) }

func benchRawGzip(b *testing.B, valueSize int) {
	recs, section := benchRecords(b, valueSize)
	w, err := gzip.NewWriterLevel(nil, gzip.DefaultCompression)
	if err != nil {
		b.Fatal(err)
	}
	out := appender{b: make([]byte, 0, len(section))}
	b.SetBytes(int64(len(section)))
	b.ReportAllocs()
	cpu0 := cpuTime()
	b.ResetTimer()
	for range b.N {
		out.b = out.b[:0]
		w.Reset(&out)
		if _, err := w.Write(section); err != nil {
			b.Fatal(err)
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	cpu := (cpuTime() - cpu0).Seconds()
	// MB per CPU second: comparable with BatchGzip1KB's on a loaded machine,
	// where MB/s (wall) says more about the neighbours than the code.
	b.ReportMetric(float64(len(section))*float64(b.N)/cpu/1e6, "cpu-MB/s")
	b.ReportMetric(cpu*1e9/float64(b.N*len(recs)), "cpu-ns/rec")
	b.ReportMetric(float64(len(section))/float64(len(out.b)), "ratio")
}

// cpuTime returns the CPU time the process has used, all threads.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

type appender struct{ b []byte }

func (a *appender) Write(p []byte) (int, error) { a.b = append(a.b, p...); return len(p), nil }

// benchAccumulator runs one op = one batch's records appended through the
// accumulator (encoding on the caller's goroutine, compression and CRC on
// workers); ready releases each batch. It reports the batch metrics.
func benchAccumulator(b *testing.B, codec compress.Codec, valueSize, partitions, workers int) {
	recs, section := benchRecords(b, valueSize)
	var a *Accumulator
	var batches, compressed atomic.Int64
	// A batch size of exactly this section closes each batch by size on
	// its last record: one op is one batch, the same bytes as RawGzip's.
	cfg := Config{Codec: codec, BatchBytes: batchHeaderLen + len(section), Linger: -1, Workers: workers}
	a, err := NewAccumulator(cfg, func(bt *Batch) {
		batches.Add(1)
		compressed.Add(int64(len(bt.Bytes())))
		a.Release(bt)
	})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	tps := make([]TopicPartition, partitions)
	for i := range tps {
		tps[i] = TopicPartition{"bench", int32(i)}
	}
	ctx := context.Background()
	run := func(n int) {
		for i := range n {
			tp := tps[i%len(tps)]
			for j := range recs {
				if err := a.Append(ctx, tp, &recs[j], nil); err != nil {
					b.Fatal(err)
				}
			}
		}
		a.Flush()
		if err := a.Drain(ctx); err != nil {
			b.Fatal(err)
		}
	}
	// Warm the pools: as many batches as the buffer holds, and more.
	run(DefaultMaxBufferedBytes/len(section) + 4*partitions)
	batches.Store(0)
	compressed.Store(0)
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	b.SetBytes(int64(len(section)))
	b.ReportAllocs()
	cpu0, wall0 := cpuTime(), time.Now()
	b.ResetTimer()
	run(b.N)
	b.StopTimer()
	cpu := cpuTime() - cpu0
	cores := float64(cpu) / float64(time.Since(wall0))
	runtime.ReadMemStats(&m1)
	n := batches.Load()
	if n != int64(b.N) {
		b.Fatalf("%d batches for %d ops", n, b.N)
	}
	allocs := float64(m1.Mallocs - m0.Mallocs)
	b.ReportMetric(float64(len(recs)), "records/batch")
	b.ReportMetric(cores, "cores")
	b.ReportMetric(float64(int64(len(section))*n)/cpu.Seconds()/1e6, "cpu-MB/s")
	b.ReportMetric(allocs/float64(n), "allocs/batch")
	b.ReportMetric(allocs/float64(n)/float64(len(recs)), "allocs/record")
	b.ReportMetric(float64(int64(len(section))*n)/float64(compressed.Load()), "ratio")
}

func BenchmarkBatchGzip1KB(b *testing.B) { benchAccumulator(b, compress.Gzip, fixture.Large, 1, 1) }

func BenchmarkBatch(b *testing.B) {
	for _, size := range []int{fixture.Small, fixture.Large} {
		for _, codec := range compress.Codecs() {
			b.Run(fmt.Sprintf("%s/%dB", codec, size), func(b *testing.B) {
				benchAccumulator(b, codec, size, 1, 1)
			})
		}
	}
}

// BenchmarkParallelGzip1KB shows the compression path using every core:
// two partitions (or one hot partition) through two workers, against one.
func BenchmarkParallelGzip1KB(b *testing.B) {
	for _, c := range []struct{ partitions, workers int }{{2, 1}, {2, 2}, {1, 2}} {
		b.Run(fmt.Sprintf("partitions=%d/workers=%d", c.partitions, c.workers), func(b *testing.B) {
			benchAccumulator(b, compress.Gzip, fixture.Large, c.partitions, c.workers)
		})
	}
}

// BenchmarkLingerBacklog guards LingerHold: the caller outruns one gzip
// worker (1 KB records over 6 partitions, Linger 1ms), so batches whose
// linger ends while closed batches wait for the worker stay open and fill.
// One op is one record; records/batch falls (and B/op and the worker's
// CPU per record rise) if linger closes batches behind a backlog again.
func BenchmarkLingerBacklog(b *testing.B) {
	events := fixture.Events(fixture.Seed, 4096, fixture.Large)
	recs := make([]Record, len(events))
	for i, e := range events {
		recs[i] = Record{Key: e.Key, Value: e.Value, Timestamp: e.Timestamp}
	}
	var a *Accumulator
	var batches atomic.Int64
	a, err := NewAccumulator(Config{Codec: compress.Gzip, Linger: time.Millisecond, Workers: 1}, func(bt *Batch) {
		batches.Add(1)
		a.Release(bt)
	})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	ctx := context.Background()
	const partitions = 6
	b.ReportAllocs()
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := range b.N {
		tp := TopicPartition{"bench", int32(i % partitions)}
		if err := a.Append(ctx, tp, &recs[i%len(recs)], nil); err != nil {
			b.Fatal(err)
		}
	}
	a.Flush()
	if err := a.Drain(ctx); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/float64(max(batches.Load(), 1)), "records/batch")
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/rec")
}

// BenchmarkEncodeNone1KB guards the encoding of an uncompressed batch when
// it closes: one op is finish on a full batch of held 1 KB fixture records,
// the copy of each record with its CRC32C fused in 16 KiB chunks behind it
// (a second pass over the MiB would show as a drop in cpu-MB/s), into a
// buffer from the size-class pool (allocs/op 0).
func BenchmarkEncodeNone1KB(b *testing.B) { benchEncodeNone(b, fixture.Large) }

// BenchmarkEncodeNone100B is BenchmarkEncodeNone1KB with 100 B values, where
// the per-record work (varints, two short copies) weighs more than the copy.
func BenchmarkEncodeNone100B(b *testing.B) { benchEncodeNone(b, fixture.Small) }

// BenchmarkEncodeGzip1KB guards the encoding and compression of a gzip
// batch on a batch worker: one op is finish on a full batch of held 1 KB
// fixture records, with the worker's scratch — records encoded 32 KiB at a
// time into a reused buffer and streamed to the compressor, compressed into
// a reused output buffer, copied to the batch at its size. Its cpu-MB/s
// against RawGzip1KB's (the compressor alone on the same bytes) is the
// overhead of everything but the compressor (the hot path stays >= 85 % of
// it); allocs/op 0 while the buffers are reused.
func BenchmarkEncodeGzip1KB(b *testing.B) { benchEncode(b, fixture.Large, compress.Gzip) }

func benchEncodeNone(b *testing.B, valueSize int) { benchEncode(b, valueSize, compress.None) }

func benchEncode(b *testing.B, valueSize int, codec compress.Codec) {
	recs, section := benchRecords(b, valueSize)
	comp, err := compress.NewCompressor(codec, compress.DefaultLevel)
	if err != nil {
		b.Fatal(err)
	}
	a := &Accumulator{comp: comp}
	a.cfg.Codec = codec
	a.bufs.maxBytes = 1 << 30
	bt := new(Batch)
	bt.reset(a, nil, TopicPartition{"bench", 0}, 0)
	for i := range recs {
		h := holdRecord(&recs[i], recs[i].Timestamp.UnixMilli(), nil)
		first := h.ts
		if bt.Records > 0 {
			first = bt.firstTS
		}
		size := encodedLen(bodyLenOf(fieldsLen(h.key, h.value, h.headers), h.ts-first, int32(bt.Records)))
		bt.add(&h, h.ts, size)
	}
	if bt.rawLen != batchHeaderLen+len(section) {
		b.Fatalf("batch of %d bytes, want %d", bt.rawLen, batchHeaderLen+len(section))
	}
	var sc scratch
	b.SetBytes(int64(len(section)))
	b.ReportAllocs()
	cpu0 := cpuTime()
	b.ResetTimer()
	for range b.N {
		bt.finish(a.comp, &sc)
		if bt.codec != codec {
			b.Fatalf("batch sent as %v, want %v", bt.codec, codec)
		}
		a.bufs.put(bt.raw)
		bt.raw = nil
		a.bufs.put(bt.comp)
		bt.comp = nil
	}
	b.StopTimer()
	b.ReportMetric(float64(len(section))*float64(b.N)/(cpuTime()-cpu0).Seconds()/1e6, "cpu-MB/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(recs)), "ns/rec")
	if batchCRC(bt.wire) != be.Uint32(bt.wire[offCRC:]) {
		b.Fatal("CRC mismatch")
	}
}

// BenchmarkVaryingBatches guards the size-class buffer pool: uncompressed
// 1 KB records in batches of varying size (closed by Flush after 10 to
// 1000 records, as linger and Flush close them), released as they come.
// One op is one batch; B/op stays near 0 while released buffers are reused,
// and rises towards the batch size (≈500 KB) when they are not.
func BenchmarkVaryingBatches(b *testing.B) {
	events := fixture.Events(fixture.Seed, 1000, fixture.Large)
	recs := make([]Record, len(events))
	for i, e := range events {
		recs[i] = Record{Key: e.Key, Value: e.Value, Timestamp: e.Timestamp}
	}
	var a *Accumulator
	a, err := NewAccumulator(Config{Linger: -1, Workers: 1}, func(bt *Batch) { a.Release(bt) })
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	ctx := context.Background()
	sizes := []int{1000, 37, 420, 10, 990, 260, 700, 130, 555, 64}
	run := func(n int) {
		for i := range n {
			for j := range sizes[i%len(sizes)] {
				if err := a.Append(ctx, TopicPartition{"bench", 0}, &recs[j], nil); err != nil {
					b.Fatal(err)
				}
			}
			a.Flush()
		}
		if err := a.Drain(ctx); err != nil {
			b.Fatal(err)
		}
	}
	run(4 * len(sizes))
	b.ReportAllocs()
	b.ResetTimer()
	run(b.N)
}
