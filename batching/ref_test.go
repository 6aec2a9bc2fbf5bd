package batching

import (
	"context"
	"errors"
	"testing"
)

// Records appended through a PartitionRef and by name share one partition:
// one batch, in append order. A zero ref or another accumulator's ref is
// refused with ErrBadRef and leaves nothing buffered.
func TestPartitionRef(t *testing.T) {
	col := newCollector()
	a := newAcc(t, Config{Linger: -1}, col.ready)
	other := newAcc(t, Config{Linger: -1}, func(*Batch) {})
	tp := TopicPartition{Topic: "t", Partition: 2}
	ref := a.Ref(tp)
	if got := ref.TopicPartition(); got != tp {
		t.Fatalf("ref names %v, want %v", got, tp)
	}
	if a.Ref(tp) != ref {
		t.Fatal("a second Ref of the same partition differs")
	}
	ctx := context.Background()
	for i, app := range []func(r *Record, tok any) error{
		func(r *Record, tok any) error { return a.AppendTo(ctx, ref, r, tok) },
		func(r *Record, tok any) error { return a.Append(ctx, tp, r, tok) },
		func(r *Record, tok any) error { return a.TryAppendTo(ref, r, tok) },
		func(r *Record, tok any) error { return a.TryAppend(tp, r, tok) },
	} {
		if err := app(&Record{Value: []byte{byte(i)}}, i); err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
	}
	for _, bad := range []PartitionRef{{}, other.Ref(tp)} {
		if err := a.AppendTo(ctx, bad, &Record{Value: []byte("x")}, nil); !errors.Is(err, ErrBadRef) {
			t.Fatalf("AppendTo(%+v) = %v, want ErrBadRef", bad, err)
		}
		if err := a.TryAppendTo(bad, &Record{Value: []byte("x")}, nil); !errors.Is(err, ErrBadRef) {
			t.Fatalf("TryAppendTo(%+v) = %v, want ErrBadRef", bad, err)
		}
	}
	drain(t, a)
	bs := col.batches(tp)
	if len(bs) != 1 || bs[0].Records != 4 {
		t.Fatalf("want one batch of 4 records, got %d batches", len(bs))
	}
	for i := range bs[0].Records {
		if tok := bs[0].Token(i); tok != i {
			t.Fatalf("token %d is %v", i, tok)
		}
	}
	if n, _ := a.Buffered(); n != 4 {
		t.Fatalf("buffered %d records, want 4", n)
	}
}
