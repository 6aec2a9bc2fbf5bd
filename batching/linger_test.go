package batching

import (
	"testing"
	"time"
)

// isOpen reports whether tp has an open batch.
func isOpen(a *Accumulator, tp TopicPartition) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	p := a.parts[tp]
	return p != nil && p.open != nil
}

// waitFor polls cond until it holds or a generous deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not after 5s: %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestLingerHoldWhileBacklog: while the only worker is busy and a closed
// batch waits for it, a batch whose linger ended stays open and takes later
// records, for at most LingerHold; without a backlog linger closes it.
func TestLingerHoldWhileBacklog(t *testing.T) {
	checkNoLeak(t)
	gate := make(chan struct{})
	col := newCollector()
	const linger = 2 * time.Millisecond
	a := newAcc(t, Config{Linger: linger, Workers: 1, BatchRecords: 1}, func(b *Batch) {
		if b.TP.Partition == 0 {
			<-gate // the worker stays busy with partition 0's first batch
		}
		col.ready(b)
	})
	released := false
	release := func() {
		if !released {
			released = true
			close(gate)
		}
	}
	t.Cleanup(release) // before a.Close (cleanups run last first)
	busy, other := TopicPartition{"t", 0}, TopicPartition{"t", 1}
	rec := func(v string) *Record { return &Record{Value: []byte(v), Timestamp: time.UnixMilli(1)} }

	// Two one-record batches of partition 0: the worker takes the first
	// and blocks in ready, the second is the backlog.
	for _, v := range []string{"a", "b"} {
		if err := a.TryAppend(busy, rec(v), nil); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "a backlog of one batch", func() bool { return a.work.backlog() == 1 })

	a.mu.Lock()
	a.cfg.BatchRecords = 0 // partition 1's batch closes on linger only
	a.mu.Unlock()
	start := time.Now()
	if err := a.TryAppend(other, rec("x"), nil); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * linger)
	if held := time.Since(start); held < LingerHold && !isOpen(a, other) {
		t.Fatalf("batch closed %v after its first record (linger %v) while the workers had a backlog", held, linger)
	}
	if err := a.TryAppend(other, rec("y"), nil); err != nil {
		t.Fatal(err)
	}
	// The hold is bounded: the batch closes although the backlog stays.
	waitFor(t, "the held batch closes after LingerHold", func() bool { return !isOpen(a, other) })
	if held := time.Since(start); held < LingerHold {
		t.Fatalf("held batch closed after %v, before LingerHold %v", held, LingerHold)
	}
	release()
	drain(t, a)
	got := col.batches(other)
	if len(got) != 1 || got[0].Records != 2 {
		t.Fatalf("partition 1: %d batches, want one of 2 records", len(got))
	}

	// No backlog: linger closes the batch on time.
	if err := a.TryAppend(other, rec("z"), nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "linger closes the batch without a backlog", func() bool { return !isOpen(a, other) })
}
