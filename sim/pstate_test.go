package sim

import (
	"maps"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/compress"
)

// step is one produce of a producer-state scenario and its expected answer.
type step struct {
	pid    int64
	epoch  int16
	seq    int32
	n      int
	code   int16
	offset int64 // expected base offset when code is 0
}

func runSteps(t *testing.T, steps []step, opts ...Option) {
	t.Helper()
	c := newTestCluster(t, append([]Option{Brokers(1), Topic("t", 1, 1)}, opts...)...)
	tc := dial(t, c.Addrs()[0])
	for i, s := range steps {
		raw := makeBatch(t, spec{pid: s.pid, epoch: s.epoch, seq: s.seq, codec: compress.Snappy, values: vals("v", s.n)})
		got := tc.produce("t", 0, 1, raw)
		if got.ErrorCode != s.code || (s.code == 0 && got.BaseOffset != s.offset) {
			t.Fatalf("step %d %+v: code %d offset %d", i, s, got.ErrorCode, got.BaseOffset)
		}
	}
}

func TestProducerStateRules(t *testing.T) {
	for name, steps := range map[string][]step{
		"in order and retry gets original offset": {
			{pid: 1, seq: 0, n: 2, offset: 0}, {pid: 1, seq: 2, n: 3, offset: 2},
			{pid: 1, seq: 0, n: 2, offset: 0}, {pid: 1, seq: 2, n: 3, offset: 2}, {pid: 1, seq: 5, n: 1, offset: 5},
		},
		"gap is out of order": {
			{pid: 1, seq: 0, n: 2, offset: 0}, {pid: 1, seq: 3, n: 1, code: errOutOfOrderSequence},
		},
		"retry with other last sequence is out of order": {
			{pid: 1, seq: 0, n: 2, offset: 0}, {pid: 1, seq: 0, n: 3, code: errOutOfOrderSequence},
		},
		"window of five": {
			{pid: 1, seq: 0, n: 1, offset: 0}, {pid: 1, seq: 1, n: 1, offset: 1}, {pid: 1, seq: 2, n: 1, offset: 2},
			{pid: 1, seq: 3, n: 1, offset: 3}, {pid: 1, seq: 4, n: 1, offset: 4}, {pid: 1, seq: 5, n: 1, offset: 5},
			{pid: 1, seq: 1, n: 1, offset: 1}, {pid: 1, seq: 0, n: 1, code: errOutOfOrderSequence},
		},
		"sequence wraps": {
			{pid: 1, seq: math.MaxInt32 - 1, n: 2, offset: 0}, {pid: 1, seq: 0, n: 1, offset: 2},
			{pid: 1, seq: math.MaxInt32, n: 2, code: errOutOfOrderSequence},
		},
		"batch spanning the wrap": {
			{pid: 1, seq: math.MaxInt32, n: 3, offset: 0}, {pid: 1, seq: 2, n: 1, offset: 3},
		},
		"higher epoch starts at zero": {
			{pid: 1, seq: 0, n: 2, offset: 0}, {pid: 1, epoch: 1, seq: 2, n: 1, code: errOutOfOrderSequence},
			{pid: 1, epoch: 1, seq: 0, n: 1, offset: 2}, {pid: 1, epoch: 0, seq: 2, n: 1, code: errInvalidProducerEpoch},
			{pid: 1, epoch: 0, seq: 0, n: 2, code: errInvalidProducerEpoch},
		},
		"unknown producer at any sequence": {
			{pid: 1, seq: 42, n: 2, offset: 0}, {pid: 1, seq: 44, n: 1, offset: 2}, {pid: 2, epoch: 3, seq: 7, n: 1, offset: 3},
		},
		"producers are independent": {
			{pid: 1, seq: 0, n: 1, offset: 0}, {pid: 2, seq: 0, n: 1, offset: 1}, {pid: 1, seq: 1, n: 1, offset: 2},
			{pid: 2, seq: 0, n: 1, offset: 1},
		},
		"non-idempotent batches are not checked": {
			{pid: -1, epoch: -1, seq: -1, n: 1, offset: 0}, {pid: -1, epoch: -1, seq: -1, n: 1, offset: 1},
		},
	} {
		t.Run(name, func(t *testing.T) { runSteps(t, steps) })
	}
}

func TestProducerStateSwitches(t *testing.T) {
	t.Run("pre 2.5", func(t *testing.T) {
		runSteps(t, []step{
			{pid: 1, seq: 5, n: 1, code: errUnknownProducerID}, {pid: 1, seq: 0, n: 1, offset: 0}, {pid: 1, seq: 1, n: 1, offset: 1},
		}, Pre25())
	})
	t.Run("KAFKA-15591 fix", func(t *testing.T) {
		runSteps(t, []step{
			{pid: 1, seq: 5, n: 1, code: errOutOfOrderSequence}, {pid: 1, seq: 0, n: 1, offset: 0},
			// No longer empty: an unknown producer is accepted anywhere.
			{pid: 2, seq: 9, n: 1, offset: 1},
		}, Kafka15591Fix())
	})
	t.Run("epoch per producer", func(t *testing.T) {
		c := newTestCluster(t, Brokers(1), Topic("t", 2, 1), EpochPerProducer())
		tc := dial(t, c.Addrs()[0])
		if p := tc.produce("t", 0, 1, makeBatch(t, spec{pid: 1, seq: 0, values: vals("a", 1)})); p.ErrorCode != 0 {
			t.Fatal(p.ErrorCode)
		}
		if p := tc.produce("t", 1, 1, makeBatch(t, spec{pid: 1, epoch: 1, seq: 0, values: vals("b", 1)})); p.ErrorCode != 0 {
			t.Fatal(p.ErrorCode)
		}
		// Partition 0 never saw epoch 1, yet epoch 0 is fenced there.
		if p := tc.produce("t", 0, 1, makeBatch(t, spec{pid: 1, seq: 1, values: vals("a", 1)})); p.ErrorCode != errInvalidProducerEpoch {
			t.Fatalf("code %d, want INVALID_PRODUCER_EPOCH", p.ErrorCode)
		}
	})
	t.Run("per partition epochs by default", func(t *testing.T) {
		c := newTestCluster(t, Brokers(1), Topic("t", 2, 1))
		tc := dial(t, c.Addrs()[0])
		tc.produce("t", 0, 1, makeBatch(t, spec{pid: 1, seq: 0, values: vals("a", 1)}))
		tc.produce("t", 1, 1, makeBatch(t, spec{pid: 1, epoch: 1, seq: 0, values: vals("b", 1)}))
		if p := tc.produce("t", 0, 1, makeBatch(t, spec{pid: 1, seq: 1, values: vals("a", 1)})); p.ErrorCode != 0 {
			t.Fatalf("code %d, want 0", p.ErrorCode)
		}
	})
}

func TestProducerTableShrink(t *testing.T) {
	pt := producerTable{}
	for i := int32(0); i < 7; i++ {
		pt.update(1, 0, i, i, int64(i), int64(i))
	}
	if n := len(pt[1].batches); n != dedupWindow {
		t.Fatalf("%d batches kept, want %d", n, dedupWindow)
	}
	pt.shrink()
	if b := pt[1].batches; len(b) != 1 || b[0].firstSeq != 6 {
		t.Fatalf("after shrink: %+v", b)
	}
	if addSeq(math.MaxInt32, 1) != 0 || addSeq(math.MaxInt32-1, 3) != 1 || nextSeq(math.MaxInt32) != 0 {
		t.Fatal("sequence wrap arithmetic")
	}
}

// TestProducerTableDropStamped: Kafka's isProducerExpired measures from
// the last batch's largest record timestamp: a producer whose last batch
// is stamped at least the expiration ago is dropped, however recently it
// arrived; one stamped just inside it stays.
func TestProducerTableDropStamped(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	pt := producerTable{}
	for pid, age := range map[int64]time.Duration{1: 48 * time.Hour, 2: 24 * time.Hour, 3: 24*time.Hour - time.Millisecond, 4: 0} {
		pt.update(pid, 0, 0, 0, 0, 0) // arrived now
		pt[pid].lastTimestamp = now.Add(-age).UnixMilli()
	}
	pt.dropStamped(24*time.Hour, now)
	if len(pt) != 2 || pt[3] == nil || pt[4] == nil {
		t.Fatalf("kept %v, want producers 3 and 4", slices.Sorted(maps.Keys(pt)))
	}
}

// TestMarkerOnlyProducerStartsAtZero: a producer a partition knows from a
// transaction marker only (added to a transaction, nothing written
// there) must start at sequence 0 at the marker's epoch, as Kafka's
// producer state checks it (no last sequence: only 0 follows).
func TestMarkerOnlyProducerStartsAtZero(t *testing.T) {
	tbl := producerTable{}
	h, _ := markerBatch(7, 3, markerCommit, 0, time.Unix(1, 0))
	if _, ok := tbl.add(&entry{base: 0, h: h}); ok {
		t.Fatal("a marker with no transaction here completed one")
	}
	for seq, want := range map[int32]int16{5: errOutOfOrderSequence, 0: errNone} {
		b := batchHeader{producerID: 7, producerEpoch: 3, baseSequence: seq, marker: markerNone}
		if _, code := tbl.check(&b, seqRules{}, false); code != want {
			t.Errorf("sequence %d: code %d, want %d", seq, code, want)
		}
	}
}
