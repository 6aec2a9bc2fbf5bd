// Package crcfold computes CRC-32 checksums as hash/crc32 does — Castagnoli
// (CRC-32C, RecordBatch v2's checksum) and IEEE (gzip's trailer) — only
// faster on long inputs where the processor can multiply carry-less 512
// bits at a time (amd64 with AVX-512 VPCLMULQDQ).
//
// hash/crc32 runs the SSE4.2 CRC32 instruction over three streams for
// Castagnoli (eight bytes per cycle at most, ~33 ns per KiB here) and
// 128-bit carry-less folding for IEEE. An uncompressed 1 KiB record is
// checksummed once by the producer and again by the broker; a gzipped one
// once more, uncompressed, for the gzip trailer. Folding (Intel's "Fast CRC
// Computation for Generic Polynomials Using PCLMULQDQ") reduces 256 bytes
// per loop to four 512-bit remainders with eight carry-less multiplies,
// then to one 16-byte remainder; that remainder is checksummed by
// slicing-by-8 and what is left of the input (at most 255 bytes) by
// hash/crc32.
//
// 512-bit, not 256-bit, registers: on this project's machine (an Intel
// Xeon with AVX-512) the 512-bit loop is twice as fast (16 KiB in 131 ns,
// 256-bit 256 ns, hash/crc32 531) and a producer of uncompressed 1 KB
// records spent 666 ns of CPU per record with it, 690 with 256-bit
// folding, 697 with hash/crc32 (kfake none 1 KB, 6 interleaved rounds);
// scalar work right after a fold ran no slower (no clock drop seen).
// Processors that lower their clock after 512-bit multiplies (the first
// AVX-512 generations have no VPCLMULQDQ, so they never take this path)
// can build with the purego tag to leave hash/crc32 alone in charge.
//
// See docs/performance.md in the repository.
package crcfold

import (
	"hash/crc32"
	"math/bits"
)

// Table is a CRC-32 polynomial: hash/crc32's table for it and the
// multipliers that fold it.
type Table struct {
	std *crc32.Table
	// k holds the multipliers the folding code loads: moving a lane 2048
	// bits (on to the next 256-byte block), 512 bits (one register into
	// the next), then the four lanes of the last register into its fourth:
	// by 384, 256, 128 and 0 bits (a zero multiplier; the fourth lane is
	// added as is), laid out as one 512-bit register.
	k [6][2]uint64
	// s8 are slicing-by-8 tables, for the folded 16-byte remainder
	// (hash/crc32 would do, but a slice passed to it escapes: an
	// allocation per call).
	s8 [8][256]uint32
}

var (
	// Castagnoli is CRC-32C, hash/crc32's crc32.Castagnoli.
	Castagnoli = newTable(crc32.MakeTable(crc32.Castagnoli), 0x1edc6f41)
	// IEEE is hash/crc32's crc32.IEEE, gzip's checksum.
	IEEE = newTable(crc32.IEEETable, 0x04c11db7)
)

// newTable: poly is the generator without its x^32 term, in normal (not
// reflected) bit order: bit d is the coefficient of x^d.
func newTable(std *crc32.Table, poly uint64) *Table {
	fc := func(d int) [2]uint64 { return foldConst(poly, d) }
	t := &Table{std: std, k: [6][2]uint64{fc(2048), fc(512), fc(384), fc(256), fc(128), {}}}
	t.s8[0] = *std
	for i := 1; i < 8; i++ {
		for j := range 256 {
			v := t.s8[i-1][j]
			t.s8[i][j] = v>>8 ^ t.s8[0][v&0xff]
		}
	}
	return t
}

// update16 is crc32.Update(crc, t.std, p[:]) by slicing-by-8.
func (t *Table) update16(crc uint32, p *[16]byte) uint32 {
	crc = ^crc
	for i := 0; i < 16; i += 8 {
		crc ^= uint32(p[i]) | uint32(p[i+1])<<8 | uint32(p[i+2])<<16 | uint32(p[i+3])<<24
		crc = t.s8[0][p[i+7]] ^ t.s8[1][p[i+6]] ^ t.s8[2][p[i+5]] ^ t.s8[3][p[i+4]] ^
			t.s8[4][crc>>24] ^ t.s8[5][crc>>16&0xff] ^ t.s8[6][crc>>8&0xff] ^ t.s8[7][crc&0xff]
	}
	return ^crc
}

// Checksum returns the CRC of p with t.
func Checksum(p []byte, t *Table) uint32 { return Update(0, t, p) }

// Update returns crc updated with p: crc32.Update(crc, t's hash/crc32
// table, p).
func Update(crc uint32, t *Table, p []byte) uint32 {
	if len(p) < foldMin || !canFold {
		return crc32.Update(crc, t.std, p)
	}
	n := len(p) &^ (foldBlock - 1)
	var rem [16]byte
	fold(^crc, p[:n], &rem, &t.k)
	// rem, followed by the rest of p, has the same CRC (from a zero
	// register) as the folded bytes with crc: an initial register of all
	// ones, inverted at the end, is hash/crc32's 0xffffffff in and out.
	return crc32.Update(t.update16(0xffffffff, &rem), t.std, p[n:])
}

const (
	// foldBlock is what one round of the folding loop consumes: four
	// 512-bit registers.
	foldBlock = 256
	// foldMin is the shortest input worth folding: below it the set-up
	// and the final 16 bytes cost what hash/crc32 would.
	foldMin = 1024
)

// xnmod returns x^n modulo the generator x^32 + poly, bit d the
// coefficient of x^d.
func xnmod(poly uint64, n int) uint64 {
	r := uint64(1)
	for range n {
		r <<= 1
		if r&(1<<32) != 0 {
			r ^= 1<<32 | poly
		}
	}
	return r
}

// foldConst is the pair of multipliers that moves a 128-bit remainder d
// bits further down the message. In a reflected 128-bit lane loaded from
// 16 bytes, bit i is the coefficient of x^(127-i): the low quadword H is
// the high-degree half, A = H·x^64 + L. Moving A by d bits is
// A·x^d ≡ H·(x^(64+d) mod P) + L·(x^d mod P). A carry-less product of two
// reflected quadwords lands one bit short of the reflected 128-bit lane
// (bit n of the product is the coefficient of x^(126-n)), so each
// multiplier is taken one power of x lower, and stored reflected in 64
// bits (bit 63-d for x^d): low quadword for H, high for L.
func foldConst(poly uint64, d int) [2]uint64 {
	return [2]uint64{bits.Reverse64(xnmod(poly, 64+d-1)), bits.Reverse64(xnmod(poly, d-1))}
}
