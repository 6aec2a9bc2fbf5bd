package batching

import (
	"context"
	"sync"
	"testing"
	"time"
)

// isOpenLocked reports whether tp has an open batch (a.mu held).
func isOpenLocked(a *Accumulator, tp TopicPartition) bool {
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

// TestLingerHold drives expireLocked with chosen clocks: a batch whose
// linger ended closes at once unless the producer is saturated (a caller
// waits for room and closed batches wait for a worker); then it stays open
// until LingerHold past its linger.
func TestLingerHold(t *testing.T) {
	checkNoLeak(t)
	gate := make(chan struct{})
	released := false
	release := func() {
		if !released {
			released = true
			close(gate)
		}
	}
	var mu sync.Mutex
	var part1 []int          // records per delivered batch of partition 1
	const linger = time.Hour // the timer never fires: the test is the clock
	var a *Accumulator
	a = newAcc(t, Config{Linger: linger, Workers: 1, BatchRecords: 1, MaxBufferedRecords: 5}, func(b *Batch) {
		if b.TP.Partition == 0 {
			<-gate // the only worker stays busy with partition 0's first batch
		}
		if b.TP.Partition == 1 {
			mu.Lock()
			part1 = append(part1, b.Records)
			mu.Unlock()
		}
		a.Release(b)
	})
	t.Cleanup(release) // before a.Close (cleanups run last first)
	rec := func(v string) *Record { return &Record{Value: []byte(v), Timestamp: time.UnixMilli(1)} }
	appendTo := func(p int32, v string) {
		t.Helper()
		if err := a.TryAppend(TopicPartition{"t", p}, rec(v), nil); err != nil {
			t.Fatal(err)
		}
	}
	headDeadline := func() time.Time { // a.mu held
		q := &a.linger
		for i := q.head; i < len(q.items); i++ {
			if e := q.items[i]; e.p.open != nil && e.p.open.id == e.id {
				return e.deadline
			}
		}
		t.Fatal("no open batch in the linger queue")
		return time.Time{}
	}

	// Three one-record batches of partition 0: the worker takes the first
	// and blocks, two wait for it.
	for _, v := range []string{"a", "b", "c"} {
		appendTo(0, v)
	}
	waitFor(t, "a backlog of two batches", func() bool { return a.work.backlog() == 2 })
	a.mu.Lock()
	a.cfg.BatchRecords = 0 // from here batches close on linger only
	a.mu.Unlock()

	// A backlog but nobody waiting for room: linger closes on time.
	appendTo(2, "w")
	a.mu.Lock()
	a.expireLocked(headDeadline().Add(time.Millisecond))
	if isOpenLocked(a, TopicPartition{"t", 2}) {
		t.Error("linger did not close a batch although no caller waited for room")
	}
	a.mu.Unlock()

	// Saturated: 5 records buffered, a caller waits for room.
	appendTo(1, "x")
	waiting := make(chan error, 1)
	go func() { waiting <- a.Append(context.Background(), TopicPartition{"t", 1}, rec("z"), nil) }()
	waitFor(t, "a caller waiting for room", func() bool {
		a.mu.Lock()
		defer a.mu.Unlock()
		return a.waiters == 1
	})
	a.mu.Lock()
	d := headDeadline()
	next := a.expireLocked(d.Add(time.Millisecond))
	if !isOpenLocked(a, TopicPartition{"t", 1}) {
		t.Error("linger closed a batch while the producer was saturated")
	}
	if want := d.Add(LingerHold); !next.Equal(want) {
		t.Errorf("held batch looked at again at %v, want the end of the hold %v", next.Sub(d), want.Sub(d))
	}
	a.expireLocked(d.Add(LingerHold))
	if isOpenLocked(a, TopicPartition{"t", 1}) {
		t.Error("batch still open at the end of LingerHold")
	}
	a.mu.Unlock()

	release()
	if err := <-waiting; err != nil {
		t.Fatal(err)
	}
	drain(t, a)
	mu.Lock()
	defer mu.Unlock()
	if len(part1) != 2 || part1[0] != 1 || part1[1] != 1 {
		t.Fatalf("partition 1: batches of %v records, want [x] then [z]", part1)
	}
}
