package batching

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/compress"
)

// encoded reports whether b has been encoded, under the lock workers and
// Bytes take to encode a delivered batch.
func encoded(b *Batch) bool {
	b.encMu.Lock()
	defer b.encMu.Unlock()
	return b.wire != nil
}

// incompressibleRecords are n records of size-byte random values: their
// compressed batches are as large as their records.
func incompressibleRecords(seed uint64, n, size int) []Record {
	rng := rand.New(rand.NewPCG(seed, 2))
	out := make([]Record, n)
	for i := range out {
		v := make([]byte, size)
		for j := range v {
			v[j] = byte(rng.Uint32())
		}
		out[i] = Record{Key: []byte{byte(i)}, Value: v, Timestamp: time.UnixMilli(1_700_000_000_000 + int64(i))}
	}
	return out
}

// Compressed batches beyond eagerUnsent bytes of compressed, not yet sent
// ones are delivered unencoded, so that a stalled sender holds the records
// and a bounded amount of compressed copies (incompressible values: each
// copy as large as its records); once batches are handed out, the workers
// encode the waiting ones ahead of the sender, oldest first, and every
// batch reads back as appended, whoever encoded it. The bound is a quarter
// of MaxBufferedBytes when that is more than eight batches.
func TestCompressedAheadBounded(t *testing.T) {
	for _, codec := range []compress.Codec{compress.Gzip, compress.LZ4, compress.Zstd, compress.Snappy} {
		t.Run(codec.String(), func(t *testing.T) {
			if n := eagerUnsentFor(Config{Codec: codec, BatchBytes: 1 << 20, MaxBufferedBytes: 64 << 20}); n != 16<<20 {
				t.Fatalf("eagerUnsent for 64 MiB buffered: %d, want 16 MiB", n)
			}
			if n := eagerUnsentFor(Config{Codec: compress.None, BatchBytes: 1 << 20, MaxBufferedBytes: 64 << 20}); n != 8<<20 {
				t.Fatalf("eagerUnsent uncompressed: %d, want 8 MiB", n)
			}
			col := newCollector()
			// A quarter of MaxBufferedBytes (25,000) is below eight
			// batches (32,000): the bound is the eight batches'.
			a := newAcc(t, Config{Codec: codec, BatchBytes: 4000, MaxBufferedBytes: 100_000, MaxRecordBytes: 4000, Linger: -1, Workers: 2}, col.ready)
			if a.eagerUnsent != 32000 {
				t.Fatalf("eagerUnsent %d, want 32000", a.eagerUnsent)
			}
			tp := TopicPartition{"t", 0}
			recs := incompressibleRecords(uint64(codec), 180, 500) // ~24 batches of ~3.6 KB
			appendN(t, a, tp, recs)
			drain(t, a)
			bs := col.batches(tp)
			n := 0
			for _, b := range bs {
				if encoded(b) {
					n++
				}
			}
			// Two workers may each pass the bound with one batch.
			if u := a.unsent.Load(); n == len(bs) || u < a.eagerUnsent || u > a.eagerUnsent+2*4100 {
				t.Fatalf("%d of %d batches encoded ahead of a stalled sender, %d bytes unsent (bound %d)", n, len(bs), u, a.eagerUnsent)
			}
			// Hand out the encoded ones: the workers encode the next ones.
			first := n
			for _, b := range bs[:first] {
				b.Bytes()
			}
			deadline := time.Now().Add(10 * time.Second)
			for !encoded(bs[first]) {
				if time.Now().After(deadline) {
					t.Fatalf("batch %d not encoded by a worker once room freed", first)
				}
				time.Sleep(time.Millisecond)
			}
			if err := checkPartition(bs, recs, codec, 4000); err != nil {
				t.Fatal(err)
			}
			releaseAll(t, a, bs)
		})
	}
}

// Batches delivered unencoded and released before a worker reaches them
// (their records failed) are not encoded afterwards, even when their
// Batch is reused for another partition's records meanwhile; the reused
// one reads back as its own.
func TestLateBatchReleasedThenReused(t *testing.T) {
	col := newCollector()
	a := newAcc(t, Config{Codec: compress.Gzip, BatchBytes: 4000, MaxBufferedBytes: 100_000, MaxRecordBytes: 4000, Linger: -1, Workers: 2}, col.ready)
	tp := TopicPartition{"t", 0}
	recs := incompressibleRecords(9, 180, 500)
	appendN(t, a, tp, recs)
	drain(t, a)
	bs := col.batches(tp)
	var late, held []*Batch // delivered unencoded; encoded ahead, kept by the test
	for _, b := range bs {
		if encoded(b) {
			held = append(held, b)
		} else {
			late = append(late, b)
		}
	}
	if len(late) == 0 {
		t.Fatal("no batch delivered unencoded")
	}
	for _, b := range late {
		a.Release(b) // back to the pool, unencoded
	}
	tp2 := TopicPartition{"u", 1}
	recs2 := incompressibleRecords(10, 100, 500)
	appendN(t, a, tp2, recs2) // reuses released Batches
	// Only the batches still held are read: a released one may be tp2's
	// now, being encoded by a worker.
	for _, b := range held {
		b.Bytes() // room frees: workers go through the stale late entries
	}
	drain(t, a)
	bs2 := col.batches(tp2)
	if err := checkPartition(bs2, recs2, compress.Gzip, 4000); err != nil {
		t.Fatal(err)
	}
	releaseAll(t, a, append(bs2, held...))
}
