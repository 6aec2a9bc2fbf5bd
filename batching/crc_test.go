package batching

import (
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

// castagnoli is hash/crc32's CRC32C table: the tests check what the
// package computes with internal/crcfold against it.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func TestCRCCombine(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	sizes := []int{0, 1, 2, 7, 40, 61, 1000, 4096, 65537, 1 << 20}
	for _, na := range []int{0, 1, 40, 333} {
		for _, nb := range sizes {
			buf := make([]byte, na+nb)
			for i := range buf {
				buf[i] = byte(rng.Uint32())
			}
			want := crc32.Checksum(buf, castagnoli)
			a := crc32.Checksum(buf[:na], castagnoli)
			b := crc32.Checksum(buf[na:], castagnoli)
			if got := crcCombine(a, b, crcShift(nb)); got != want {
				t.Fatalf("combine(%d, %d) = %08x, want %08x", na, nb, got, want)
			}
		}
	}
}
