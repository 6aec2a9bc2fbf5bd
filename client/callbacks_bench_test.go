package client

import (
	"sync/atomic"
	"testing"

	"github.com/rollsafe/rollsafe/batching"
)

// BenchmarkCallbackQueue guards the delivery of acknowledged batches: one
// op is one record of a 1,000-record batch queued as one item and called
// back on the queue's goroutine with its offset (the records live in a
// ring far larger than the cache, as records acknowledged long after they
// were produced do). A per-record cost on the engine's side or a cache
// miss per field read shows as ns/op.
func BenchmarkCallbackQueue(b *testing.B) {
	const batch, ring = 1000, 1 << 18
	var called atomic.Int64
	recs := make([]Record, ring)
	toks := make([]batching.Source, ring)
	cb := func(r *Record, _ error) {}
	// deliver re-arms the record, as Produce would, on the queue's
	// goroutine: the pushing side never touches a record.
	var deliver func(r *Record, err error)
	deliver = func(r *Record, err error) { r.cb = deliver; r.userCb(r, err) }
	for i := range recs {
		recs[i] = Record{Topic: "t", Offset: -1, userCb: cb, cb: deliver}
		toks[i] = tokenOf(&recs[i])
	}
	done := make(chan struct{}, 1)
	q := newCallbackQueue(func(n int) {
		if called.Add(int64(n)) >= int64(b.N) {
			select {
			case done <- struct{}{}:
			default:
			}
		}
	})
	go q.run()
	defer q.close()
	b.ReportAllocs()
	b.ResetTimer()
	for sent := 0; sent < b.N; sent += batch {
		n := min(batch, b.N-sent)
		from := sent % (ring - batch)
		q.pushTokens(toks[from:from+n], int64(sent), nil, nil)
	}
	<-done
	b.StopTimer()
	if got := called.Load(); got != int64(b.N) {
		b.Fatalf("%d callbacks for %d records", got, b.N)
	}
}
