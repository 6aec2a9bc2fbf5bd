package compress

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
)

// TestStreamMatchesCompress: written in pieces of any size, a stream's
// output is Compress's for the whole input, byte for byte, after dst's
// prefix; the pooled writer is reusable after Close.
func TestStreamMatchesCompress(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []Codec{Gzip, LZ4} {
		for _, level := range []int{DefaultLevel, 1, 9} {
			cm, err := NewCompressor(c, level)
			if err != nil {
				t.Fatalf("%v level %d: %v", c, level, err)
			}
			for i, in := range testInputs() {
				want, err := cm.Compress([]byte("hdr"), in)
				if err != nil {
					t.Fatal(err)
				}
				for _, piece := range []int{1 + rng.IntN(7), 1000, 32 << 10, 1 << 21} {
					st, ok := cm.Stream([]byte("hdr"))
					if !ok {
						t.Fatalf("%v: no stream", c)
					}
					for rest := in; len(rest) > 0; {
						n := min(len(rest), piece)
						if err := st.Write(rest[:n]); err != nil {
							t.Fatal(err)
						}
						rest = rest[n:]
					}
					got, err := st.Close()
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(got, want) {
						t.Fatalf("%v level %d input %d pieces of %d: stream output (%d bytes) differs from Compress's (%d)", c, level, i, piece, len(got), len(want))
					}
					if err := st.Write([]byte("x")); !errors.Is(err, ErrStreamClosed) {
						t.Fatalf("Write after Close: %v, want ErrStreamClosed", err)
					}
					if _, err := st.Close(); !errors.Is(err, ErrStreamClosed) {
						t.Fatalf("second Close: %v, want ErrStreamClosed", err)
					}
				}
			}
		}
	}
}

// TestStreamOnlyForStreamCodecs: none, snappy and zstd compress whole
// inputs; Stream says so, as do a nil Compressor and the zero Stream.
func TestStreamOnlyForStreamCodecs(t *testing.T) {
	for _, c := range []Codec{None, Snappy, Zstd} {
		cm, err := NewCompressor(c, DefaultLevel)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := cm.Stream(nil); ok {
			t.Fatalf("%v: Stream ok, want false", c)
		}
	}
	var cm *Compressor
	if _, ok := cm.Stream(nil); ok {
		t.Fatal("nil Compressor: Stream ok")
	}
	var st Stream
	if err := st.Write([]byte("x")); !errors.Is(err, ErrStreamClosed) {
		t.Fatalf("zero Stream Write: %v", err)
	}
	if _, err := st.Close(); !errors.Is(err, ErrStreamClosed) {
		t.Fatalf("zero Stream Close: %v", err)
	}
}
