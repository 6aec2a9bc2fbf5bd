package idempotence

import "math"

// addSeq advances a sequence number by n records, wrapping from MaxInt32 to 0
// as the broker does.
func addSeq(seq, n int32) int32 {
	return int32((int64(seq) + int64(n)) % (int64(math.MaxInt32) + 1))
}
