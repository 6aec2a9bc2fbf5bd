package kafka

import (
	"hash/crc32"
	"math/rand/v2"

	"github.com/rollsafe/rollsafe/client"
)

// partitioner implements librdkafka's "partitioner" property on top of
// rollsafe's client.Partitioner. As in librdkafka, a message without a key
// (and, with consistent_random, one with an empty key) goes to a sticky
// partition, rollsafe's uniform sticky strategy (client.DefaultPartitioner),
// except with "random", which picks a partition per message. Keyed messages
// are hashed:
//
//	consistent, consistent_random: CRC-32 (IEEE) of the key % partitions
//	murmur2, murmur2_random:       (murmur2(key) & 0x7fffffff) % partitions (the Java client's)
//	fnv1a, fnv1a_random:           |FNV-1a 32(key)| % partitions (Sarama's NewHashPartitioner)
type partitioner struct {
	name   string
	sticky *client.DefaultPartitioner
}

func newPartitioner(name string, batchBytes int) *partitioner {
	return &partitioner{name: name, sticky: &client.DefaultPartitioner{BatchBytes: min(batchBytes, 16<<10)}}
}

// Partition implements client.Partitioner.
func (p *partitioner) Partition(r *client.Record, n int32) int32 {
	if p.name == "random" {
		return rand.Int32N(n)
	}
	if r.Key == nil || (len(r.Key) == 0 && p.name == "consistent_random") {
		return p.sticky.Partition(r, n)
	}
	switch p.name {
	case "murmur2", "murmur2_random":
		return client.KeyPartition(r.Key, n)
	case "fnv1a", "fnv1a_random":
		return int32(fnv1a(r.Key) % uint32(n))
	}
	return int32(crc32.ChecksumIEEE(r.Key) % uint32(n))
}

// fnv1a is 32-bit FNV-1a with the sign dropped the way librdkafka's
// rd_fnv1a does (to match Sarama's hash partitioner).
func fnv1a(key []byte) uint32 {
	h := int32(-2128831035) // offset basis 0x811C9DC5
	for _, b := range key {
		h ^= int32(b)
		h *= 16777619
	}
	if h < 0 {
		h = -h
	}
	return uint32(h)
}
