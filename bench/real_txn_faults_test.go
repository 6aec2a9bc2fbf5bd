//go:build linux

package bench

import (
	"context"
	"sync"
	"time"
)

// The transactions scenarios' faults, and the cluster look-ups they use.

// coordinator returns the broker coordinating transactional id id
// (FindCoordinator), -1 if no broker says within 30 s.
func (g *txnGroup) coordinator(id string) int32 {
	ctx, cancel := context.WithTimeout(g.ctx, 30*time.Second)
	defer cancel()
	node, err := g.c.TransactionCoordinator(ctx, id)
	if err != nil {
		return -1
	}
	return node
}

// coordinatorOfMost returns the broker coordinating most of the peers'
// transactional ids (all of them: they share a __transaction_state
// partition).
func (g *txnGroup) coordinatorOfMost() int32 {
	votes := map[int32]int{}
	best := int32(-1)
	for _, id := range g.ids {
		c := g.coordinator(id)
		votes[c]++
		if c >= 0 && (best < 0 || votes[c] > votes[best]) {
			best = c
		}
	}
	if best < 0 {
		g.t.Fatalf("no broker names a transaction coordinator of %v", g.ids)
	}
	if votes[best] != len(g.ids) {
		g.note("the peers' coordinators differ: %v", votes)
	}
	return best
}

// waitCoordinatorMoved waits until no broker names from as the coordinator
// of the first id.
func (g *txnGroup) waitCoordinatorMoved(from int32) int32 {
	for {
		if c := g.coordinator(g.ids[0]); c >= 0 && c != from {
			return c
		}
		if g.ctx.Err() != nil {
			g.t.Fatalf("the coordinator did not move from broker %d", from)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// handBack waits for every topic's full ISR and hands every partition to
// its preferred leader.
func (g *txnGroup) handBack() {
	for _, topic := range g.topics {
		if err := g.c.WaitHealthy(g.ctx, topic); err != nil {
			g.t.Fatal(err)
		}
	}
	if err := g.c.ElectPreferredTopicsWait(g.ctx, g.topics...); err != nil {
		g.t.Fatal(err)
	}
}

// txnFaultCoordKill: the broker coordinating every peer's transactions is
// killed (SIGKILL) while they run (each peer is mid-transaction or
// mid-commit: they run back to back), leaving its partitions and its
// __transaction_state partition to the others; then it restarts and takes
// its topic partitions back.
func txnFaultCoordKill(g *txnGroup) {
	victim := g.coordinatorOfMost()
	if err := g.c.Kill(victim); err != nil {
		g.t.Fatal(err)
	}
	g.note("broker %d (the transaction coordinator) killed", victim)
	to := g.waitCoordinatorMoved(victim)
	g.note("broker %d coordinates now", to)
	g.awaitCommits(txnAfter, "after the kill", realWait)
	if err := g.c.Start(g.ctx, victim); err != nil {
		g.t.Fatal(err)
	}
	g.handBack()
	g.note("broker %d restarted and leads its partitions again", victim)
	g.awaitCommits(txnAfter, "after the restart", realWait)
}

// txnFaultLeaderRoll: a broker other than the coordinator, leading two of
// every topic's partitions, is stopped (controlled shutdown: its
// leadership moves first) while transactions run, restarted, and handed
// its partitions back.
func txnFaultLeaderRoll(g *txnGroup) {
	coord := g.coordinatorOfMost()
	victim := (coord + 1) % int32(g.c.Brokers())
	if err := g.c.Stop(g.ctx, victim); err != nil {
		g.t.Fatal(err)
	}
	g.note("broker %d (a partition leader, not the coordinator %d) stopped (controlled)", victim, coord)
	g.awaitCommits(txnAfter, "after the stop", realWait)
	if err := g.c.Start(g.ctx, victim); err != nil {
		g.t.Fatal(err)
	}
	g.handBack()
	g.note("broker %d restarted and leads its partitions again", victim)
	g.awaitCommits(txnAfter, "after the hand-back", realWait)
}

// txnFaultFence: a second instance with each peer's transactional id
// starts (rollsafe's InitTransactions, which fences the peer and aborts
// its open transaction), commits one transaction of its own (records
// "z…", partition 0) and closes. The peer is a zombie from then on: it
// must not report a commit that the log does not hold, nor keep the new
// instance from committing (judge: its record must be in the log).
func txnFaultFence(g *txnGroup) {
	var wg sync.WaitGroup
	for i, r := range g.runs {
		wg.Go(func() {
			err := fenceWith(g.ctx, g.c.Addrs(), r.topic, g.ids[i])
			if err != nil {
				r.note(g.began, "the fencing instance: %v", err)
			}
			r.mu.Lock()
			r.fenced, r.fencer = true, err
			r.mu.Unlock()
		})
	}
	wg.Wait()
	g.note("a new instance with each peer's transactional id committed a transaction")
	g.awaitTxns(3, realWait)
}

// txnFaultTimeout: with a 10 s transaction timeout, each peer holds its
// next transaction open for 15 s after producing, then commits it: the
// coordinator has aborted it meanwhile (and bumped the epoch).
func txnFaultTimeout(g *txnGroup) {
	for _, r := range g.runs {
		r.holdNext.Store(true)
	}
	g.note("each peer's next transaction held open %v (transaction timeout %v)", txnHold, txnShortTimout)
	// The transaction under way, the held one, then more.
	g.awaitTxns(2, txnHold+realWait)
	g.awaitCommits(txnAfter, "after the held transaction", txnHold+realWait)
}
