package batching

import (
	"context"
	"sync"
	"sync/atomic"
)

// workQueue is an unbounded FIFO of closed batches waiting for a worker,
// and a second one of batches delivered unencoded for want of room, for a
// worker to encode once room frees (unless their sender got there first).
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

	room     func() bool // whether a worker may encode ahead of the sender
	late     []lateBatch
	lateHead int
	lateN    atomic.Int32 // len(late) - lateHead
}

// lateBatch is a batch delivered unencoded, with its id then: a batch
// released meanwhile, and maybe reused, has another (or none).
type lateBatch struct {
	b  *Batch
	id uint64
}

func (q *workQueue) init(room func() bool) {
	q.cond.L = &q.mu
	q.room = room
}

func (q *workQueue) push(b *Batch) {
	q.mu.Lock()
	q.items, q.head = compact(q.items, q.head)
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

// pop waits for work: a late batch (late, with its id then) when there is
// room to encode ahead, else a closed batch; nil means the queue is closed
// and has no closed batch left (late ones are left to their senders).
func (q *workQueue) pop() (b *Batch, id uint64, late bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		if q.lateHead < len(q.late) && !q.closed && q.room() {
			e := q.late[q.lateHead]
			q.late[q.lateHead] = lateBatch{}
			q.lateHead++
			if q.lateHead == len(q.late) {
				q.late, q.lateHead = q.late[:0], 0
			}
			q.lateN.Add(-1)
			return e.b, e.id, true
		}
		if q.head < len(q.items) {
			b := q.items[q.head]
			q.items[q.head] = nil
			q.head++
			return b, 0, false
		}
		if q.closed {
			return nil, 0, false
		}
		q.cond.Wait()
	}
}

// compact moves a FIFO's items from head on to its start once head has
// passed half of them, so that a queue that never empties does not grow
// without end; it returns the FIFO and its new head.
func compact[T any](s []T, head int) ([]T, int) {
	if head == 0 || head < len(s)/2 {
		return s, head
	}
	n := copy(s, s[head:])
	clear(s[n:])
	return s[:n], 0
}

// pushLate queues b, about to be delivered unencoded, for a worker to
// encode once there is room.
func (q *workQueue) pushLate(b *Batch) {
	q.mu.Lock()
	q.late, q.lateHead = compact(q.late, q.lateHead)
	q.late = append(q.late, lateBatch{b: b, id: b.id})
	q.lateN.Add(1)
	room := q.room()
	q.mu.Unlock()
	if room { // freed since the worker looked
		q.cond.Broadcast()
	}
}

// roomFreed wakes the workers if late batches wait for room.
func (q *workQueue) roomFreed() {
	if q.lateN.Load() == 0 {
		return
	}
	q.mu.Lock() // a worker between its check of room and its Wait holds it
	q.cond.Broadcast()
	q.mu.Unlock()
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
// While the encoded batches not handed out yet (Bytes) hold eagerUnsent
// bytes or more (compressed bytes for a codec), it delivers closed batches
// unencoded and queues them as late; as batches are handed out and room
// frees, it encodes late batches their senders have not reached yet,
// oldest first. A stalled or slow broker then keeps the callers' records
// in memory and only a bounded amount of their encoded copies, while a
// broker that keeps up finds its batches encoded (and compressed, in
// parallel) ahead of it.
func (a *Accumulator) worker() {
	defer a.wg.Done()
	var sc scratch // the buffers of compressed batches
	for {
		b, id, late := a.work.pop()
		if b == nil {
			return
		}
		if late {
			a.catchUp(b, id, &sc)
			continue
		}
		if a.work.room() {
			b.finish(a.comp, &sc)
			a.countUnsent(b)
		} else {
			a.work.pushLate(b)
		}
		a.deliver(b)
	}
}

// catchUp encodes late batch b, delivered unencoded as id, unless its
// sender has encoded it, is encoding it, or it was released.
func (a *Accumulator) catchUp(b *Batch, id uint64, sc *scratch) {
	if !b.encMu.TryLock() {
		return // Bytes is encoding it, or Release or reset holds it
	}
	if b.acc == a && b.id == id && b.wire == nil {
		b.finish(a.comp, sc)
		a.countUnsent(b)
	}
	b.encMu.Unlock()
}

// countUnsent counts encoded batch b in the unsent bytes until it is handed
// out or released.
func (a *Accumulator) countUnsent(b *Batch) {
	b.unsentBytes = int64(len(b.wire))
	a.unsent.Add(b.unsentBytes)
}

// uncountUnsent takes b out of the unsent bytes (b handed out or
// released), waking workers for late batches.
func (a *Accumulator) uncountUnsent(b *Batch) {
	a.unsent.Add(-b.unsentBytes)
	b.unsentBytes = 0
	a.work.roomFreed()
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
