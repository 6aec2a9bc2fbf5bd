package compress

import (
	"bytes"
	stdgzip "compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// TestGzipWriterMatchesKlauspost: at every level, for inputs from empty to
// 300 KB written in pieces of every size class, the gzip writer's output
// is byte for byte klauspost's gzip.Writer's, and Go's own gzip reader
// (which checks the trailer's CRC and length) reads the input back.
func TestGzipWriterMatchesKlauspost(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	text := bytes.Repeat([]byte(`{"event":"click","user":12345,"path":"/a/b/c","ok":true} `), 6000)
	noise := make([]byte, 70000)
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	inputs := map[string][]byte{"empty": nil, "byte": {42}, "1KB": text[:1000], "text": text[:300000], "noise": noise, "mixed": append(bytes.Clone(text[:50000]), noise[:20000]...)}
	for level := gzip.HuffmanOnly; level <= gzip.BestCompression; level++ {
		for name, in := range inputs {
			for _, piece := range []int{1, 1000, 32 << 10, 1 << 20} {
				if piece == 1 && len(in) > 5000 {
					continue
				}
				t.Run(fmt.Sprintf("level=%d/%s/piece=%d", level, name, piece), func(t *testing.T) {
					var ours, theirs bytes.Buffer
					zw := newGzipWriter(level)
					zw.Reset(&ours)
					kw, _ := gzip.NewWriterLevel(&theirs, level)
					for rest := in; len(rest) > 0; {
						n := min(piece, len(rest))
						if _, err := zw.Write(rest[:n]); err != nil {
							t.Fatal(err)
						}
						_, _ = kw.Write(rest[:n])
						rest = rest[n:]
					}
					if err := zw.Close(); err != nil {
						t.Fatal(err)
					}
					_ = kw.Close()
					if !bytes.Equal(ours.Bytes(), theirs.Bytes()) {
						t.Fatalf("%d bytes, klauspost's gzip.Writer %d, first difference at %d", ours.Len(), theirs.Len(), firstDiff(ours.Bytes(), theirs.Bytes()))
					}
					r, err := stdgzip.NewReader(&ours)
					if err != nil {
						t.Fatal(err)
					}
					back, err := io.ReadAll(r)
					if err != nil || !bytes.Equal(back, in) {
						t.Fatalf("read back %d of %d bytes: %v", len(back), len(in), err)
					}
				})
			}
		}
	}
}

// TestGzipWriterReset: a reused writer starts each member afresh.
func TestGzipWriterReset(t *testing.T) {
	zw := newGzipWriter(gzip.DefaultCompression)
	for i := range 3 {
		var out bytes.Buffer
		zw.Reset(&out)
		in := bytes.Repeat([]byte{byte('a' + i)}, 5000*(i+1))
		_, _ = zw.Write(in)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		r, err := stdgzip.NewReader(&out)
		if err != nil {
			t.Fatal(err)
		}
		if back, err := io.ReadAll(r); err != nil || !bytes.Equal(back, in) {
			t.Fatalf("member %d: read back %d of %d bytes: %v", i, len(back), len(in), err)
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
