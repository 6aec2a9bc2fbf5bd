package batching

import (
	"context"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/rollsafe/rollsafe/compress"
)

// countingSource is a Source that counts how often its fields are read.
type countingSource struct {
	r     Record
	reads int
}

func (s *countingSource) BatchRecord() (key, value []byte, headers []Header, ts int64) {
	s.reads++
	return s.r.Key, s.r.Value, s.r.Headers, s.r.Timestamp.UnixMilli()
}

// Records appended as Sources are kept by reference, 16 bytes each, and
// read when appended and when their batch is encoded (not per retry); the
// batch holds exactly their fields, as kmsg reads them back, for every codec
// and after Split.
func TestAppendSource(t *testing.T) {
	if n := unsafe.Sizeof(Source(nil)); n != 16 {
		t.Fatalf("a Source takes %d bytes", n)
	}
	for _, codec := range []compress.Codec{compress.None, compress.Gzip, compress.LZ4, compress.Zstd} {
		t.Run(codec.String(), func(t *testing.T) {
			col := newCollector()
			a := newAcc(t, Config{Linger: -1, Codec: codec}, col.ready)
			tp := TopicPartition{Topic: "t", Partition: 0}
			ref := a.Ref(tp)
			rng := rand.New(rand.NewPCG(7, uint64(codec)))
			srcs := make([]*countingSource, 1000) // several streamChunks
			want := make([]Record, len(srcs))
			for i := range srcs {
				srcs[i] = &countingSource{r: randomRecord(rng, 300)}
				want[i] = srcs[i].r
				var err error
				if i%2 == 0 {
					err = a.AppendSourceTo(context.Background(), ref, srcs[i])
				} else {
					err = a.TryAppendSourceTo(ref, srcs[i])
				}
				if err != nil {
					t.Fatalf("append %d: %v", i, err)
				}
			}
			drain(t, a)
			bs := col.batches(tp)
			if len(bs) != 1 || bs[0].Records != len(srcs) {
				t.Fatalf("want one batch of %d records, got %d batches", len(srcs), len(bs))
			}
			b := bs[0]
			if b.rawLen < 3*streamChunk {
				t.Fatalf("batch of %d bytes: compressed in fewer than three stream chunks", b.rawLen)
			}
			if got := cap(b.srcs) * int(unsafe.Sizeof(Source(nil))); batchCap(b) != int64(cap(b.raw)+cap(b.comp)+got) {
				t.Fatalf("pool charges %d bytes, want buffers plus %d for the sources", batchCap(b), got)
			}
			for i := 0; i < 2; i++ { // a second Bytes, as on a retry, encodes nothing again
				if err := checkKmsg(b.Bytes(), want); err != nil {
					t.Fatal(err)
				}
			}
			for i, s := range srcs {
				// The source is the record's token: nothing is kept beside it.
				if s.reads != 2 || b.Sources()[i] != Source(s) || b.Token(i) != Source(s) {
					t.Fatalf("record %d: fields read %d times (want 2: append, encode), source %v, token %v", i, s.reads, b.Sources()[i], b.Token(i))
				}
			}
			parts, err := b.Split(b.rawLen / 3)
			if err != nil {
				t.Fatal(err)
			}
			at := 0
			for pi, p := range parts {
				if err := checkKmsg(p.Bytes(), want[at:at+p.Records]); err != nil {
					t.Fatalf("part %d: %v", pi, err)
				}
				for j := range p.Records {
					if p.Token(j) != Source(srcs[at+j]) {
						t.Fatalf("part %d record %d: token %v, want source %d", pi, j, p.Token(j), at+j)
					}
				}
				at += p.Records
				a.Release(p)
			}
			if len(parts) < 3 || at != len(srcs) {
				t.Fatalf("split into %d parts of %d records in all, want at least 3 of %d", len(parts), at, len(srcs))
			}
			a.Release(b)
			if n, _ := a.Buffered(); n != 0 {
				t.Fatalf("%d records still buffered", n)
			}
		})
	}
}
