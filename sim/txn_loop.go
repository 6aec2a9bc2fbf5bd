package sim

import (
	"time"
)

// beginMarkersLocked starts writing the markers of a transaction that
// moved to PrepareCommit or PrepareAbort, as Kafka's coordinator does once
// that state is in its log: it answers the client, then writes a marker
// to each partition of the transaction (acks=all) and, once all are
// replicated, completes the transaction. What cannot be written now (a
// leader down, too few in sync) the txnLoop retries.
func (c *Cluster) beginMarkersLocked(m *txnMeta, now time.Time) {
	c.txn.preparing[m.id] = m
	c.progressMarkersLocked(m, now)
}

// progressMarkersLocked writes the markers m still lacks and completes m
// once every partition's marker is below its high watermark. It reports
// whether m completed.
func (c *Cluster) progressMarkersLocked(m *txnMeta, now time.Time) bool {
	_, coordEpoch, live := c.liveCoordinatorLocked(&c.txn.txnLog, m.id)
	if !live {
		return false // no coordinator to send them
	}
	typ := markerAbort
	if m.state == TxnPrepareCommit {
		typ = markerCommit
	}
	for p := range m.parts {
		if !m.done[p] && c.writeMarkerLocked(m, p, typ, coordEpoch, now) {
			m.done[p] = true
		}
	}
	if len(m.done) < len(m.parts) {
		return false
	}
	state := m.state
	if state == TxnPrepareCommit {
		// The offsets of each group whose partition got the marker.
		for group, offs := range m.offsets {
			if !m.parts[c.txn.groupPartition(group)] {
				continue
			}
			if c.txn.committed[group] == nil {
				c.txn.committed[group] = map[tp]int64{}
			}
			for p, off := range offs {
				c.txn.committed[group][p] = off
			}
		}
	}
	m.complete(now)
	delete(c.txn.preparing, m.id)
	c.log.Info("transaction complete", "transactional.id", m.id, "was", state, "now", m.state)
	return true
}

// writeMarkerLocked makes sure partition p holds m's marker: written to
// its leader's log (again if an election truncated it) unless the leader
// is down or, as for any acks=all write, too few replicas are in sync.
// It reports whether the marker is replicated (below the high watermark).
// A __consumer_offsets partition (AddOffsetsToTxn) has no log here: its
// marker is the offsets committed or dropped at completion. A partition
// whose topic was deleted is done, as Kafka's coordinator drops it.
func (c *Cluster) writeMarkerLocked(m *txnMeta, p tp, typ markerType, coordEpoch int32, now time.Time) bool {
	if p.topic == offsetsTopic || c.cfg.sink {
		return true
	}
	pt, err := c.partitionLocked(p.topic, p.partition)
	if err != nil || pt.deleted {
		return true
	}
	if pt.leader < 0 || !c.isUp(pt.leader) || c.frozenLocked(pt.leader) {
		return false
	}
	lead := pt.logs[pt.leader]
	if e := m.markers[p]; e != nil {
		if i := lead.find(e.base); i < len(lead.entries) && lead.entries[i] == e {
			return pt.hw >= e.end()
		}
	}
	if pe := lead.pstate[m.pid]; pe != nil && pe.epoch > m.epoch {
		// A newer epoch of the producer wrote here: the marker is
		// refused (INVALID_PRODUCER_EPOCH) and Kafka's coordinator gives
		// it up.
		return true
	}
	if len(pt.isr) < pt.minISR {
		return false // NOT_ENOUGH_REPLICAS: retried
	}
	h, raw := markerBatch(m.pid, m.epoch, typ, coordEpoch, now)
	e := newEntry(raw, h, lead.leo, pt.epoch, now)
	lead.append(e)
	m.markers[p] = e
	c.updateHWLocked(pt)
	c.broadcastLocked()
	return pt.hw >= e.end()
}

// txnLoop writes the markers waiting on a partition (its leader down, too
// few in sync, not yet replicated) whenever the cluster changes, and every
// TransactionAbortCheck aborts the transactions left ongoing past their
// timeout, as Kafka's coordinator does
// (transaction.abort.timed.out.transaction.cleanup.interval.ms). It runs
// until the cluster closes.
func (c *Cluster) txnLoop() {
	defer c.loops.Done()
	for {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return
		}
		now := time.Now()
		if !now.Before(c.txn.nextAbort) {
			c.abortTimedOutLocked(now)
			c.txn.nextAbort = now.Add(c.cfg.txnAbortCheck)
		}
		for _, m := range c.txn.preparing {
			c.progressMarkersLocked(m, now)
		}
		next := c.txn.nextAbort
		ch := c.changed
		c.mu.Unlock()
		t := time.NewTimer(time.Until(next))
		select {
		case <-ch:
		case <-t.C:
		case <-c.closeCh:
		}
		t.Stop()
	}
}

// abortTimedOutLocked fences and aborts every transaction ongoing past its
// timeout whose coordinator runs: the epoch goes up, so that the
// producer's next request at its old epoch is refused (PRODUCER_FENCED,
// or INVALID_PRODUCER_EPOCH on Produce and on older versions), and the
// abort markers carry the new epoch.
func (c *Cluster) abortTimedOutLocked(now time.Time) {
	for id, m := range c.txn.txns {
		if !m.timedOut(now) {
			continue
		}
		if _, _, live := c.liveCoordinatorLocked(&c.txn.txnLog, id); !live {
			continue
		}
		m.fence(c.cfg.txnV2(), now)
		c.log.Info("transaction timed out", "transactional.id", id, "producer", m.pid, "epoch", m.epoch)
		c.beginMarkersLocked(m, now)
	}
}
