package client

import (
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
