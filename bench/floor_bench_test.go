package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/rollsafe/rollsafe/batching"
	"github.com/rollsafe/rollsafe/batching/fixture"
	"github.com/rollsafe/rollsafe/compress"
)

// BenchmarkCodecFloor measures what the codec alone costs per record in a
// gzip cell of BenchmarkProduce: klauspost's gzip writer at its default
// level — the level both rollsafe and kgo use by default (kgo's
// GzipCompression) — compressing the cell's records, encoded as full
// 1 MiB RecordBatch record sections the way the clients batch them, one
// section after another on one goroutine. It reports cpu-ns/rec (getrusage
// of the process, which does nothing else meanwhile).
//
// No client that compresses with the same writer at the same level can
// spend less CPU per record than this, so where it is above 0.9 of kgo's
// cpu-ns/rec in BenchmarkProduce, no such client can reach 0.9× kgo's CPU
// per record in that cell. perftable runs it in every round beside the
// clients of each gzip cell. (rollsafe's compress package writes the gzip
// framing around klauspost's deflate itself, the same bytes, with a CRC-32
// about twice as fast as hash/crc32's: ~10 ns per 1 KB record below this
// floor; the deflate, nearly all of it, is the same.)
//
//	cd bench && go test -run '^$' -bench 'BenchmarkCodecFloor/codec=gzip/size=1KB' -benchtime 600000x
func BenchmarkCodecFloor(b *testing.B) {
	for _, size := range []int{fixture.Small, fixture.Large} {
		b.Run(fmt.Sprintf("codec=%s/size=%s", compress.Gzip, sizeName(size)), func(b *testing.B) {
			benchGzipFloor(b, eventRing(size))
		})
	}
}

// recordBatchHeaderLen is the fixed part of a RecordBatch v2 before its
// records: base offset 8, length 4, leader epoch 4, magic 1, CRC 4,
// attributes 2, last offset delta 4, first and max timestamps 16, producer
// id 8, epoch 2, base sequence 4, record count 4.
const recordBatchHeaderLen = 61

// floorSection is one batch's uncompressed records section and its record
// count.
type floorSection struct {
	records []byte
	n       int
}

// floorSections encodes ring's records, in order, into uncompressed
// batches of batching's default size (1 MiB) with rollsafe's batching
// package and returns their record sections — the bytes a client
// compresses — leaving out a last, partly filled batch when there are full
// ones.
func floorSections(ring []fixture.Event) ([]floorSection, error) {
	var out []floorSection
	var acc *batching.Accumulator
	acc, err := batching.NewAccumulator(batching.Config{Codec: compress.None, Linger: -1, Workers: 1}, func(bt *batching.Batch) {
		raw := bt.Bytes()
		out = append(out, floorSection{records: append([]byte(nil), raw[recordBatchHeaderLen:]...), n: bt.Records})
		acc.Release(bt)
	})
	if err != nil {
		return nil, err
	}
	defer acc.Close()
	ctx := context.Background()
	tp := batching.TopicPartition{Topic: peersTopic}
	for i := range ring {
		ev := &ring[i]
		if err := acc.Append(ctx, tp, &batching.Record{Key: ev.Key, Value: ev.Value, Timestamp: ev.Timestamp}, nil); err != nil {
			return nil, err
		}
	}
	acc.Flush()
	if err := acc.Drain(ctx); err != nil {
		return nil, err
	}
	if len(out) > 1 {
		out = out[:len(out)-1]
	}
	return out, nil
}

func benchGzipFloor(b *testing.B, ring []fixture.Event) {
	sections, err := floorSections(ring)
	if err != nil {
		b.Fatal(err)
	}
	w, err := gzip.NewWriterLevel(nil, gzip.DefaultCompression)
	if err != nil {
		b.Fatal(err)
	}
	var out bytes.Buffer
	compressOne := func(s floorSection) error {
		out.Reset()
		w.Reset(&out)
		if _, err := w.Write(s.records); err != nil {
			return err
		}
		return w.Close()
	}
	// The sections round-trip: what is timed is a real compression of them.
	var in, total int
	for _, s := range sections {
		if err := compressOne(s); err != nil {
			b.Fatal(err)
		}
		if err := gunzipEquals(out.Bytes(), s.records); err != nil {
			b.Fatal(err)
		}
		in += len(s.records)
		total += out.Len()
	}
	b.ReportAllocs()
	cpu0 := selfCPU()
	start := time.Now()
	b.ResetTimer()
	n := 0
	for i := 0; n < b.N; i++ {
		s := sections[i%len(sections)]
		if err := compressOne(s); err != nil {
			b.Fatal(err)
		}
		n += s.n
	}
	b.StopTimer()
	cpu, wall := selfCPU()-cpu0, time.Since(start)
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(n), "cpu-ns/rec")
	b.ReportMetric(float64(n)/wall.Seconds(), "rec/s")
	b.ReportMetric(float64(in)/float64(total), "ratio")
}

// gunzipEquals checks that gz decompresses to want.
func gunzipEquals(gz, want []byte) error {
	r, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return err
	}
	got, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if !bytes.Equal(got, want) {
		return fmt.Errorf("bench: gzip round trip: %d bytes back, want %d", len(got), len(want))
	}
	return nil
}
