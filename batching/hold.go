package batching

import "time"

// SendHold bounds how long past its linger a batch stays open under
// Config.HoldUntilSent. Records wait at most Linger plus SendHold before
// their batch closes (and their delivery timeout starts).
const SendHold = time.Second

// Sent tells the accumulator that b was handed to the network for the
// first time. Under Config.HoldUntilSent the open batch of b's partition,
// held past its linger because b waited to be sent, closes once no earlier
// batch of the partition waits. Release implies it; calling it again, or
// for a batch made by Split, does nothing.
func (a *Accumulator) Sent(b *Batch) {
	if b == nil || b.acc != a {
		return
	}
	a.mu.Lock()
	a.sentLocked(b)
	a.mu.Unlock()
}

func (a *Accumulator) sentLocked(b *Batch) {
	if !b.waitSend || b.part == nil {
		return
	}
	b.waitSend = false
	p := b.part
	p.waiting--
	if p.waiting == 0 && p.open != nil && p.open.holding {
		a.closeLocked(p)
	}
}

// expireHeldLocked closes the held batches whose hold ended by now and
// returns the next hold deadline (zero if none). Entries of batches closed
// meanwhile (sent, full, flushed) are dropped.
func (a *Accumulator) expireHeldLocked(now time.Time) time.Time {
	q := &a.holds
	for {
		e, ok := q.live()
		if !ok {
			return time.Time{}
		}
		if e.deadline.After(now) {
			return e.deadline
		}
		q.pop()
		a.closeLocked(e.p)
	}
}
