// Package crc32c computes CRC-32C (Castagnoli), the checksum of Kafka's
// RecordBatch v2, as hash/crc32 does with its Castagnoli table, only faster
// on long inputs where the processor can multiply carry-less 512 bits at a
// time (amd64 with AVX-512 VPCLMULQDQ).
//
// hash/crc32 runs the SSE4.2 CRC32 instruction over three streams at once:
// eight bytes per cycle at most, about 45 ns per KiB here. An uncompressed
// 1 KiB record is checksummed once by the producer and again by the broker,
// so that was 5-6 % of a producer's CPU per record. Folding (Intel's
// "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ") reduces
// 256 bytes per loop to four 512-bit remainders with eight carry-less
// multiplications; what is left (at most 255 bytes, and the 16-byte folded
// remainder) goes to hash/crc32.
package crc32c

import (
	"hash/crc32"
	"math/bits"
)

// Table is hash/crc32's Castagnoli table, for inputs this package hands on.
var Table = crc32.MakeTable(crc32.Castagnoli)

// Checksum returns the CRC-32C of p.
func Checksum(p []byte) uint32 { return Update(0, p) }

// Update returns crc updated with p: crc32.Update(crc, Table, p).
func Update(crc uint32, p []byte) uint32 {
	if len(p) < foldMin || !canFold {
		return crc32.Update(crc, Table, p)
	}
	n := len(p) &^ (foldBlock - 1)
	var rem [16]byte
	fold(^crc, p[:n], &rem)
	// rem, followed by the rest of p, has the same CRC (from a zero
	// register) as the folded bytes with crc: an initial register of all
	// ones, inverted at the end, is hash/crc32's 0xffffffff in and out.
	return crc32.Update(crc32.Update(0xffffffff, Table, rem[:]), Table, p[n:])
}

const (
	// foldBlock is what one round of the folding loop consumes: four
	// 512-bit registers.
	foldBlock = 256
	// foldMin is the shortest input worth folding: below it the set-up
	// and the final 16 bytes cost what the SSE4.2 path would.
	foldMin = 1024
	// poly is CRC-32C's generator without its x^32 term, in normal
	// (not reflected) bit order: bit d is the coefficient of x^d.
	poly = 0x1edc6f41
)

// xnmod returns x^n modulo the generator, bit d the coefficient of x^d.
func xnmod(n int) uint64 {
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
func foldConst(d int) [2]uint64 {
	return [2]uint64{bits.Reverse64(xnmod(64 + d - 1)), bits.Reverse64(xnmod(d - 1))}
}

// foldK holds the multipliers the folding code loads: moving a lane 2048
// bits (on to the next 256-byte block), 512 bits (one register into the
// next), then the four lanes of the last register into its fourth: by 384,
// 256, 128 and 0 bits (a zero multiplier; the fourth lane is added as is),
// laid out as one 512-bit register.
var foldK = [6][2]uint64{foldConst(2048), foldConst(512), foldConst(384), foldConst(256), foldConst(128), {}}
