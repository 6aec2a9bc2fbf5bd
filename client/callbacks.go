package client

import (
	"sync"
	"sync/atomic"

	"github.com/rollsafe/rollsafe/batching"
)

// callbackQueue calls record callbacks on one goroutine, in the order the
// loop resolved them, so user code never runs on the loop (a slow callback
// never holds up the machine) and records of one partition are called back
// in offset order. A batch's
// records are queued as one item under one lock acquisition, without
// reading any of them: the callback goroutine is the only one that touches
// a finished record (its offset, its callback), once. done is told how many
// records were called back once per run of the queue, not per record.
type callbackQueue struct {
	mu        sync.Mutex
	cond      *sync.Cond
	items     []callback
	toks      []batching.Source // the tokens items refer to
	spare     []callback
	spareToks []batching.Source
	closed    bool
	done      func(records int) // after records' callbacks have returned
	runner    atomic.Uint64     // the goroutine running callbacks
}

// callback is one queued item: a single record (r), a batch's records
// (toks[from:to] of the queue's token slab, the first at offset base, or
// base < 0 when no offset is known), or a plain call (fn, for data-loss
// events).
type callback struct {
	r        *Record
	from, to int
	base     int64
	err      error
	fn       func()
}

// A record's token is the Source its batch keeps (batching.Batch.Sources),
// so that a buffered record costs its batch 16 bytes: a *source, or a
// *syncSource for a ProduceSync record, whose type, not a field of the
// record, tells pushTokens to call it back at once, so that finding those
// records among a batch's tokens reads no record.

// tokenOf is r's source, and its token, in the accumulator.
func tokenOf(r *Record) batching.Source {
	if r.direct {
		return (*syncSource)(r)
	}
	return (*source)(r)
}

// recordOf returns a token's record.
func recordOf(tok batching.Source) *Record {
	if s, ok := tok.(*syncSource); ok {
		return (*Record)(s)
	}
	return (*Record)(tok.(*source))
}

func newCallbackQueue(done func(records int)) *callbackQueue {
	q := &callbackQueue{done: done}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// push queues one record's callback.
func (q *callbackQueue) push(r *Record, err error) {
	if r.direct {
		q.done(callRecord(r, -1, err))
		return
	}
	q.mu.Lock()
	if q.closed {
		// The producer is closed: no runner may be left, call inline.
		q.mu.Unlock()
		q.done(callRecord(r, -1, err))
		return
	}
	q.items = append(q.items, callback{r: r, err: err})
	q.mu.Unlock()
	q.cond.Signal()
}

// pushTokens queues the callbacks of a batch's records (its tokens, each a
// *source or *syncSource), in order, all with err; base is the first
// record's offset (< 0: none, the records keep Offset -1). then (which may
// be nil) runs after the tokens are copied and before any of the callbacks
// can run: the batch can be released there, so that a caller woken by the
// callbacks (Flush) never sees the batch still buffered.
func (q *callbackQueue) pushTokens(tokens []batching.Source, base int64, err error, then func()) {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		own := append([]batching.Source(nil), tokens...)
		if then != nil {
			then()
		}
		n := 0
		for i, tok := range own {
			n += callRecord(recordOf(tok), offsetAt(base, i), err)
		}
		if n > 0 {
			q.done(n)
		}
		return
	}
	from := len(q.toks)
	var direct []int // indexes of ProduceSync's records
	for i, tok := range tokens {
		if _, ok := tok.(*syncSource); ok {
			direct = append(direct, i)
		}
	}
	q.toks = append(q.toks, tokens...)
	if len(direct) == 0 {
		q.items = append(q.items, callback{from: from, to: len(q.toks), base: base, err: err})
	} else {
		// The queue keeps the others; the direct ones are copied out.
		own := make([]*Record, len(direct))
		for j, i := range direct {
			own[j] = (*Record)(q.toks[from+i].(*syncSource))
			q.toks[from+i] = nil
		}
		q.items = append(q.items, callback{from: from, to: len(q.toks), base: base, err: err})
		defer func() {
			// ProduceSync's records: their (internal, non-blocking)
			// callbacks run here, so that a ProduceSync called from a record
			// callback does not wait behind that callback.
			for j, r := range own {
				callRecord(r, offsetAt(base, direct[j]), err)
			}
			q.done(len(own))
		}()
	}
	if then != nil {
		then() // may recycle tokens
	}
	q.mu.Unlock()
	q.cond.Signal()
}

// offsetAt is the offset of a batch's i-th record, or -1.
func offsetAt(base int64, i int) int64 {
	if base < 0 {
		return -1
	}
	return base + int64(i)
}

// callRecord sets r's offset (when known) and calls its callback; it
// returns the records called back (1).
func callRecord(r *Record, offset int64, err error) int {
	if offset >= 0 {
		r.Offset = offset
	}
	if cb := r.cb; cb != nil {
		r.cb = nil
		cb(r, err)
	}
	return 1
}

// call runs one queued item over the token slab it was queued in and
// returns how many records it called back.
func (c *callback) call(toks []batching.Source) int {
	switch {
	case c.fn != nil:
		c.fn()
		return 0
	case c.r != nil:
		return callRecord(c.r, -1, c.err)
	}
	n := 0
	recs := toks[c.from:c.to]
	for lo := 0; lo < len(recs); lo += touchAhead {
		part := recs[lo:min(lo+touchAhead, len(recs))]
		touch(part)
		for i, tok := range part {
			if tok == nil {
				continue // a ProduceSync record, already called back
			}
			n += callRecord((*Record)(tok.(*source)), offsetAt(c.base, lo+i), c.err)
		}
	}
	return n
}

// touchAhead is how many records touch brings into the cache at a time.
const touchAhead = 64

// touchSink keeps touch's loads from being optimised away.
var touchSink atomic.Int64

// touch reads each record's delivery fields before any is called back.
// Records are called back long after they were produced, out of the
// cache: read one after another between callbacks, each read waits for
// memory; read here in a tight loop of independent loads, the processor
// has many in flight at once, and the callbacks that follow find them
// cached.
func touch(recs []batching.Source) {
	var x int64
	for _, tok := range recs {
		if r, ok := tok.(*source); ok && r.userCb != nil {
			x += r.Offset
		}
	}
	if x == 1<<62 { // never: offsets are -1 until the callback
		touchSink.Add(1)
	}
}

// pushFunc queues a plain call.
func (q *callbackQueue) pushFunc(fn func()) {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		fn()
		return
	}
	q.items = append(q.items, callback{fn: fn})
	q.mu.Unlock()
	q.cond.Signal()
}

// close lets run return once everything queued has been called.
func (q *callbackQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.cond.Signal()
}

// inCallback reports whether the caller runs on the queue's goroutine,
// that is, inside a record callback.
func (q *callbackQueue) inCallback() bool { return q.runner.Load() == goroutineID() }

func (q *callbackQueue) run() {
	q.runner.Store(goroutineID())
	for {
		q.mu.Lock()
		for len(q.items) == 0 && !q.closed {
			q.cond.Wait()
		}
		if len(q.items) == 0 {
			q.mu.Unlock()
			return
		}
		batch, toks := q.items, q.toks
		q.items, q.toks = q.spare[:0], q.spareToks[:0]
		q.mu.Unlock()
		n := 0
		for i := range batch {
			n += batch[i].call(toks)
			batch[i] = callback{}
		}
		clear(toks)
		if n > 0 {
			q.done(n)
		}
		q.mu.Lock()
		q.spare, q.spareToks = batch, toks
		q.mu.Unlock()
	}
}
