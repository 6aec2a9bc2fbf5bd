package sim

import (
	"context"
	"fmt"
	"slices"
)

// FreezeBroker freezes a broker as SIGSTOP freezes its process: it stays
// up, its connections stay open, and nothing it does moves. Requests reach
// it and wait unread (new connections too); a request it was handling
// gets no answer; it neither copies from its leaders nor serves its
// followers, so a partition it leads commits nothing more. Nothing tells
// the controller at once: the partitions keep it as their leader and in
// their ISRs until FenceBroker (Kafka's controller fences a broker that
// missed its heartbeats for broker.session.timeout.ms, 9 s by default).
// ThawBroker resumes it.
func (c *Cluster) FreezeBroker(id int32) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	b, err := c.brokerLocked(id)
	if err != nil {
		return err
	}
	if !b.up {
		return fmt.Errorf("%w: broker %d", ErrBrokerDown, id)
	}
	if b.thaw != nil {
		return fmt.Errorf("%w: broker %d is frozen already", ErrBadConfig, id)
	}
	b.thaw = make(chan struct{})
	c.log.Info("broker frozen", "broker", id)
	c.broadcastLocked()
	return nil
}

// FenceBroker is the controller fencing a broker it no longer hears from
// (a frozen one): the broker leaves every ISR, and each partition it led
// elects the first running, unfrozen in-sync replica (or goes offline,
// leader -1, if there is none). The broker itself does not know until it
// runs again.
func (c *Cluster) FenceBroker(id int32) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	if _, err := c.brokerLocked(id); err != nil {
		return err
	}
	c.txn.resignLocked(id)
	for _, name := range c.names {
		for _, pt := range c.topics[name].parts {
			if pt.logs[id] == nil {
				continue
			}
			pt.leaveISR(id)
			if pt.leader != id {
				c.updateHWLocked(pt)
				continue
			}
			next := int32(-1)
			for _, cand := range pt.replicas {
				b := c.brokers[cand]
				if cand != id && b.up && b.thaw == nil && slices.Contains(pt.isr, cand) {
					next = cand
					break
				}
			}
			if next >= 0 {
				c.electLocked(pt, next)
			} else {
				pt.leader = -1
				pt.epoch++
				pt.lastLeader = id
			}
		}
	}
	c.log.Info("broker fenced", "broker", id)
	c.broadcastLocked()
	return nil
}

// ThawBroker resumes a frozen broker (SIGCONT): it handles the requests
// that waited, in order per connection, answers what it was handling, and
// catches up from its leaders, rejoining their ISRs once level with them.
func (c *Cluster) ThawBroker(id int32) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, err := c.brokerLocked(id)
	if err != nil {
		return err
	}
	if b.thaw == nil {
		return fmt.Errorf("%w: broker %d is not frozen", ErrBadConfig, id)
	}
	close(b.thaw)
	b.thaw = nil
	c.log.Info("broker thawed", "broker", id)
	c.broadcastLocked()
	return nil
}

// BrokerFrozen reports whether the broker is frozen (FreezeBroker).
func (c *Cluster) BrokerFrozen(id int32) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, err := c.brokerLocked(id)
	return err == nil && b.thaw != nil
}

// frozenLocked reports whether broker id is frozen.
func (c *Cluster) frozenLocked(id int32) bool { return c.brokers[id].thaw != nil }

// awaitThaw waits while b is frozen; false if ctx ended first.
func (b *broker) awaitThaw(ctx context.Context) bool {
	b.c.mu.Lock()
	ch := b.thaw
	b.c.mu.Unlock()
	if ch == nil {
		return true
	}
	select {
	case <-ch:
		return true
	case <-ctx.Done():
		return false
	}
}
