package client

import (
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// Vectors from Apache Kafka's UtilsTest.testMurmur2.
func TestMurmur2JavaVectors(t *testing.T) {
	cases := map[string]int32{
		"21":                         -973932308,
		"foobar":                     -790332482,
		"a-little-bit-long-string":   -985981536,
		"a-little-bit-longer-string": -1486304829,
		"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8": -58897971,
		"abc": 479470107,
	}
	for in, want := range cases {
		require.Equal(t, want, Murmur2([]byte(in)), in)
	}
}

func TestKeyPartitionStable(t *testing.T) {
	d := &DefaultPartitioner{}
	for i := 0; i < 100; i++ {
		k := []byte{byte(i), 'k'}
		p := d.Partition(&Record{Topic: "t", Key: k}, 12)
		require.Equal(t, KeyPartition(k, 12), p)
		require.True(t, p >= 0 && p < 12)
	}
}

func TestStickySwitchesAfterBatchBytes(t *testing.T) {
	d := &DefaultPartitioner{BatchBytes: 1000}
	seen := map[int32]int{}
	first := d.Partition(&Record{Topic: "t", Value: make([]byte, 84)}, 6)
	for i := 0; i < 9; i++ { // 10 records of 100 bytes stick to one partition
		require.Equal(t, first, d.Partition(&Record{Topic: "t", Value: make([]byte, 84)}, 6))
	}
	require.NotEqual(t, first, d.Partition(&Record{Topic: "t", Value: make([]byte, 84)}, 6))
	for i := 0; i < 6000; i++ {
		seen[d.Partition(&Record{Topic: "t", Value: make([]byte, 84)}, 6)]++
	}
	require.Len(t, seen, 6, "every partition gets unkeyed records")
}

// Round-robin cycles through a topic's partitions exactly, keyed or not,
// each topic on its own, and under concurrent producers gives each
// partition the same number of records.
func TestRoundRobinCycles(t *testing.T) {
	rr := RoundRobinPartitioner()
	for i := range 20 {
		require.Equal(t, int32(i%4), rr.Partition(&Record{Topic: "a", Key: []byte("same")}, 4))
		require.Equal(t, int32(i%3), rr.Partition(&Record{Topic: "b"}, 3))
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	counts := map[int32]int{}
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := map[int32]int{}
			for range 1000 {
				local[rr.Partition(&Record{Topic: "c"}, 5)]++
			}
			mu.Lock()
			for k, v := range local {
				counts[k] += v
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	require.Equal(t, map[int32]int{0: 1600, 1: 1600, 2: 1600, 3: 1600, 4: 1600}, counts)
}

// A custom key hash is stable: the same key gets the same partition from
// every partitioner built with it, the one the hash names; unkeyed records
// stay sticky.
func TestStickyKeyHashStable(t *testing.T) {
	h := KeyHash32(fnv.New32a)
	a, b := StickyKeyPartitioner(h), StickyKeyPartitioner(h)
	for i := range 200 {
		k := []byte(fmt.Sprintf("key-%d", i))
		f := fnv.New32a()
		f.Write(k)
		want := int32(f.Sum32() % 7)
		require.Equal(t, want, a.Partition(&Record{Topic: "t", Key: k}, 7))
		require.Equal(t, want, b.Partition(&Record{Topic: "t", Key: k}, 7))
		require.Equal(t, want, a.Partition(&Record{Topic: "other", Key: k}, 7))
	}
	crc := StickyKeyPartitioner(func(key []byte, n int) int { return int(crc32.ChecksumIEEE(key) % uint32(n)) })
	require.Equal(t, int32(crc32.ChecksumIEEE([]byte("k"))%5), crc.Partition(&Record{Topic: "t", Key: []byte("k")}, 5))
	first := a.Partition(&Record{Topic: "t", Value: []byte("v")}, 7)
	require.Equal(t, first, a.Partition(&Record{Topic: "t", Value: []byte("v")}, 7), "unkeyed records stick")
}

type fixedBacklogs []int64

func (f fixedBacklogs) Backlog(p int32) int64 { return f[p] }

// Least-backup picks the partition with the fewest records outstanding;
// tied partitions share records in turn.
func TestLeastBackupChooses(t *testing.T) {
	lb := LeastBackupPartitioner().(BackupPartitioner)
	for range 10 {
		require.Equal(t, int32(2), lb.PartitionByBackup(&Record{Topic: "t"}, 4, fixedBacklogs{5, 3, 1, 9}))
	}
	seen := map[int32]int{}
	for range 300 {
		seen[lb.PartitionByBackup(&Record{Topic: "t"}, 4, fixedBacklogs{0, 7, 0, 0})]++
	}
	require.Equal(t, map[int32]int{0: 100, 2: 100, 3: 100}, seen)
}
