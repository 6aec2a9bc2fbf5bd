package scenario

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/rollsafe/rollsafe/sim"
)

// Step kinds for the faults that make the simulator as unkind as a real
// cluster. They are numbered apart from the core kinds. Random
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
	// KillReplicas kills the process (kill -9, sim.KillProcess) of every
	// running replica of Topic/Partition, its followers first and its
	// leader Duration later (the leader alone in the ISR meanwhile, taking
	// acks=all writes no other replica has), as an OOM killer, a forced pod
	// deletion or a rolling restart gone wrong does: the partition is left
	// without a replica, and every log is kept whole (the page cache
	// survives). StartBroker (Any) brings them back last killed first: the
	// old leader returns first and leads again as the last known leader,
	// with whatever it held above the high watermark; the others catch up
	// from it.
	KillReplicas
	// CutLeaderPower cuts the power of the broker leading Topic/Partition
	// (sim.CutPower): every batch no other replica holds is lost, records
	// it acknowledged alone in the ISR too.
	CutLeaderPower
	// ResetAfterResponse strikes Topic/Partition's next N produce
	// requests as their leader reads them: each is held Hold, answered,
	// and its connection then reset, the client seeing the reset Duration
	// after the answer; requests pipelined behind it are lost unprocessed
	// (sim.ResetAfterResponse). ExpiryCheck: the leader's producer expiry
	// check runs as it answers, forgetting producers whose records are
	// stamped long ago.
	ResetAfterResponse
)

func init() {
	kindNames[ProcessAfterDisconnect] = "process-after-disconnect"
	kindNames[DelayProcessing] = "delay-processing"
	kindNames[Compact] = "compact"
	kindNames[StartBrokerElsewhere] = "start-broker-elsewhere"
	kindNames[VanishLeader] = "vanish-leader"
	kindNames[KillReplicas] = "kill-replicas"
	kindNames[CutLeaderPower] = "cut-leader-power"
	kindNames[ResetAfterResponse] = "reset-after-response"
}

// isRealism reports whether k is one of the kinds above.
func isRealism(k Kind) bool { return k >= ProcessAfterDisconnect && k <= ResetAfterResponse }

// whatRealism describes a step of one of the kinds above.
func whatRealism(s Step) string {
	k := s.Kind.String()
	switch s.Kind {
	case ProcessAfterDisconnect:
		return fmt.Sprintf("%s %s x%d, processed %v later", k, s.tp(), s.N, s.Duration)
	case DelayProcessing:
		return fmt.Sprintf("%s %s x%d by %v", k, s.tp(), s.N, s.Duration)
	case Compact, VanishLeader, CutLeaderPower:
		return fmt.Sprintf("%s %s", k, s.tp())
	case KillReplicas:
		return fmt.Sprintf("%s %s, the leader %v after its followers", k, s.tp(), s.Duration)
	case ResetAfterResponse:
		expiry := ""
		if s.ExpiryCheck {
			expiry = ", the leader's expiry check run as it answers"
		}
		held := ""
		if s.Hold > 0 {
			held = fmt.Sprintf(" held %v,", s.Hold)
		}
		return fmt.Sprintf("%s %s x%d,%s the reset %v after the answer%s", k, s.tp(), s.N, held, s.Duration, expiry)
	}
	return fmt.Sprintf("%s %s", k, s.broker())
}

// applyRealism plays a step of one of the kinds above; ok is false for
// any other kind. The player's apply hands these kinds here.
func (p *Player) applyRealism(ctx context.Context, st Step) (a Applied, ok bool) {
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
	case ResetAfterResponse:
		if err := c.ResetAfterResponse(st.Topic, st.Partition, st.N, sim.Reset{Hold: st.Hold, After: st.Duration, ExpiryCheck: st.ExpiryCheck}); err != nil {
			return fail(err)
		}
	case Compact:
		removed, err := c.Compact(st.Topic, st.Partition)
		if err != nil {
			return fail(err)
		}
		a.Did = fmt.Sprintf("compacted %s, records removed at %v", st.tp(), removed)
	case VanishLeader, CutLeaderPower:
		id, _ := c.Leader(st.Topic, st.Partition)
		if id < 0 {
			return fail(fmt.Errorf("%w: %s has no leader", ErrNoTarget, st.tp()))
		}
		stop, did := c.VanishBroker, "vanished"
		if st.Kind == CutLeaderPower {
			stop, did = c.CutPower, "lost power"
		}
		if err := stop(id); err != nil {
			return fail(err)
		}
		a.Did = fmt.Sprintf("broker %d (leader of %s) %s", id, st.tp(), did)
		p.mu.Lock()
		p.stopped = append(p.stopped, id)
		p.mu.Unlock()
	case KillReplicas:
		killed, err := p.killReplicas(ctx, st)
		if err != nil {
			return fail(err)
		}
		a.Did = fmt.Sprintf("killed (kill -9) every replica of %s: brokers %v, leader last", st.tp(), killed)
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

// killReplicas kills every running replica of st's partition, followers
// first, the leader st.Duration later, and returns them in that order (the
// order the player's stopped list now ends with).
func (p *Player) killReplicas(ctx context.Context, st Step) ([]int32, error) {
	c := p.c
	reps, err := c.Replicas(st.Topic, st.Partition)
	if err != nil {
		return nil, err
	}
	leader, _ := c.Leader(st.Topic, st.Partition)
	order := slices.DeleteFunc(slices.Clone(reps), func(id int32) bool { return id == leader })
	if leader >= 0 {
		order = append(order, leader)
	}
	var killed []int32
	for _, id := range order {
		if id == leader && len(killed) > 0 && st.Duration > 0 {
			select {
			case <-time.After(st.Duration):
			case <-ctx.Done():
				return killed, ctx.Err()
			}
		}
		switch err := c.KillProcess(id); {
		case errors.Is(err, sim.ErrBrokerDown):
			continue // stopped already: nothing to kill
		case err != nil:
			return killed, err
		}
		killed = append(killed, id)
		p.mu.Lock()
		p.stopped = append(p.stopped, id)
		p.mu.Unlock()
	}
	if len(killed) == 0 {
		return nil, fmt.Errorf("%w: no replica of %s running", ErrNoTarget, st.tp())
	}
	return killed, nil
}
