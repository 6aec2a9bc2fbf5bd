package compress

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/klauspost/compress/snappy"
)

func testInputs() [][]byte {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 100_000)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	text := bytes.Repeat([]byte(`{"event":"click","path":"/a/b","latency":12} `), 5000)
	return [][]byte{nil, {}, []byte("x"), random, text, make([]byte, 1<<20)}
}

func TestRoundTripEveryCodec(t *testing.T) {
	for _, c := range Codecs() {
		for _, level := range []int{DefaultLevel, 1} {
			if c == Gzip && level == 1 || c == None && level == 1 {
				continue
			}
			cm, err := NewCompressor(c, level)
			if err != nil {
				t.Fatalf("%v level %d: %v", c, level, err)
			}
			for i, in := range testInputs() {
				prefix := []byte("prefix")
				out, err := cm.Compress(append([]byte(nil), prefix...), in)
				if err != nil {
					t.Fatalf("%v input %d: %v", c, i, err)
				}
				if !bytes.HasPrefix(out, prefix) {
					t.Fatalf("%v input %d: dst prefix lost", c, i)
				}
				got, err := Decompress([]byte("dst"), out[len(prefix):], c, len(in))
				if err != nil {
					t.Fatalf("%v input %d: %v", c, i, err)
				}
				if !bytes.Equal(got[3:], in) || string(got[:3]) != "dst" {
					t.Fatalf("%v input %d: round trip differs (%d bytes, want %d)", c, i, len(got)-3, len(in))
				}
			}
		}
	}
}

func TestCompressConcurrent(t *testing.T) {
	in := testInputs()[4]
	for _, c := range Codecs() {
		cm, err := NewCompressor(c, DefaultLevel)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for range 4 {
			wg.Go(func() {
				for range 5 {
					out, err := cm.Compress(nil, in)
					if err == nil {
						out, err = Decompress(nil, out, c, len(in))
					}
					if err == nil && !bytes.Equal(out, in) {
						err = errors.New("mismatch")
					}
					if err != nil {
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("%v: %v", c, err)
		}
	}
}

func TestXerialSnappy(t *testing.T) {
	in := testInputs()[4]
	// Java's xerial framing: magic, version 1, compatible version 1, then
	// chunks of a big-endian length and a raw snappy block.
	frame := append([]byte(nil), xerialMagic...)
	frame = binary.BigEndian.AppendUint32(frame, 1)
	frame = binary.BigEndian.AppendUint32(frame, 1)
	for rest := in; len(rest) > 0; {
		n := min(len(rest), 32<<10)
		block := snappy.Encode(nil, rest[:n])
		frame = binary.BigEndian.AppendUint32(frame, uint32(len(block)))
		frame = append(frame, block...)
		rest = rest[n:]
	}
	got, err := Decompress(nil, frame, Snappy, len(in))
	if err != nil || !bytes.Equal(got, in) {
		t.Fatalf("xerial: %d bytes, %v", len(got), err)
	}
	if _, err := Decompress(nil, frame, Snappy, len(in)-1); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("xerial over limit: %v", err)
	}
	if _, err := Decompress(nil, frame[:len(frame)-3], Snappy, len(in)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("truncated xerial: %v", err)
	}
	if _, err := Decompress(nil, frame[:12], Snappy, len(in)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("short xerial header: %v", err)
	}
}

func TestBombIsTooLarge(t *testing.T) {
	zeros := make([]byte, 8<<20)
	for _, c := range Codecs() {
		cm, err := NewCompressor(c, DefaultLevel)
		if err != nil {
			t.Fatal(err)
		}
		bomb, err := cm.Compress(nil, zeros)
		if err != nil {
			t.Fatal(err)
		}
		out, err := Decompress(nil, bomb, c, 1<<20)
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("%v: %d-byte bomb: %v", c, len(bomb), err)
		}
		if cap(out) > 2<<20 {
			t.Fatalf("%v: allocated %d bytes for a 1 MiB limit", c, cap(out))
		}
	}
}

func TestCorrupt(t *testing.T) {
	in := testInputs()[4]
	for _, c := range Codecs() {
		if c == None {
			continue
		}
		cm, _ := NewCompressor(c, DefaultLevel)
		good, err := cm.Compress(nil, in)
		if err != nil {
			t.Fatal(err)
		}
		for name, bad := range map[string][]byte{
			"garbage":   []byte("this is not compressed data at all, not even close"),
			"truncated": good[:len(good)/2],
			"flipped":   flip(good),
		} {
			if _, err := Decompress(nil, bad, c, len(in)); !errors.Is(err, ErrCorrupt) {
				t.Errorf("%v %s: %v", c, name, err)
			}
		}
	}
	if _, err := Decompress(nil, nil, Codec(5), 10); !errors.Is(err, ErrUnknownCodec) {
		t.Errorf("codec 5: %v", err)
	}
	if _, err := NewCompressor(Codec(-1), DefaultLevel); !errors.Is(err, ErrUnknownCodec) {
		t.Errorf("codec -1: %v", err)
	}
	if _, err := Decompress(nil, []byte("abc"), None, 2); !errors.Is(err, ErrTooLarge) {
		t.Errorf("none over limit: %v", err)
	}
}

// flip corrupts the middle of b's payload and its checksum region.
func flip(b []byte) []byte {
	out := append([]byte(nil), b...)
	for i := len(out) / 3; i < len(out); i += 97 {
		out[i] ^= 0x55
	}
	return out
}

func TestCodecNames(t *testing.T) {
	for _, c := range Codecs() {
		got, err := ParseCodec(c.String())
		if err != nil || got != c || !c.Valid() {
			t.Fatalf("%v: %v %v", c, got, err)
		}
	}
	if _, err := ParseCodec("brotli"); !errors.Is(err, ErrUnknownCodec) {
		t.Fatal(err)
	}
	if Codec(7).Valid() || Codec(7).String() != "codec(7)" {
		t.Fatal("codec 7")
	}
}

func TestLevels(t *testing.T) {
	for _, c := range []struct {
		codec Codec
		level int
		ok    bool
	}{{Gzip, 9, true}, {Gzip, 10, false}, {Gzip, -2, true}, {LZ4, 9, true}, {LZ4, 10, false},
		{Zstd, 4, true}, {Zstd, 5, false}, {Zstd, 0, false}} {
		_, err := NewCompressor(c.codec, c.level)
		if (err == nil) != c.ok {
			t.Errorf("%v level %d: %v", c.codec, c.level, err)
		}
	}
}

func FuzzDecompress(f *testing.F) {
	for _, c := range Codecs() {
		cm, _ := NewCompressor(c, DefaultLevel)
		out, _ := cm.Compress(nil, []byte(`{"event":"click","path":"/a/b"} {"event":"click"}`))
		f.Add(uint8(c), out)
	}
	f.Fuzz(func(t *testing.T, codec uint8, src []byte) {
		c := Codec(codec % 6)
		out, err := Decompress(nil, src, c, 1<<16)
		if err == nil && len(out) > 1<<16 {
			t.Fatalf("%d bytes past the limit", len(out))
		}
		if err != nil && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrUnknownCodec) {
			t.Fatalf("untyped error: %v", err)
		}
	})
}
