//go:build amd64 && !purego

package crcfold

// canFold: the processor has AVX-512 with VPCLMULQDQ and the operating
// system saves the 512-bit registers.
var canFold = hasVPCLMUL()

func hasVPCLMUL() bool {
	if maxLeaf, _, _, _ := cpuid(0, 0); maxLeaf < 7 {
		return false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const osxsave = 1 << 27
	if ecx1&osxsave == 0 {
		return false
	}
	// XCR0: SSE, AVX, opmask, upper halves of ZMM0-15 and ZMM16-31.
	const zmmState = 1<<1 | 1<<2 | 1<<5 | 1<<6 | 1<<7
	if xcr0, _ := xgetbv(); xcr0&zmmState != zmmState {
		return false
	}
	_, ebx7, ecx7, _ := cpuid(7, 0)
	const avx512f, vpclmulqdq = 1 << 16, 1 << 10
	return ebx7&avx512f != 0 && ecx7&vpclmulqdq != 0
}

// fold reduces p (a multiple of foldBlock, at least foldBlock long) with
// the CRC register s0 xored into its first four bytes to 16 bytes with
// the same CRC from a zero register, by the multipliers k (Table.k).
//
//go:noescape
func fold(s0 uint32, p []byte, rem *[16]byte, k *[6][2]uint64)

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

func xgetbv() (eax, edx uint32)
