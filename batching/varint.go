package batching

import "math/bits"

// Kafka encodes record fields as zig-zag varints (the protobuf scheme).

func zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

// uvarintLen is the encoded length of u, 1..10 bytes.
func uvarintLen(u uint64) int { return (bits.Len64(u|1) + 6) / 7 }

// varintLen is the encoded length of the zig-zag varint v.
func varintLen(v int64) int { return uvarintLen(zigzag(v)) }

func appendVarint(b []byte, v int64) []byte {
	u := zigzag(v)
	for u >= 0x80 {
		b = append(b, byte(u)|0x80)
		u >>= 7
	}
	return append(b, byte(u))
}

// readVarint decodes a zig-zag varint from b, returning the value and the
// bytes used; n is 0 on a truncated or overlong encoding.
func readVarint(b []byte) (v int64, n int) {
	var u uint64
	var shift uint
	for i, c := range b {
		if i == 10 {
			return 0, 0
		}
		u |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return int64(u>>1) ^ -int64(u&1), i + 1
		}
		shift += 7
	}
	return 0, 0
}
