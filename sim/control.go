package sim

import (
	"fmt"
	"slices"
	"time"
)

// MoveLeader hands the partition's leadership to replica to, which must be
// running and in sync (a clean, preferred-replica style election). The
// leader epoch goes up; requests waiting at the old leader get
// NOT_LEADER_OR_FOLLOWER; replicas holding batches the new leader lacks
// (never acknowledged with acks=-1) truncate them.
func (c *Cluster) MoveLeader(topic string, p int32, to int32) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	pt, err := c.partitionLocked(topic, p)
	if err != nil {
		return err
	}
	if err := c.checkCandidateLocked(pt, to); err != nil {
		return err
	}
	if !slices.Contains(pt.isr, to) {
		return fmt.Errorf("%w: broker %d, %s/%d (ISR %v)", ErrNotInSync, to, topic, p, pt.isr)
	}
	c.electLocked(pt, to)
	c.broadcastLocked()
	return nil
}

// AddPartitions grows topic to total partitions, as Kafka's CreatePartitions
// does: the new ones are empty, with as many replicas as partition 0, placed
// round robin, and appear in the next metadata answers. A topic cannot
// shrink (ErrBadConfig).
func (c *Cluster) AddPartitions(topic string, total int32) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	t := c.topics[topic]
	if t == nil {
		return fmt.Errorf("%w: topic %q", ErrUnknownTopic, topic)
	}
	if total <= int32(len(t.parts)) || total > 10000 {
		return fmt.Errorf("%w: topic %q has %d partitions, cannot have %d", ErrBadConfig, topic, len(t.parts), total)
	}
	rf := len(t.parts[0].replicas)
	for p := int32(len(t.parts)); p < total; p++ {
		t.parts = append(t.parts, c.newPartition(topic, p, rf, 0))
	}
	c.broadcastLocked()
	return nil
}

// UncleanElect makes replica to the leader even if it is not in sync. The
// other replicas truncate to the new leader's log; lost lists, merged and
// half-open [From, To), the offsets some replica held that the new log no
// longer has (acknowledged or not: compare with the Recorder). Those
// offsets are reused by the next batches.
func (c *Cluster) UncleanElect(topic string, p int32, to int32) (lost []OffsetRange, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, ErrClosed
	}
	pt, err := c.partitionLocked(topic, p)
	if err != nil {
		return nil, err
	}
	if err := c.checkCandidateLocked(pt, to); err != nil {
		return nil, err
	}
	delete(pt.paused, to)
	lost = c.electLocked(pt, to)
	pt.elr = nil // an unclean election empties the ELR (and the last leader), as in Kafka
	c.broadcastLocked()
	c.log.Warn("unclean leader election", "topic", topic, "partition", p, "leader", to, "lost", lost)
	return lost, nil
}

func (c *Cluster) checkCandidateLocked(pt *partition, to int32) error {
	b, err := c.brokerLocked(to)
	if err != nil {
		return err
	}
	if pt.logs[to] == nil {
		return fmt.Errorf("%w: broker %d, %s/%d", ErrNotReplica, to, pt.topic, pt.index)
	}
	if !b.up {
		return fmt.Errorf("%w: broker %d", ErrBrokerDown, to)
	}
	return nil
}

// StopBroker stops a broker: its listener and connections close, it leaves
// every ISR, and partitions it led elect the first running in-sync replica
// (or go offline, leader -1, if there is none). It keeps its log, as after
// a controlled shutdown. It returns once the broker's goroutines have
// ended.
func (c *Cluster) StopBroker(id int32) error { return c.stopBroker(id, stopClean) }

// KillBroker stops a broker as its host crashing does (a power cut, a
// kernel panic): as StopBroker, except that it loses every batch above the
// high watermark (the tail not yet replicated to the whole ISR, gone with
// the host's page cache, which Kafka does not flush at every write), and
// that the controller knows it crashed: back, it is no longer an eligible
// leader replica.
func (c *Cluster) KillBroker(id int32) error { return c.stopBroker(id, stopCrash) }

// KillProcess stops a broker as kill -9 of its process does: no controlled
// shutdown, so the controller knows it crashed (back, it is no longer an
// eligible leader replica), but its host's page cache survives, and with it
// the whole log, the tail above the high watermark included — the records a
// leader took with acks=1 and never replicated are still there when it
// comes back, and kept should it lead again.
func (c *Cluster) KillProcess(id int32) error { return c.stopBroker(id, stopKill) }

// KillProcessUnnoticed is KillProcess while the controller has lost its
// quorum (a KRaft cluster of combined nodes with another voter frozen or
// down): nobody can fence the broker, so the metadata does not change —
// it stays the leader of its partitions and in their ISRs. Its
// followers stop copying from it; a leader it follows holds its high
// watermark for it (acks=all batches appended there wait, and time out);
// clients find its address refusing connections. FenceBroker is the
// controller acting once its quorum is back.
func (c *Cluster) KillProcessUnnoticed(id int32) error { return c.stopBroker(id, stopUnnoticed) }

// CutPower stops a broker as a power cut to its host does when the page
// cache held everything written since its partitions' other replicas last
// copied it (Kafka acknowledges on replication, not on fsync, and flushes
// only when a segment rolls): as KillBroker, except that each of its
// replicas loses every batch no other replica of the partition holds —
// above the high watermark or not. A leader the ISR had shrunk to alone
// (min.insync.replicas 1) so loses records it acknowledged with acks=all,
// and, elected again as the last leader, leads without them. A partition
// it alone replicates loses what is above its high watermark.
func (c *Cluster) CutPower(id int32) error { return c.stopBroker(id, stopPowerCut) }

// stopMode is how a broker stops.
type stopMode int

const (
	stopClean     stopMode = iota // controlled shutdown: the log is kept
	stopCrash                     // a host crash: the unreplicated tail is lost
	stopVanish                    // a host crash whose connections stay open and silent
	stopKill                      // a process killed: the log is kept
	stopPowerCut                  // a power cut: what no other replica holds is lost
	stopUnnoticed                 // a process killed while the controller has no quorum
)

func (c *Cluster) stopBroker(id int32, mode stopMode) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrClosed
	}
	b, err := c.brokerLocked(id)
	if err != nil {
		c.mu.Unlock()
		return err
	}
	if !b.up {
		c.mu.Unlock()
		return fmt.Errorf("%w: broker %d", ErrBrokerDown, id)
	}
	if mode == stopVanish {
		b.vanishLocked()
	} else {
		b.stopLocked()
	}
	b.crashed = mode != stopClean
	if mode == stopUnnoticed {
		// Nothing in the metadata changes until FenceBroker.
		c.log.Info("broker killed unnoticed", "broker", id)
		c.broadcastLocked()
		c.mu.Unlock()
		b.wg.Wait()
		return nil
	}
	c.txn.resignLocked(id)
	for _, name := range c.names {
		for _, pt := range c.topics[name].parts {
			r := pt.logs[id]
			if r == nil {
				continue
			}
			switch mode {
			case stopCrash, stopVanish:
				r.truncateTo(pt.hw)
			case stopPowerCut:
				if len(pt.logs) == 1 {
					r.truncateTo(pt.hw)
				} else {
					r.truncate(replicatedPrefix(pt, id))
				}
			}
			pt.leaveISR(id)
			if pt.leader != id {
				c.updateHWLocked(pt)
				continue
			}
			next := int32(-1)
			for _, cand := range pt.replicas {
				if cand != id && c.brokers[cand].up && slices.Contains(pt.isr, cand) {
					next = cand
					break
				}
			}
			if next >= 0 {
				c.electLocked(pt, next)
			} else {
				// The last in-sync replica left: the partition is
				// offline until an eligible replica (or, with none
				// left, this last leader) returns.
				pt.leader = -1
				pt.epoch++
				pt.lastLeader = id
			}
		}
	}
	c.broadcastLocked()
	c.mu.Unlock()
	b.wg.Wait()
	return nil
}

// StartBroker restarts a stopped broker on its old address. Its replicas
// rebuild producer state from their own logs keeping only each producer's
// last batch, as loading a Kafka snapshot does (nothing with
// LoseStateOnRestart), and drop the producers whose last batch is stamped
// ProducerIDExpiration or longer ago, then catch up from their leaders and rejoin the ISR.
// Offline partitions elect it as Kafka 4.4's controller does: when it is
// an eligible leader replica (and did not crash), or when none is eligible
// and it was the last leader.
func (c *Cluster) StartBroker(id int32) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	b, err := c.brokerLocked(id)
	if err != nil {
		return err
	}
	if b.up {
		return fmt.Errorf("%w: broker %d", ErrBrokerUp, id)
	}
	if err := b.start(); err != nil {
		return err
	}
	if b.silent {
		// Back at the address it vanished from.
		b.resetHeldLocked(b.addr)
		b.silent = false
	}
	crashed := b.crashed
	b.crashed = false
	for _, name := range c.names {
		for _, pt := range c.topics[name].parts {
			r := pt.logs[id]
			if r == nil {
				continue
			}
			if c.cfg.loseStateOnRestart {
				r.pstate = producerTable{}
			} else {
				r.rebuild(true)
				r.pstate.dropStamped(c.cfg.pidExpiration, time.Now())
			}
			if crashed {
				// Kafka's controller cannot know what a crashed
				// replica's log lost: it is no longer eligible.
				pt.elr = deleteID(pt.elr, id)
			}
			if pt.leader >= 0 {
				continue
			}
			switch {
			case slices.Contains(pt.isr, id):
				c.electLocked(pt, id)
			case len(pt.isr) == 0 && slices.Contains(pt.elr, id):
				c.electLocked(pt, id) // from the ELR
			case len(pt.isr) == 0 && len(pt.elr) == 0 && pt.lastLeader == id:
				// Nobody eligible: Kafka elects the last known leader
				// (even back from a crash), not another replica.
				c.electLocked(pt, id)
			}
		}
	}
	c.broadcastLocked()
	return nil
}

// BrokerUp reports whether the broker is running.
func (c *Cluster) BrokerUp(id int32) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, err := c.brokerLocked(id)
	return err == nil && b.up
}

// replicatedPrefix is how many of id's log entries another replica of pt
// holds the same.
func replicatedPrefix(pt *partition, id int32) int {
	r := pt.logs[id]
	keep := 0
	for other, l := range pt.logs {
		if other != id {
			keep = max(keep, r.commonPrefix(l))
		}
	}
	return keep
}
