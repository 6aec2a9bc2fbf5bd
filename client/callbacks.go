package client

import (
	"sync"
	"sync/atomic"
)

// callbackQueue calls record callbacks on one goroutine, in the order the
// engine resolved them, so user code never runs under the engine's lock and
// records of one partition are called back in offset order. A batch's
// records are queued under one lock acquisition, and done is told how many
// records were called back once per run of the queue, not per record.
type callbackQueue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	items  []callback
	spare  []callback
	closed bool
	done   func(records int) // after records' callbacks have returned
	runner atomic.Uint64     // the goroutine running callbacks
}

type callback struct {
	r   *Record
	err error
	fn  func() // instead of a record: a plain call (data-loss events)
}

func newCallbackQueue(done func(records int)) *callbackQueue {
	q := &callbackQueue{done: done}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// push queues one record's callback.
func (q *callbackQueue) push(r *Record, err error) {
	if r.direct {
		c := callback{r: r, err: err}
		q.done(c.call())
		return
	}
	q.mu.Lock()
	if q.closed {
		// The producer is closed: no runner may be left, call inline.
		q.mu.Unlock()
		c := callback{r: r, err: err}
		q.done(c.call())
		return
	}
	q.items = append(q.items, callback{r: r, err: err})
	q.mu.Unlock()
	q.cond.Signal()
}

// pushTokens queues the callbacks of a batch's records (its tokens, each a
// *Record), in order, all with err. then (which may be nil) runs after the
// tokens are copied and before any of the callbacks can run: the batch can
// be released there, so that a caller woken by the callbacks (Flush) never
// sees the batch still buffered.
func (q *callbackQueue) pushTokens(tokens []any, err error, then func()) {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		cs := make([]callback, len(tokens))
		for i, tok := range tokens {
			cs[i] = callback{r: tok.(*Record), err: err}
		}
		if then != nil {
			then()
		}
		for i := range cs {
			cs[i].call()
		}
		if len(cs) > 0 {
			q.done(len(cs))
		}
		return
	}
	var direct []*Record
	for _, tok := range tokens {
		r := tok.(*Record)
		if r.direct {
			direct = append(direct, r)
			continue
		}
		q.items = append(q.items, callback{r: r, err: err})
	}
	if then != nil {
		then() // may recycle tokens
	}
	q.mu.Unlock()
	q.cond.Signal()
	if len(direct) > 0 {
		// ProduceSync's records: their (internal, non-blocking) callbacks
		// run here, so that a ProduceSync called from a record callback
		// does not wait behind that callback.
		for _, r := range direct {
			c := callback{r: r, err: err}
			c.call()
		}
		q.done(len(direct))
	}
}

// call runs one queued item and returns how many records it called back.
func (c *callback) call() int {
	if c.fn != nil {
		c.fn()
		return 0
	}
	if cb := c.r.cb; cb != nil {
		c.r.cb = nil
		cb(c.r, c.err)
	}
	return 1
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
		batch := q.items
		q.items = q.spare[:0]
		q.mu.Unlock()
		n := 0
		for i := range batch {
			n += batch[i].call()
			batch[i] = callback{}
		}
		if n > 0 {
			q.done(n)
		}
		q.mu.Lock()
		q.spare = batch
		q.mu.Unlock()
	}
}
