package batching

import (
	"testing"
	"time"
	"unsafe"

	"github.com/rollsafe/rollsafe/compress"
)

// Every size gets a class whose buffers hold it and waste under 25 %, and a
// buffer goes back to a class it can serve.
func TestBufClasses(t *testing.T) {
	for n := 1; n <= 1<<22; n += 1 + n/97 {
		k := bufClassFor(n)
		size := bufClassSize(k)
		if size < n || (n > minBufSize && size > n+n/4) {
			t.Fatalf("n=%d: class %d of %d bytes", n, k, size)
		}
		if k > 0 && bufClassSize(k-1) >= n {
			t.Fatalf("n=%d: class %d, but %d (%d bytes) holds it", n, k, k-1, bufClassSize(k-1))
		}
		if got := bufClassOf(size); got != k {
			t.Fatalf("cap %d: class %d, want %d", size, got, k)
		}
		if c := bufClassOf(n); c >= 0 && bufClassSize(c) > n {
			t.Fatalf("cap %d: class %d of %d bytes", n, c, bufClassSize(c))
		}
	}
	if bufClassSize(bufClasses-1) != 1<<30 {
		t.Fatalf("largest class %d bytes", bufClassSize(bufClasses-1))
	}
	var p bufPool
	p.maxBytes = 1 << 20
	b := p.get(5000)
	if cap(b) != 5<<10 {
		t.Fatalf("get(5000): cap %d", cap(b))
	}
	p.put(b)
	if c := p.get(4097); cap(c) != 5<<10 || p.bytes != 0 {
		t.Fatalf("pooled buffer not reused: cap %d, %d bytes pooled", cap(c), p.bytes)
	}
}

// A compressed batch's copy of its compressed bytes comes from the
// size-class pool and returns to it on Release: the next batch of about
// its size reuses that buffer rather than faulting in a fresh one (kept
// with the Batch at its exact size, it was too small for the next batch
// half the time).
func TestCompressedCopyPooled(t *testing.T) {
	for _, codec := range []compress.Codec{compress.Gzip, compress.Snappy, compress.LZ4, compress.Zstd} {
		t.Run(codec.String(), func(t *testing.T) {
			col := newCollector()
			a := newAcc(t, Config{Codec: codec, Linger: -1, Workers: 1}, col.ready)
			tp := TopicPartition{"t", 0}
			recs := randomRecords(3, 400, 300)
			for i := range recs {
				recs[i].Timestamp = time.UnixMilli(1_700_000_000_000 + int64(i))
			}
			var bufs []*byte
			for round := range 3 {
				appendN(t, a, tp, recs)
				drain(t, a)
				b := col.batches(tp)[round]
				raw := b.Bytes()
				if err := checkKmsg(raw, recs); err != nil {
					t.Fatalf("round %d: %v", round, err)
				}
				bufs = append(bufs, unsafe.SliceData(raw))
				a.Release(b)
				if a.bufs.bytes < int64(len(raw)) {
					t.Fatalf("round %d: released batch's %d compressed bytes not pooled (%d bytes pooled)", round, len(raw), a.bufs.bytes)
				}
			}
			if bufs[1] != bufs[0] || bufs[2] != bufs[0] {
				t.Fatalf("the same records compressed again went to a new buffer: %p %p %p", bufs[0], bufs[1], bufs[2])
			}
		})
	}
}
