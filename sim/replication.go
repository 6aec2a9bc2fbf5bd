package sim

import (
	"slices"
	"time"
)

// replicationLoop copies, for every partition broker b follows, the batches
// its leader appended at least the follower lag ago, then maintains the ISR
// and high watermark. It runs until the cluster closes.
func (c *Cluster) replicationLoop(b *broker) {
	defer c.loops.Done()
	for {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return
		}
		next := c.replicateLocked(b, time.Now())
		ch := c.changed
		c.mu.Unlock()
		var timer <-chan time.Time
		if !next.IsZero() {
			t := time.NewTimer(time.Until(next))
			timer = t.C
			select {
			case <-ch:
			case <-timer:
			case <-c.closeCh:
			}
			t.Stop()
			continue
		}
		select {
		case <-ch:
		case <-c.closeCh:
		}
	}
}

// lagLocked is broker b's follower lag.
func (c *Cluster) lagLocked(b *broker) time.Duration {
	if b.lagSet {
		return b.lag
	}
	return c.cfg.followerLag
}

// replicateLocked does one round of copying for follower b and returns when
// the next batch becomes due (zero if nothing is pending).
func (c *Cluster) replicateLocked(b *broker, now time.Time) time.Time {
	if !b.up || c.cfg.sink || c.frozenLocked(b.id) {
		return time.Time{}
	}
	lag := c.lagLocked(b)
	var next time.Time
	changed := false
	for _, name := range c.names {
		for _, pt := range c.topics[name].parts {
			r := pt.logs[b.id]
			if r == nil || pt.leader < 0 || pt.leader == b.id || pt.paused[b.id] || !c.isUp(pt.leader) || c.frozenLocked(pt.leader) {
				continue
			}
			lead := pt.logs[pt.leader]
			if i := r.commonPrefix(lead); i < len(r.entries) {
				r.truncate(i)
				changed = true
			}
			for i := len(r.entries); i < len(lead.entries); i++ {
				e := lead.entries[i]
				if due := e.appendedAt.Add(lag); due.After(now) {
					if next.IsZero() || due.Before(next) {
						next = due
					}
					break
				}
				r.append(e)
				changed = true
			}
			// A fetch: the leader learns the follower's log end; the
			// follower learns the high watermark as it was before this
			// fetch could move it (it sees the advance on its next one).
			if hw := min(pt.hw, r.leo); hw != r.hw {
				r.hw = hw
				changed = true
			}
			if pt.fetched[b.id] != r.leo {
				changed = true
			}
			pt.fetched[b.id] = r.leo
			if !slices.Contains(pt.isr, b.id) && r.leo >= pt.hw {
				pt.joinISR(b.id)
				changed = true
			}
			if c.updateHWLocked(pt) {
				// This fetch moved the high watermark: the follower
				// learns it on its next fetch, right away.
				changed = true
				next = now
			}
		}
	}
	if changed {
		c.broadcastLocked()
	}
	return next
}
