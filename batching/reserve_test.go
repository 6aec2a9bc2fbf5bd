package batching

import (
	"context"
	"errors"
	"testing"
	"time"
)

// Reservations count against MaxBuffered like appended records: with the
// buffer's records reserved nothing more fits, an append into a
// reservation never exceeds the bounds, and Unreserve frees the room.
func TestReserveCountsAgainstMaxBuffered(t *testing.T) {
	col := newCollector()
	a := newAcc(t, Config{Linger: -1, MaxBufferedRecords: 3, MaxBufferedBytes: 1 << 20}, col.ready)
	src := func(v string) Source { return heldOf(&Record{Value: []byte(v), Timestamp: time.UnixMilli(1)}, nil) }
	var rvs []Reservation
	for i := range 3 {
		rv, err := a.TryReserve(src("v"))
		if err != nil {
			t.Fatalf("reserve %d: %v", i, err)
		}
		rvs = append(rvs, rv)
	}
	if n, b := a.Buffered(); n != 3 || b <= 0 {
		t.Fatalf("Buffered = %d records, %d bytes: want the 3 reservations", n, b)
	}
	if _, err := a.TryReserve(src("v")); !errors.Is(err, ErrBufferFull) {
		t.Fatalf("a fourth reservation: %v, want ErrBufferFull", err)
	}
	if err := a.TryAppendSourceTo(a.Ref(TopicPartition{Topic: "t"}), src("v")); !errors.Is(err, ErrBufferFull) {
		t.Fatalf("an append beside 3 reservations: %v, want ErrBufferFull", err)
	}
	ref := a.Ref(TopicPartition{Topic: "t"})
	for i, rv := range rvs[:2] {
		if err := a.AppendReservedTo(ref, src("v"), rv); err != nil {
			t.Fatalf("append into reservation %d: %v", i, err)
		}
	}
	n, b := a.Buffered()
	if n != 3 {
		t.Fatalf("Buffered = %d records after appending into 2 of 3 reservations", n)
	}
	a.Unreserve(rvs[2])
	if n2, b2 := a.Buffered(); n2 != 2 || b2 >= b {
		t.Fatalf("Unreserve left %d records, %d bytes (from %d)", n2, b2, b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rv, err := a.Reserve(ctx, src("v"))
	if err != nil {
		t.Fatal(err)
	}
	a.Unreserve(rv)
	a.Unreserve(Reservation{}) // the zero Reservation: nothing
	drain(t, a)
	releaseAll(t, a, col.batches(TopicPartition{Topic: "t"}))
	if n, b := a.Buffered(); n != 0 || b != 0 {
		t.Fatalf("Buffered = %d records, %d bytes after releasing everything", n, b)
	}
}

// A Reserve waiting for room gets it when a reservation is given back.
func TestReserveWaitsForRoom(t *testing.T) {
	a := newAcc(t, Config{Linger: -1, MaxBufferedRecords: 1, MaxBufferedBytes: 1 << 20}, newCollector().ready)
	src := heldOf(&Record{Value: []byte("v")}, nil)
	first, err := a.TryReserve(src)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		rv, err := a.Reserve(context.Background(), src)
		if err == nil {
			a.Unreserve(rv)
		}
		got <- err
	}()
	a.Unreserve(first)
	if err := <-got; err != nil {
		t.Fatal(err)
	}
}
