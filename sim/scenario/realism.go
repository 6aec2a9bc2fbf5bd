package scenario

import (
	"context"
	"fmt"
	"slices"
)

// Step kinds for the faults that make the simulator as unkind as a real
// cluster (issue 12). They are numbered apart from the core kinds. Random
// draws them only when ChaosConfig opts in.
const (
	// ProcessAfterDisconnect drops the connection of Topic/Partition's
	// next N produce requests as soon as the leader has read them, and
	// processes them Duration later anyway (the response is lost).
	ProcessAfterDisconnect Kind = 100 + iota
	// DelayProcessing holds Topic/Partition's next N produce requests
	// Duration before the leader processes them; a client that gave up
	// meanwhile does not stop the append.
	DelayProcessing
	// Compact runs the log cleaner on Topic/Partition (the topic must be
	// created with sim.CompactTopic).
	Compact
	// StartBrokerElsewhere restarts Broker (Any: the broker this player
	// stopped last) on a new address: same node id, new port, the old
	// address refusing connections (or, after VanishLeader, silent).
	StartBrokerElsewhere
	// VanishLeader makes the broker leading Topic/Partition vanish from
	// the network (sim.VanishBroker): a crash whose connections stay open
	// and are never answered.
	VanishLeader
)

func init() {
	kindNames[ProcessAfterDisconnect] = "process-after-disconnect"
	kindNames[DelayProcessing] = "delay-processing"
	kindNames[Compact] = "compact"
	kindNames[StartBrokerElsewhere] = "start-broker-elsewhere"
	kindNames[VanishLeader] = "vanish-leader"
}

// isRealism reports whether k is one of the kinds above.
func isRealism(k Kind) bool { return k >= ProcessAfterDisconnect && k <= VanishLeader }

// whatRealism describes a step of one of the kinds above.
func whatRealism(s Step) string {
	k := s.Kind.String()
	switch s.Kind {
	case ProcessAfterDisconnect:
		return fmt.Sprintf("%s %s x%d, processed %v later", k, s.tp(), s.N, s.Duration)
	case DelayProcessing:
		return fmt.Sprintf("%s %s x%d by %v", k, s.tp(), s.N, s.Duration)
	case Compact, VanishLeader:
		return fmt.Sprintf("%s %s", k, s.tp())
	}
	return fmt.Sprintf("%s %s", k, s.broker())
}

// applyRealism plays a step of one of the kinds above; ok is false for
// any other kind. The player's apply hands these kinds here.
func (p *Player) applyRealism(_ context.Context, st Step) (a Applied, ok bool) {
	if !isRealism(st.Kind) {
		return a, false
	}
	c := p.c
	a.Did = whatRealism(st)
	fail := func(err error) (Applied, bool) { a.Skipped = err; return a, true }
	switch st.Kind {
	case ProcessAfterDisconnect:
		if err := c.ProcessAfterDisconnect(st.Topic, st.Partition, st.N, st.Duration); err != nil {
			return fail(err)
		}
	case DelayProcessing:
		if err := c.DelayProcessing(st.Topic, st.Partition, st.N, st.Duration); err != nil {
			return fail(err)
		}
	case Compact:
		removed, err := c.Compact(st.Topic, st.Partition)
		if err != nil {
			return fail(err)
		}
		a.Did = fmt.Sprintf("compacted %s, records removed at %v", st.tp(), removed)
	case VanishLeader:
		id, _ := c.Leader(st.Topic, st.Partition)
		if id < 0 {
			return fail(fmt.Errorf("%w: %s has no leader", ErrNoTarget, st.tp()))
		}
		if err := c.VanishBroker(id); err != nil {
			return fail(err)
		}
		a.Did = fmt.Sprintf("broker %d (leader of %s) vanished", id, st.tp())
		p.mu.Lock()
		p.stopped = append(p.stopped, id)
		p.mu.Unlock()
	case StartBrokerElsewhere:
		id := st.Broker
		p.mu.Lock()
		if id == Any {
			if len(p.stopped) == 0 {
				p.mu.Unlock()
				return fail(fmt.Errorf("%w: no broker stopped", ErrNoTarget))
			}
			id = p.stopped[len(p.stopped)-1]
		}
		p.mu.Unlock()
		addr, err := c.StartBrokerAt(id, "127.0.0.1:0")
		if err != nil {
			return fail(err)
		}
		a.Did = fmt.Sprintf("started broker %d at a new address %s", id, addr)
		p.mu.Lock()
		p.stopped = slices.DeleteFunc(p.stopped, func(x int32) bool { return x == id })
		p.started = id
		p.mu.Unlock()
	}
	return a, true
}
