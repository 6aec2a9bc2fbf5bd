package batching

import "time"

// lingerEntry is the deadline of one open batch. All batches linger the
// same time, so the queue is ordered by deadline.
type lingerEntry struct {
	p        *partition
	id       uint64
	deadline time.Time
}

// lingerQueue is a FIFO guarded by Accumulator.mu. Entries of batches that
// closed early are dropped when they reach the head.
type lingerQueue struct {
	items []lingerEntry
	head  int
}

// push adds e and wakes the timer if the queue was empty.
func (q *lingerQueue) push(e lingerEntry, kick chan<- struct{}) {
	wasEmpty := q.head == len(q.items)
	if q.head > 0 && q.head >= len(q.items)/2 {
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
	q.items = append(q.items, e)
	if wasEmpty {
		select {
		case kick <- struct{}{}:
		default:
		}
	}
}

// expireLocked closes the batches whose linger ended by now and returns the
// next deadline (zero if none).
func (a *Accumulator) expireLocked(now time.Time) time.Time {
	q := &a.linger
	for q.head < len(q.items) {
		e := q.items[q.head]
		if e.p.open == nil || e.p.open.id != e.id {
			q.items[q.head] = lingerEntry{}
			q.head++
			continue // closed already
		}
		if e.deadline.After(now) {
			return e.deadline
		}
		q.items[q.head] = lingerEntry{}
		q.head++
		a.closeLocked(e.p)
	}
	return time.Time{}
}

func (a *Accumulator) lingerLoop() {
	defer a.wg.Done()
	t := time.NewTimer(time.Hour)
	t.Stop()
	defer t.Stop()
	for {
		select {
		case <-a.done:
			return
		case <-a.lingerKick:
		case <-t.C:
		}
		a.mu.Lock()
		now := time.Now()
		next := a.expireLocked(now)
		a.mu.Unlock()
		if !next.IsZero() {
			t.Reset(next.Sub(now))
		}
	}
}
