package client

import (
	"math/rand/v2"
	"sync"
)

// Partitioner chooses a partition for records that do not name one.
// Partition is called with the number of partitions of the record's topic
// (> 0) and may be called concurrently.
type Partitioner interface {
	Partition(r *Record, numPartitions int32) int32
}

// Murmur2 is Kafka's murmur2 hash exactly as Java's Utils.murmur2 computes
// it, so keyed records land on the same partitions as with the Java client.
func Murmur2(data []byte) int32 {
	const (
		seed uint32 = 0x9747b28c
		m    uint32 = 0x5bd1e995
		r           = 24
	)
	n := len(data)
	h := seed ^ uint32(n)
	for len(data) >= 4 {
		k := uint32(data[0]) | uint32(data[1])<<8 | uint32(data[2])<<16 | uint32(data[3])<<24
		k *= m
		k ^= k >> r
		k *= m
		h *= m
		h ^= k
		data = data[4:]
	}
	switch len(data) {
	case 3:
		h ^= uint32(data[2]) << 16
		fallthrough
	case 2:
		h ^= uint32(data[1]) << 8
		fallthrough
	case 1:
		h ^= uint32(data[0])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return int32(h)
}

// KeyPartition is the Java default partitioner's choice for a key:
// toPositive(murmur2(key)) % numPartitions.
func KeyPartition(key []byte, numPartitions int32) int32 {
	return (Murmur2(key) & 0x7fffffff) % numPartitions
}

// DefaultPartitioner hashes keyed records with Java-compatible murmur2 and
// spreads unkeyed records with the uniform sticky strategy of KIP-794: all
// unkeyed records of a topic go to one partition until about BatchBytes
// have gone there, then to another chosen at random.
type DefaultPartitioner struct {
	// BatchBytes is how many bytes an unkeyed topic sticks to one partition
	// for; 16 KiB when zero.
	BatchBytes int
	// KeyHash, if set, chooses keyed records' partitions instead of
	// murmur2: hash(key, n) must be in [0, n) (a record given another
	// partition fails ErrUnknownPartition). See StickyKeyPartitioner.
	KeyHash func(key []byte, n int) int

	mu     sync.Mutex
	sticky map[string]*stickyState
}

type stickyState struct {
	partition int32
	bytes     int
}

// Partition implements Partitioner.
func (d *DefaultPartitioner) Partition(r *Record, n int32) int32 {
	if r.Key != nil {
		if d.KeyHash != nil {
			return int32(d.KeyHash(r.Key, int(n)))
		}
		return KeyPartition(r.Key, n)
	}
	size := len(r.Value) + len(r.Key) + 16
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.sticky == nil {
		d.sticky = make(map[string]*stickyState)
	}
	s := d.sticky[r.Topic]
	limit := d.BatchBytes
	if limit <= 0 {
		limit = 16 << 10
	}
	if s == nil || s.partition >= n || s.bytes >= limit {
		next := rand.Int32N(n)
		if s != nil && n > 1 && next == s.partition {
			next = (next + 1 + rand.Int32N(n-1)) % n
		}
		if s == nil {
			s = &stickyState{}
			d.sticky[r.Topic] = s
		}
		s.partition, s.bytes = next, 0
	}
	s.bytes += size
	return s.partition
}
