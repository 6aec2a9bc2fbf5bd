package sim

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"slices"
	"testing"

	"github.com/rollsafe/rollsafe/compress"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// keyedBatch encodes a v2 batch of one record per key (value "v-<key>").
func keyedBatch(t *testing.T, pid int64, seq int32, codec compress.Codec, keys ...string) []byte {
	t.Helper()
	var recs []byte
	for i, k := range keys {
		r := kmsg.Record{OffsetDelta: int32(i), TimestampDelta64: int64(i), Value: []byte("v-" + k)}
		if k != "" {
			r.Key = []byte(k)
		}
		body := r.AppendTo(nil)[1:]
		recs = binary.AppendVarint(recs, int64(len(body)))
		recs = append(recs, body...)
	}
	cm, err := compress.NewCompressor(codec, compress.DefaultLevel)
	if err != nil {
		t.Fatal(err)
	}
	payload, err := cm.Compress(nil, recs)
	if err != nil {
		t.Fatal(err)
	}
	n := int32(len(keys))
	b := kmsg.RecordBatch{
		Length: int32(49 + len(payload)), PartitionLeaderEpoch: -1, Magic: 2, Attributes: int16(codec),
		LastOffsetDelta: n - 1, FirstTimestamp: 1000, MaxTimestamp: 1000 + int64(n) - 1,
		ProducerID: pid, ProducerEpoch: 0, FirstSequence: seq, NumRecords: n, Records: payload,
	}
	raw := b.AppendTo(nil)
	binary.BigEndian.PutUint32(raw[17:], crc32.Checksum(raw[21:], castagnoli))
	return raw
}

type batchView struct {
	base, last int64
	pid        int64
	seq        int32
	keys       []string
}

func viewOf(t *testing.T, c *Cluster, broker int32) []batchView {
	t.Helper()
	bs, err := c.ReplicaRecords("c", 0, broker)
	if err != nil {
		t.Fatal(err)
	}
	var out []batchView
	for _, b := range bs {
		v := batchView{base: b.BaseOffset, last: b.LastOffset(), pid: b.ProducerID, seq: b.BaseSequence}
		for _, r := range b.Records {
			v.keys = append(v.keys, string(r.Key))
		}
		out = append(out, v)
	}
	return out
}

func TestCompaction(t *testing.T) {
	c := newTestCluster(t, Brokers(2), Topic("c", 1, 2), Topic("plain", 1, 1), CompactTopic("c"),
		ProducerIDExpiration(stampedLongAgo)) // restarts below keep the 1970-stamped producers
	leader, _ := c.Leader("c", 0)
	tc := dial(t, c.Addrs()[leader])
	if p := tc.produce("c", 0, -1, keyedBatch(t, 1, 0, compress.None, "k1", "")); p.ErrorCode != errInvalidRecord {
		t.Fatalf("a record without key on a compacted topic: code %d", p.ErrorCode)
	}
	for _, b := range []struct {
		pid   int64
		seq   int32
		codec compress.Codec
		keys  []string
	}{
		{1, 0, compress.None, []string{"k1", "k2"}}, // 0-1: all superseded, not pid 1's last: removed
		{2, 0, compress.None, []string{"k1"}},       // 2: superseded, pid 2's last: kept empty
		{1, 2, compress.Gzip, []string{"k2", "k3"}}, // 3-4: k3 superseded: rewritten
		{3, 0, compress.None, []string{"k3"}},       // 5
		{1, 4, compress.None, []string{"k1"}},       // 6
		{4, 0, compress.None, []string{"k1"}},       // 7: the active segment, never cleaned
	} {
		if p := tc.produce("c", 0, -1, keyedBatch(t, b.pid, b.seq, b.codec, b.keys...)); p.ErrorCode != 0 {
			t.Fatal(p.ErrorCode)
		}
	}
	if _, err := c.Compact("plain", 0); !errors.Is(err, ErrNotCompacted) {
		t.Fatalf("compacting a delete-policy topic: %v", err)
	}
	removed, err := c.Compact("c", 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := []OffsetRange{{0, 3}, {4, 5}}; !slices.Equal(removed, want) {
		t.Fatalf("removed %v, want %v", removed, want)
	}
	want := []batchView{
		{base: 2, last: 2, pid: 2, seq: 0},
		{base: 3, last: 4, pid: 1, seq: 2, keys: []string{"k2"}},
		{base: 5, last: 5, pid: 3, seq: 0, keys: []string{"k3"}},
		{base: 6, last: 6, pid: 1, seq: 4, keys: []string{"k1"}},
		{base: 7, last: 7, pid: 4, seq: 0, keys: []string{"k1"}},
	}
	for _, b := range []int32{0, 1} {
		if got := viewOf(t, c, b); !slices.EqualFunc(got, want, func(a, b batchView) bool {
			return a.base == b.base && a.last == b.last && a.pid == b.pid && a.seq == b.seq && slices.Equal(a.keys, b.keys)
		}) {
			t.Fatalf("broker %d after compaction:\n got %+v\nwant %+v", b, got, want)
		}
	}
	// Reads: the log start does not move; a read from 0 gets the first
	// batch left, whole batches that decode (CRC checked by the helper).
	f := tc.fetch("c", 0, 0, 0)
	if f.code != 0 || len(f.batches) != 5 || f.batches[0].FirstOffset != 2 || f.batches[0].NumRecords != 0 {
		t.Fatalf("fetch after compaction: code %d, %d batches", f.code, len(f.batches))
	}
	if f.values[3] != "v-k2" || f.values[4] != "" || f.values[0] != "" {
		t.Fatalf("values %v", f.values)
	}
	bs, _ := c.Records("c", 0)
	if bs[1].Codec != compress.Gzip {
		t.Fatalf("rewritten batch codec %v", bs[1].Codec)
	}
	// Producer state is untouched: the producers continue where they were.
	if p := tc.produce("c", 0, -1, keyedBatch(t, 2, 1, compress.None, "k5")); p.ErrorCode != 0 || p.BaseOffset != 8 {
		t.Fatalf("producer 2 continues: code %d offset %d", p.ErrorCode, p.BaseOffset)
	}
	// Producer 2's state expires: its empty batch at 2 is no longer kept
	// (its batch at 8 holds the latest k5 of the cleanable part, so stays).
	c.ExpireProducer(2)
	if p := tc.produce("c", 0, -1, keyedBatch(t, 3, 1, compress.None, "k5")); p.ErrorCode != 0 {
		t.Fatal(p.ErrorCode)
	}
	if _, err := c.Compact("c", 0); err != nil {
		t.Fatal(err)
	}
	got := viewOf(t, c, leader)
	var bases []int64
	for _, v := range got {
		bases = append(bases, v.base)
	}
	if want := []int64{3, 5, 6, 7, 8, 9}; !slices.Equal(bases, want) {
		t.Fatalf("after expiry and a second compaction, batches at %v, want %v", bases, want)
	}
	// A restarted broker rebuilds producer state from the compacted log.
	if err := c.StopBroker(leader); err != nil {
		t.Fatal(err)
	}
	if err := c.StartBroker(leader); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	ps := c.topics["c"].parts[0].logs[leader].pstate
	if e := ps[1]; e == nil || e.lastSeq() != 4 {
		t.Fatalf("producer 1 after reload: %+v", e)
	}
	if e := ps[2]; e == nil || e.lastSeq() != 1 {
		t.Fatalf("producer 2 after reload (its batch at 8 is in the log): %+v", e)
	}
}
