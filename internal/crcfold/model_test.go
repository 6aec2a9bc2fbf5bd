package crcfold

import (
	"encoding/binary"
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

// The folding, modelled in plain Go with a carry-less multiply written
// out bit by bit: what the assembly does lane by lane, checked against
// hash/crc32 on every length. It pins foldConst's multipliers and the
// order the lanes are combined in independently of any instruction set.

type lane [2]uint64 // lo, hi: bytes 0-7 and 8-15, little-endian

func clmul(a, b uint64) lane {
	var r lane
	for i := range 64 {
		if b>>i&1 != 0 {
			r[0] ^= a << i
			if i > 0 {
				r[1] ^= a >> (64 - i)
			}
		}
	}
	return r
}

func load(p []byte) lane {
	return lane{binary.LittleEndian.Uint64(p), binary.LittleEndian.Uint64(p[8:])}
}

// move multiplies a by k (one of Table.k): a moved k's distance on.
func move(a lane, k [2]uint64) lane {
	lo, hi := clmul(a[0], k[0]), clmul(a[1], k[1])
	return lane{lo[0] ^ hi[0], lo[1] ^ hi[1]}
}

func xor(a, b lane) lane { return lane{a[0] ^ b[0], a[1] ^ b[1]} }

// modelFold is fold in Go: sixteen lanes (four 512-bit registers) fed
// 256 bytes a round, then the registers folded into the last, then its
// four lanes into its last.
func modelFold(s0 uint32, p []byte, k *[6][2]uint64) [16]byte {
	var acc [16]lane
	for i := range acc {
		acc[i] = load(p[16*i:])
	}
	acc[0][0] ^= uint64(s0)
	for off := foldBlock; off < len(p); off += foldBlock {
		for i := range acc {
			acc[i] = xor(move(acc[i], k[0]), load(p[off+16*i:]))
		}
	}
	for r := 1; r < 4; r++ { // register r-1 into register r, 64 bytes on
		for l := range 4 {
			acc[4*r+l] = xor(acc[4*r+l], move(acc[4*(r-1)+l], k[1]))
		}
	}
	last := acc[15]
	for l := range 3 {
		last = xor(last, move(acc[12+l], k[2+l]))
	}
	var out [16]byte
	binary.LittleEndian.PutUint64(out[:], last[0])
	binary.LittleEndian.PutUint64(out[8:], last[1])
	return out
}

func TestModelFold(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tab := range tables {
		for _, n := range []int{256, 512, 768, 1024, 4096, 16384} {
			p := make([]byte, n+37)
			for i := range p {
				p[i] = byte(rng.Uint32())
			}
			for _, crc := range []uint32{0, 1, 0xffffffff, rng.Uint32()} {
				rem := modelFold(^crc, p[:n], &tab.k)
				got := crc32.Update(crc32.Update(0xffffffff, tab.std, rem[:]), tab.std, p[n:])
				if want := crc32.Update(crc, tab.std, p); got != want {
					t.Fatalf("%s len %d crc %#x: model %#x, hash/crc32 %#x", tab.name, len(p), crc, got, want)
				}
			}
		}
	}
}
