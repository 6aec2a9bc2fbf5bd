package idempotence

import (
	"hash/fnv"
	"time"
)

// holdOff pauses partition p after a failure: Config.RetryBackoff doubled
// for each failure in a row before this one, capped at
// Config.RetryBackoffMax, jittered by up to ±20% so that partitions (and
// producers) failing together do not come back together. The jitter is a
// hash of the partition, the failure count and the time: the machine
// stays a function of its inputs.
//
// A failure while the partition is already paused — another batch of the
// same round of requests answered the same way — leaves the pause as it
// is: the batches in flight when a leader moves fail together, once.
func (pr *Producer) holdOff(p *partition) {
	base, most := pr.cfg.RetryBackoff, pr.cfg.RetryBackoffMax
	if base <= 0 || pr.now.Before(p.retryAt) {
		return
	}
	p.fails++
	d := base
	for i := 1; i < p.fails && d < most; i++ {
		d *= 2
	}
	u := float64(jitterBits(p.tp, p.fails, pr.now)>>11) / (1 << 53) // [0, 1)
	d = min(time.Duration(float64(min(d, most))*(0.8+0.4*u)), most)
	p.retryAt = pr.now.Add(d)
}

// jitterBits mixes a partition, a count and a time into 64 bits
// (splitmix64's finaliser over an FNV-1a hash).
func jitterBits(tp TopicPartition, n int, now time.Time) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(tp.Topic))
	x := h.Sum64() ^ uint64(uint32(tp.Partition))<<32 ^ uint64(n) ^ uint64(now.UnixNano())
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}
