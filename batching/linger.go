package batching

import "time"

// LingerHold is how long past its linger an open batch may stay open while
// the producer is saturated: a caller waits for buffer room and the
// compression workers have a backlog (closed batches no worker has taken
// yet). Closing it then would only queue it behind them; kept open it takes
// the records that arrive meanwhile. Below saturation linger is never
// extended (the hold would add latency there); the batch filling, Flush and
// Close still close it at once.
const LingerHold = 100 * time.Millisecond

// lingerRecheck is the shortest wait before a held batch is looked at again.
const lingerRecheck = time.Millisecond

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
	if wasEmpty && kick != nil {
		select {
		case kick <- struct{}{}:
		default:
		}
	}
}

// expireLocked closes the batches whose linger (or hold) ended by now and
// returns the next deadline (zero if none).
func (a *Accumulator) expireLocked(now time.Time) time.Time {
	next := a.expireLingerLocked(now)
	if h := a.expireHeldLocked(now); !h.IsZero() && (next.IsZero() || h.Before(next)) {
		next = h
	}
	return next
}

func (a *Accumulator) expireLingerLocked(now time.Time) time.Time {
	q := &a.linger
	for {
		e, ok := q.live()
		if !ok {
			return time.Time{}
		}
		if e.deadline.After(now) {
			return e.deadline
		}
		if a.cfg.HoldUntilSent && e.p.waiting > 0 && now.Before(e.deadline.Add(SendHold)) {
			// An earlier batch of the partition waits to be sent: this one
			// could only queue behind it. It stays open, filling, until
			// that one is sent (Sent closes it) or the hold ends.
			q.pop()
			e.p.open.holding = true
			a.holds.push(lingerEntry{p: e.p, id: e.id, deadline: e.deadline.Add(SendHold)}, nil)
			continue
		}
		if a.waiters > 0 && now.Before(e.deadline.Add(LingerHold)) && a.work.backlog() > 0 {
			// The buffer is full (a caller waits for room) and closed
			// batches wait for a worker: closed now, this batch would only
			// join that queue. It stays open (and fills, so fewer and
			// fuller batches go out when the producer is saturated) and is
			// looked at again after another Linger (or when the hold ends).
			return minTime(now.Add(max(a.cfg.Linger, lingerRecheck)), e.deadline.Add(LingerHold))
		}
		q.pop()
		a.closeLocked(e.p)
	}
}

// live returns the first entry whose batch is still open (dropping those
// of batches closed meanwhile), or false if none is left.
func (q *lingerQueue) live() (lingerEntry, bool) {
	for q.head < len(q.items) {
		e := q.items[q.head]
		if e.p.open != nil && e.p.open.id == e.id {
			return e, true
		}
		q.pop()
	}
	return lingerEntry{}, false
}

// pop drops the head entry.
func (q *lingerQueue) pop() {
	q.items[q.head] = lingerEntry{}
	q.head++
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
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
