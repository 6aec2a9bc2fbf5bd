package client

import "sync"

// callbackQueue calls record callbacks on one goroutine, in the order the
// engine resolved them, so user code never runs under the engine's lock and
// records of one partition are called back in offset order.
type callbackQueue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	items  []callback
	spare  []callback
	closed bool
}

type callback struct {
	r    *Record
	err  error
	done func()
	fn   func() // instead of a record: a plain call (data-loss events)
}

func newCallbackQueue() *callbackQueue {
	q := &callbackQueue{}
	q.cond = sync.NewCond(&q.mu)
	return q
}

func (q *callbackQueue) push(r *Record, err error, done func()) {
	q.mu.Lock()
	if q.closed {
		// The producer is closed: no runner may be left, call inline.
		q.mu.Unlock()
		c := callback{r: r, err: err, done: done}
		c.call()
		return
	}
	q.items = append(q.items, callback{r: r, err: err, done: done})
	q.mu.Unlock()
	q.cond.Signal()
}

// call runs one queued item.
func (c *callback) call() {
	if c.fn != nil {
		c.fn()
		return
	}
	if cb := c.r.cb; cb != nil {
		c.r.cb = nil
		cb(c.r, c.err)
	}
	c.done()
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

func (q *callbackQueue) run() {
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
		for i := range batch {
			batch[i].call()
			batch[i] = callback{}
		}
		q.mu.Lock()
		q.spare = batch
		q.mu.Unlock()
	}
}
