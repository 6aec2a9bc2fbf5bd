package client

import (
	"hash"
	"sync"
	"sync/atomic"
)

// RoundRobinPartitioner returns a Partitioner that gives each topic's
// records to its partitions in turn — 0, 1, …, n-1, 0, … — keyed or not,
// in the order Produce is called (one atomic increment per record). Keys
// do not choose partitions: records of one key are spread.
func RoundRobinPartitioner() Partitioner { return &roundRobin{} }

type roundRobin struct {
	next sync.Map // topic → *atomic.Uint64
}

// Partition implements Partitioner.
func (rr *roundRobin) Partition(r *Record, n int32) int32 {
	c, ok := rr.next.Load(r.Topic)
	if !ok {
		c, _ = rr.next.LoadOrStore(r.Topic, new(atomic.Uint64))
	}
	return int32((c.(*atomic.Uint64).Add(1) - 1) % uint64(n))
}

// StickyKeyPartitioner returns the default partitioner (uniform sticky
// partitioning, KIP-794, for records without a key) with hash choosing
// keyed records' partitions instead of murmur2: hash(key, n) must be in
// [0, n). KeyHash32 makes such a function of a hash.Hash32.
func StickyKeyPartitioner(hash func(key []byte, n int) int) Partitioner {
	return &DefaultPartitioner{KeyHash: hash}
}

// KeyHash32 returns a key hash for StickyKeyPartitioner: newHash's
// Sum32 of the key, as an unsigned number, modulo n. newHash is called
// for each keyed record.
func KeyHash32(newHash func() hash.Hash32) func(key []byte, n int) int {
	return func(key []byte, n int) int {
		h := newHash()
		_, _ = h.Write(key)
		return int(h.Sum32() % uint32(n))
	}
}

// Backlogs reports how backed up a topic's partitions are.
type Backlogs interface {
	// Backlog is the partition's records accepted by Produce and not yet
	// resolved (buffered, in flight, or awaiting their outcome).
	Backlog(partition int32) int64
}

// BackupPartitioner is a Partitioner that chooses by the partitions'
// backlogs: the producer calls PartitionByBackup instead of Partition, and
// keeps the counts it needs only for such a partitioner (one atomic
// increment per record, one decrement per batch resolved).
type BackupPartitioner interface {
	Partitioner
	PartitionByBackup(r *Record, numPartitions int32, b Backlogs) int32
}

// LeastBackupPartitioner returns a BackupPartitioner that gives each
// record, keyed or not, to the partition of its topic with the fewest
// records accepted and not yet resolved (Backlogs): partitions whose
// leader is slow or unreachable fill up and are passed over, the others
// take the load. Tied partitions take records in turn, so idle partitions
// share them evenly. A choice reads each partition's count once, twice
// when some are tied: O(partitions) per record.
func LeastBackupPartitioner() Partitioner { return &leastBackup{} }

type leastBackup struct {
	start atomic.Uint32
}

// Partition implements Partitioner; without backlogs it is round-robin.
func (lb *leastBackup) Partition(r *Record, n int32) int32 {
	return int32(lb.start.Add(1)-1) % n
}

// PartitionByBackup implements BackupPartitioner.
func (lb *leastBackup) PartitionByBackup(r *Record, n int32, b Backlogs) int32 {
	best, least, ties := int32(0), b.Backlog(0), uint32(1)
	for p := int32(1); p < n; p++ {
		switch c := b.Backlog(p); {
		case c < least:
			best, least, ties = p, c, 1
		case c == least:
			ties++
		}
	}
	if ties == 1 {
		return best
	}
	// The k-th of the tied partitions, k moving on with each record.
	k := (lb.start.Add(1) - 1) % ties
	for p := best; p < n; p++ {
		if b.Backlog(p) == least {
			if k == 0 {
				return p
			}
			k--
		}
	}
	return best // the counts moved meanwhile
}
