package batching

// A batch's CRC32C covers its header fields from the attributes on and then
// its records. SetProducer changes only header fields, so the records' CRC
// is computed once (by the worker that finishes the batch) and the batch's
// CRC is then the CRC of the 40 header bytes combined with it: the combine
// is a multiplication by x^(8·len) modulo the CRC polynomial, as zlib's
// crc32_combine does it, which costs no pass over the records.

// castagnoliReversed is the CRC32C polynomial in reflected bit order.
const castagnoliReversed = 0x82f63b78

// x2nTable[k] is x^(2^k) modulo the polynomial (reflected).
var x2nTable = func() (t [32]uint32) {
	p := uint32(1) << 30 // x^1
	t[0] = p
	for k := 1; k < 32; k++ {
		p = multModP(p, p)
		t[k] = p
	}
	return t
}()

// multModP multiplies a and b modulo the polynomial (reflected).
func multModP(a, b uint32) uint32 {
	m := uint32(1) << 31
	var p uint32
	for {
		if a&m != 0 {
			p ^= b
			if a&(m-1) == 0 {
				return p
			}
		}
		m >>= 1
		if b&1 != 0 {
			b = b>>1 ^ castagnoliReversed
		} else {
			b >>= 1
		}
	}
}

// crcShift returns x^(8n) modulo the polynomial: the operator that appends
// n bytes' worth of shift to a CRC, for crcCombine.
func crcShift(n int) uint32 {
	p := uint32(1) << 31 // x^0
	k := 3               // 2^3 bits per byte
	for u := uint64(n); u != 0; u >>= 1 {
		if u&1 != 0 {
			p = multModP(x2nTable[k&31], p)
		}
		k++
	}
	return p
}

// crcCombine returns the CRC32C of A‖B from crcA, crcB and shift, which is
// crcShift(len(B)).
func crcCombine(crcA, crcB, shift uint32) uint32 {
	return multModP(shift, crcA) ^ crcB
}
