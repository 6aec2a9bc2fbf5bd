package batching

import (
	"context"
	"sync"

	"github.com/rollsafe/rollsafe/compress"
)

// workQueue is an unbounded FIFO of closed batches waiting for a worker.
// It is unbounded so that closing a batch never blocks while holding the
// accumulator's lock; MaxBufferedBytes bounds it in practice.
type workQueue struct {
	mu       sync.Mutex
	cond     sync.Cond
	items    []*Batch
	head     int
	closed   bool
	inflight int           // pushed, not yet returned from ready
	drained  chan struct{} // closed when inflight reaches 0
}

func (q *workQueue) init() { q.cond.L = &q.mu }

func (q *workQueue) push(b *Batch) {
	q.mu.Lock()
	if q.head > 0 && q.head >= len(q.items)/2 {
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
	q.items = append(q.items, b)
	q.inflight++
	q.mu.Unlock()
	q.cond.Signal()
}

// backlog is the number of batches waiting for a worker.
func (q *workQueue) backlog() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items) - q.head
}

// pop waits for a batch; nil means the queue is closed and empty.
func (q *workQueue) pop() *Batch {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.head == len(q.items) && !q.closed {
		q.cond.Wait()
	}
	if q.head == len(q.items) {
		return nil
	}
	b := q.items[q.head]
	q.items[q.head] = nil
	q.head++
	return b
}

// done records that a batch came back from ready.
func (q *workQueue) done() {
	q.mu.Lock()
	q.inflight--
	if q.inflight == 0 && q.drained != nil {
		close(q.drained)
		q.drained = nil
	}
	q.mu.Unlock()
}

func (q *workQueue) drain(ctx context.Context) error {
	q.mu.Lock()
	if q.inflight == 0 {
		q.mu.Unlock()
		return nil
	}
	if q.drained == nil {
		q.drained = make(chan struct{})
	}
	ch := q.drained
	q.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (q *workQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.cond.Broadcast()
}

// worker encodes and compresses closed batches until the queue closes.
// Uncompressed batches are left to be encoded when first sent (by Bytes)
// while encoded ones not handed out yet reach eagerUnsent bytes: a stalled
// or slow broker then keeps only the callers' records in memory, not
// their encoded copies too.
func (a *Accumulator) worker() {
	defer a.wg.Done()
	var sc scratch // the buffers of compressed batches
	for {
		b := a.work.pop()
		if b == nil {
			return
		}
		if b.codec != compress.None || a.unsent.Load() < a.eagerUnsent {
			b.finish(a.comp, &sc)
			if b.codec == compress.None {
				b.unsent = true
				a.unsent.Add(int64(b.rawLen))
			}
		}
		a.deliver(b)
	}
}

// deliver hands b to ready once every batch closed before it on its
// partition has been handed over. Only one goroutine at a time calls ready
// for a partition, and never while holding a lock.
func (a *Accumulator) deliver(b *Batch) {
	p := b.part
	p.dmu.Lock()
	p.pending = append(p.pending, b)
	if p.delivering {
		p.dmu.Unlock()
		return
	}
	p.delivering = true
	for {
		next := p.takeNext()
		if next == nil {
			p.delivering = false
			p.dmu.Unlock()
			return
		}
		p.dmu.Unlock()
		a.ready(next)
		a.work.done()
		p.dmu.Lock()
	}
}

// takeNext removes and returns the pending batch due next, or nil.
func (p *partition) takeNext() *Batch {
	for i, b := range p.pending {
		if b.seq == p.nextDeliver {
			last := len(p.pending) - 1
			p.pending[i] = p.pending[last]
			p.pending[last] = nil
			p.pending = p.pending[:last]
			p.nextDeliver++
			return b
		}
	}
	return nil
}
