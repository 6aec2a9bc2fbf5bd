package crcfold

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"
)

// tables are the two polynomials with hash/crc32's tables made apart from
// the package's, to check against.
var tables = []struct {
	name string
	*Table
	ref *crc32.Table
}{
	{"castagnoli", Castagnoli, crc32.MakeTable(crc32.Castagnoli)},
	{"ieee", IEEE, crc32.MakeTable(crc32.IEEE)},
}

// TestUpdateMatchesHashCRC32: every length from 0 to 4 KiB plus some
// beyond, every start offset within a 64-byte line, several CRCs going
// in; the folding path and hash/crc32 agree on each, for both polynomials.
func TestUpdateMatchesHashCRC32(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	buf := make([]byte, 70000)
	for i := range buf {
		buf[i] = byte(rng.Uint32())
	}
	lens := []int{65535, 65536, 65537, 69000}
	for n := 0; n <= 4096; n++ {
		lens = append(lens, n)
	}
	for _, tab := range tables {
		for _, n := range lens {
			off := rng.IntN(64)
			p := buf[off : off+n]
			for _, crc := range []uint32{0, 0xffffffff, rng.Uint32()} {
				if got, want := Update(crc, tab.Table, p), crc32.Update(crc, tab.ref, p); got != want {
					t.Fatalf("%s len %d offset %d crc %#x: Update %#x, hash/crc32 %#x", tab.name, n, off, crc, got, want)
				}
			}
		}
	}
	// The catalogue's check values (CRC of "123456789").
	if got, want := Checksum([]byte("123456789"), Castagnoli), uint32(0xe3069283); got != want {
		t.Fatalf("CRC-32C check value: %#x, want %#x", got, want)
	}
	if got, want := Checksum([]byte("123456789"), IEEE), uint32(0xcbf43926); got != want {
		t.Fatalf("CRC-32 check value: %#x, want %#x", got, want)
	}
}

// TestUpdateChained: a long input checksummed in uneven pieces gives the
// CRC of the whole.
func TestUpdateChained(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	p := make([]byte, 1<<20)
	for i := range p {
		p[i] = byte(rng.Uint32())
	}
	for _, tab := range tables {
		want := crc32.Checksum(p, tab.ref)
		var crc uint32
		for rest := p; len(rest) > 0; {
			n := min(len(rest), 1+rng.IntN(40000))
			crc = Update(crc, tab.Table, rest[:n])
			rest = rest[n:]
		}
		if crc != want {
			t.Fatalf("%s: chained %#x, whole %#x", tab.name, crc, want)
		}
	}
}

// TestUpdateDoesNotWrite: the input is read, never written (the folding
// code xors the CRC register into a copy of the first bytes, not them).
func TestUpdateDoesNotWrite(t *testing.T) {
	p := bytes.Repeat([]byte{0x5a}, 8192)
	q := bytes.Clone(p)
	Update(0x12345678, Castagnoli, p)
	if !bytes.Equal(p, q) {
		t.Fatal("Update changed its input")
	}
}

// TestFoldUsedWhereAvailable: on an amd64 Linux machine whose processor
// lists avx512f and vpclmulqdq, the folding path is the one taken (a
// detection that failed quietly would lose the speed, not correctness).
func TestFoldUsedWhereAvailable(t *testing.T) {
	info, err := os.ReadFile("/proc/cpuinfo")
	if runtime.GOARCH != "amd64" || err != nil {
		t.Skip("not amd64 Linux")
	}
	has := bytes.Contains(info, []byte(" avx512f ")) && bytes.Contains(info, []byte(" vpclmulqdq"))
	if has != canFold {
		t.Fatalf("/proc/cpuinfo lists avx512f and vpclmulqdq: %v; canFold: %v", has, canFold)
	}
}

func FuzzUpdate(f *testing.F) {
	f.Add(uint32(0), []byte("123456789"), uint16(0), false)
	f.Add(uint32(0xffffffff), bytes.Repeat([]byte{1}, 3000), uint16(7), true)
	f.Fuzz(func(t *testing.T, crc uint32, p []byte, rep uint16, ieee bool) {
		tab := tables[0]
		if ieee {
			tab = tables[1]
		}
		// repeat the input so that fuzzed inputs reach the folding lengths
		q := bytes.Repeat(p, 1+int(rep%64))
		if got, want := Update(crc, tab.Table, q), crc32.Update(crc, tab.ref, q); got != want {
			t.Fatalf("%s len %d: Update %#x, hash/crc32 %#x", tab.name, len(q), got, want)
		}
	})
}

// BenchmarkUpdate: a 1 KiB record, a 16 KiB chunk (what batching
// checksums at a time) and a 1 MiB batch, this package against hash/crc32.
func BenchmarkUpdate(b *testing.B) {
	for _, tab := range tables {
		for _, n := range []int{1 << 10, 16 << 10, 1 << 20} {
			p := make([]byte, n)
			for i := range p {
				p[i] = byte(i * 7)
			}
			b.Run(fmt.Sprintf("poly=%s/size=%d/impl=crcfold", tab.name, n), func(b *testing.B) {
				b.SetBytes(int64(n))
				for b.Loop() {
					Update(0, tab.Table, p)
				}
			})
			b.Run(fmt.Sprintf("poly=%s/size=%d/impl=hash-crc32", tab.name, n), func(b *testing.B) {
				b.SetBytes(int64(n))
				for b.Loop() {
					crc32.Update(0, tab.ref, p)
				}
			})
		}
	}
}

// TestUpdateAllocatesNothing: no allocation per call on the folding path.
func TestUpdateAllocatesNothing(t *testing.T) {
	p := make([]byte, 32<<10)
	if n := testing.AllocsPerRun(100, func() { Update(1, IEEE, p); Update(2, Castagnoli, p) }); n != 0 {
		t.Fatalf("%v allocations per call", n)
	}
}
