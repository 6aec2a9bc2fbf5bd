package scenario

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/rollsafe/rollsafe/sim"
)

// ErrNoTarget: a step whose target is chosen when it runs found none (no
// broker stopped to start, no follower to pause, ...). The step is skipped.
var ErrNoTarget = errors.New("scenario: no target for the step")

// ErrNotCaughtUp: AwaitInSync or Heal gave up waiting for the cluster.
var ErrNotCaughtUp = errors.New("scenario: cluster did not catch up in time")

// ErrUnknownKind: a step has a Kind this package does not know.
var ErrUnknownKind = errors.New("scenario: unknown step kind")

// Applied is what one step did.
type Applied struct {
	Index int
	Step  Step
	At    time.Duration // when it ran, from the start of Run
	Did   string        // e.g. "stopped broker 2 (leader of t/0), clean"
	// Skipped says why the step did nothing: the cluster's state did not
	// allow it (sim.ErrBrokerDown, sim.ErrNotInSync, ErrNoTarget, ...).
	Skipped error
	// Lost lists, for UncleanElect, the offsets some replica held that the
	// new leader's log does not have (acknowledged or not).
	Lost []sim.OffsetRange
}

func (a Applied) String() string {
	s := fmt.Sprintf("#%d at %v: %s", a.Index, a.At.Round(time.Millisecond), a.Did)
	if a.Skipped != nil {
		s += fmt.Sprintf(" (skipped: %v)", a.Skipped)
	}
	return s
}

type tpKey struct {
	topic string
	part  int32
}

// Player plays one schedule against one cluster. Its methods are safe for
// concurrent use (Current from a progress goroutine while Run plays).
type Player struct {
	c *sim.Cluster
	s Schedule

	mu          sync.Mutex
	current     string
	applied     []Applied
	stopped     []int32 // brokers this player stopped and has not started
	started     int32   // the broker started last, -1 if none
	paused      map[tpKey][]int32
	delayed     []int32
	lagged      map[int32]bool
	firstLeader map[tpKey]int32
}

// NewPlayer returns a player of s on c.
func NewPlayer(c *sim.Cluster, s Schedule) *Player {
	return &Player{c: c, s: s, started: -1, paused: map[tpKey][]int32{}, lagged: map[int32]bool{}, current: "no fault yet"}
}

// Schedule returns the schedule played.
func (p *Player) Schedule() Schedule { return p.s }

// Current describes the fault in progress for a progress line, e.g.
// "step 1/4: stopped broker 2 (leader of t/0), clean", or "none (step 2/4
// done)" once the faults set so far have ended.
func (p *Player) Current() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.current
}

// Applied returns what the steps run so far did.
func (p *Player) Applied() []Applied {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.applied)
}

// Lost returns every offset range unclean elections removed, by partition.
func (p *Player) Lost() map[string][]sim.OffsetRange {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string][]sim.OffsetRange{}
	for _, a := range p.applied {
		if len(a.Lost) > 0 {
			k := a.Step.tp()
			out[k] = append(out[k], a.Lost...)
		}
	}
	return out
}

// Run plays every step at its offset from now (a step is run late, never
// early, when an earlier one took long). A step the cluster's state does
// not allow is recorded as skipped; Run returns early only when ctx ends
// or the cluster refuses a step for another reason (closed, unknown topic).
func (p *Player) Run(ctx context.Context) error {
	var start time.Time
	return p.RunPaced(ctx, func(ctx context.Context, i int, st Step) error {
		if i == 0 {
			start = time.Now()
		}
		// A step never runs in the instant of the one before: under
		// virtual time (testing/synctest) the cluster settles what that
		// step set going first, so the play does not depend on which
		// goroutine the scheduler ran first.
		d := max(time.Until(start.Add(st.At)), time.Nanosecond)
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			return nil
		}
	})
}

// RunPaced is Run with the pace set by the caller: before step i, it calls
// wait, which returns when the step may run (an error stops the play).
// Being asked about step i means every earlier step has been applied. A
// demo paces a schedule by the records produced instead of by the clock.
func (p *Player) RunPaced(ctx context.Context, wait func(ctx context.Context, i int, st Step) error) error {
	p.mu.Lock()
	if p.firstLeader == nil {
		p.firstLeader = map[tpKey]int32{}
		for _, t := range p.c.Topics() {
			for part := range partitions(p.c, t) {
				leader, _ := p.c.Leader(t, part)
				p.firstLeader[tpKey{t, part}] = leader
			}
		}
	}
	p.mu.Unlock()
	start := time.Now()
	for i, st := range p.s.Steps {
		if err := wait(ctx, i, st); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		a := p.apply(ctx, st)
		a.Index, a.Step, a.At = i, st, time.Since(start)
		p.mu.Lock()
		p.applied = append(p.applied, a)
		if p.faultActiveLocked() {
			p.current = fmt.Sprintf("step %d/%d: %s", i+1, len(p.s.Steps), a.Did)
		} else {
			p.current = fmt.Sprintf("none (step %d/%d done)", i+1, len(p.s.Steps))
		}
		p.mu.Unlock()
		if a.Skipped != nil && !benign(a.Skipped) {
			return fmt.Errorf("scenario: step %d (%s): %w", i, st.What(), a.Skipped)
		}
	}
	return nil
}

// faultActiveLocked reports whether a lasting fault this player set is
// still in place: a broker stopped, a replica paused, responses delayed, a
// follower lagging. One-shot faults (injected errors, dropped responses,
// closed connections) and elections are over once applied.
func (p *Player) faultActiveLocked() bool {
	if len(p.stopped) > 0 || len(p.delayed) > 0 {
		return true
	}
	for _, ids := range p.paused {
		if len(ids) > 0 {
			return true
		}
	}
	for _, lag := range p.lagged {
		if lag {
			return true
		}
	}
	return false
}

// Played returns how many steps were applied and how many of them were
// skipped, with the first skip's reason.
func (p *Player) Played() (applied, skipped int, firstSkip error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, a := range p.applied {
		if a.Skipped != nil {
			if skipped == 0 {
				firstSkip = fmt.Errorf("step %d/%d (%s): %w", a.Index+1, len(p.s.Steps), a.Step.What(), a.Skipped)
			}
			skipped++
		}
	}
	return len(p.applied), skipped, firstSkip
}

// benign reports whether err only means the cluster's state did not allow
// a step.
func benign(err error) bool {
	for _, e := range []error{sim.ErrBrokerDown, sim.ErrBrokerUp, sim.ErrNotInSync, sim.ErrNotReplica, ErrNoTarget, ErrNotCaughtUp} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// partitions yields the partition indexes of topic.
func partitions(c *sim.Cluster, topic string) func(func(int32) bool) {
	return func(yield func(int32) bool) {
		for part := int32(0); ; part++ {
			if _, err := c.ISR(topic, part); err != nil {
				return
			}
			if !yield(part) {
				return
			}
		}
	}
}

func (p *Player) apply(ctx context.Context, st Step) Applied {
	if a, ok := p.applyRealism(ctx, st); ok {
		return a
	}
	c := p.c
	a := Applied{Did: st.What()}
	fail := func(err error) Applied { a.Skipped = err; return a }
	switch st.Kind {
	case StopLeader, StopBroker:
		id, what := st.Broker, ""
		if st.Kind == StopLeader {
			id, _ = c.Leader(st.Topic, st.Partition)
			what = " (leader of " + st.tp() + ")"
			if id < 0 {
				return fail(fmt.Errorf("%w: %s has no leader", ErrNoTarget, st.tp()))
			}
		}
		a.Did = fmt.Sprintf("stopped broker %d%s, %s", id, what, cleanWord(st.Clean))
		stop := c.KillBroker
		if st.Clean {
			stop = c.StopBroker
		}
		if err := stop(id); err != nil {
			return fail(err)
		}
		p.mu.Lock()
		p.stopped = append(p.stopped, id)
		p.mu.Unlock()
	case StartBroker:
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
		a.Did = fmt.Sprintf("started broker %d", id)
		if err := c.StartBroker(id); err != nil {
			return fail(err)
		}
		p.mu.Lock()
		p.stopped = slices.DeleteFunc(p.stopped, func(x int32) bool { return x == id })
		p.started = id
		p.mu.Unlock()
	case AwaitInSync:
		id := st.Broker
		if id == Any {
			p.mu.Lock()
			id = p.started
			p.mu.Unlock()
			if id < 0 {
				return fail(fmt.Errorf("%w: no broker started", ErrNoTarget))
			}
		}
		a.Did = fmt.Sprintf("broker %d caught up on %s", id, st.Topic)
		if err := p.awaitInSync(ctx, st.Topic, id, st.Duration); err != nil {
			return fail(err)
		}
	case RestoreLeaders:
		moved := p.restoreLeaders(st.Topic)
		a.Did = fmt.Sprintf("leadership of %s restored to first leaders: %v", st.Topic, moved)
		if len(moved) == 0 {
			return fail(fmt.Errorf("%w: no partition to move back", ErrNoTarget))
		}
	case MoveLeader:
		to := st.Broker
		if to == Any {
			var err error
			if to, err = nextInSync(c, st.Topic, st.Partition); err != nil {
				return fail(err)
			}
		}
		a.Did = fmt.Sprintf("moved leader of %s to broker %d", st.tp(), to)
		if err := c.MoveLeader(st.Topic, st.Partition, to); err != nil {
			return fail(err)
		}
	case PauseReplication:
		id := st.Broker
		if id == Any {
			var err error
			if id, err = nextInSync(c, st.Topic, st.Partition); err != nil {
				return fail(err)
			}
		}
		a.Did = fmt.Sprintf("paused replication of %s on broker %d", st.tp(), id)
		if err := c.PauseReplication(st.Topic, st.Partition, id); err != nil {
			return fail(err)
		}
		p.mu.Lock()
		k := tpKey{st.Topic, st.Partition}
		p.paused[k] = append(p.paused[k], id)
		p.mu.Unlock()
	case ResumeReplication:
		id, ok := p.pausedBroker(st)
		if !ok {
			return fail(fmt.Errorf("%w: nothing paused on %s", ErrNoTarget, st.tp()))
		}
		a.Did = fmt.Sprintf("resumed replication of %s on broker %d", st.tp(), id)
		if err := c.ResumeReplication(st.Topic, st.Partition, id); err != nil {
			return fail(err)
		}
		p.mu.Lock()
		k := tpKey{st.Topic, st.Partition}
		p.paused[k] = slices.DeleteFunc(p.paused[k], func(x int32) bool { return x == id })
		p.mu.Unlock()
	case UncleanElect:
		id, ok := p.pausedBroker(st)
		if !ok {
			leader, _ := c.Leader(st.Topic, st.Partition)
			id = Any
			for b := range int32(len(c.Addrs())) {
				if b != leader && c.BrokerUp(b) {
					id = b
					break
				}
			}
			if id == Any {
				return fail(fmt.Errorf("%w: no running follower of %s", ErrNoTarget, st.tp()))
			}
		}
		lost, err := c.UncleanElect(st.Topic, st.Partition, id)
		a.Did = fmt.Sprintf("unclean election of broker %d for %s, offsets removed %v", id, st.tp(), lost)
		if err != nil {
			return fail(err)
		}
		a.Lost = lost
	case DropResponses:
		a.Did = "dropping responses: " + st.What()
		drop := c.DropRequests
		if st.AfterAppend {
			drop = c.DropResponses
		}
		if err := drop(st.Topic, st.Partition, st.N); err != nil {
			return fail(err)
		}
	case CloseAfterAppend:
		a.Did = "closing connections: " + st.What()
		if err := c.CloseConnAfterAppend(st.Topic, st.Partition, st.N); err != nil {
			return fail(err)
		}
	case InjectError:
		a.Did = "injecting: " + st.What()
		inject := c.InjectError
		if st.AfterAppend {
			inject = c.InjectErrorAfterAppend
		}
		if err := inject(st.Topic, st.Partition, st.Code, st.N); err != nil {
			return fail(err)
		}
	case DelayResponses:
		id := st.Broker
		p.mu.Lock()
		if id == Any && st.Duration == 0 && len(p.delayed) > 0 {
			id = p.delayed[len(p.delayed)-1]
		}
		p.mu.Unlock()
		if id == Any {
			if id, _ = c.Leader(st.Topic, st.Partition); id < 0 {
				return fail(fmt.Errorf("%w: %s has no leader", ErrNoTarget, st.tp()))
			}
		}
		a.Did = fmt.Sprintf("responses of broker %d delayed by %v", id, st.Duration)
		if err := c.DelayResponses(id, st.Duration); err != nil {
			return fail(err)
		}
		p.mu.Lock()
		p.delayed = slices.DeleteFunc(p.delayed, func(x int32) bool { return x == id })
		if st.Duration > 0 {
			p.delayed = append(p.delayed, id)
		}
		p.mu.Unlock()
	case FollowerLag:
		a.Did = fmt.Sprintf("broker %d follows %v behind", st.Broker, st.Duration)
		if err := c.SetFollowerLag(st.Broker, st.Duration); err != nil {
			return fail(err)
		}
		p.mu.Lock()
		p.lagged[st.Broker] = st.Duration > 0
		p.mu.Unlock()
	case ExpireProducers:
		if st.Duration > 0 {
			ids := c.ExpireIdleProducers(st.Duration)
			a.Did = fmt.Sprintf("expired the state of producers idle for %v: %v", st.Duration, ids)
			break
		}
		ids := c.ProducerIDs()
		for _, id := range ids {
			c.ExpireProducer(id)
		}
		a.Did = fmt.Sprintf("expired producer state of %v", ids)
	default:
		return fail(fmt.Errorf("%w: %d", ErrUnknownKind, st.Kind))
	}
	return a
}

// pausedBroker resolves the broker of a Resume/UncleanElect step.
func (p *Player) pausedBroker(st Step) (int32, bool) {
	if st.Broker != Any {
		return st.Broker, true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	ps := p.paused[tpKey{st.Topic, st.Partition}]
	if len(ps) == 0 {
		return Any, false
	}
	return ps[len(ps)-1], true
}

// nextInSync is the first in-sync replica after the partition's leader.
func nextInSync(c *sim.Cluster, topic string, part int32) (int32, error) {
	isr, err := c.ISR(topic, part)
	if err != nil {
		return Any, err
	}
	leader, _ := c.Leader(topic, part)
	slices.Sort(isr)
	for _, id := range isr {
		if id > leader && c.BrokerUp(id) {
			return id, nil
		}
	}
	for _, id := range isr {
		if id != leader && c.BrokerUp(id) {
			return id, nil
		}
	}
	return Any, fmt.Errorf("%w: no in-sync follower of %s/%d (ISR %v)", ErrNoTarget, topic, part, isr)
}

// pollEvery is how often a wait for the cluster's state looks again: the
// simulator has no public change notification.
const pollEvery = 2 * time.Millisecond

// waitFor polls cond until it holds, ctx ends or d passes.
func waitFor(ctx context.Context, d time.Duration, cond func() bool) error {
	deadline := time.Now().Add(d)
	t := time.NewTicker(pollEvery)
	defer t.Stop()
	time.Sleep(time.Nanosecond) // let the cluster settle the instant (see Run)
	for !cond() {
		if !time.Now().Before(deadline) {
			return ErrNotCaughtUp
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}

// awaitInSync waits until broker is in the ISR of every partition of topic
// it holds a replica of (except those this player paused on it).
func (p *Player) awaitInSync(ctx context.Context, topic string, broker int32, d time.Duration) error {
	return waitFor(ctx, d, func() bool {
		for part := range partitions(p.c, topic) {
			rs, err := p.c.Replicas(topic, part)
			if err != nil || !slices.Contains(rs, broker) || p.isPaused(topic, part, broker) {
				continue
			}
			if isr, _ := p.c.ISR(topic, part); !slices.Contains(isr, broker) {
				return false
			}
		}
		return true
	})
}

func (p *Player) isPaused(topic string, part, broker int32) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Contains(p.paused[tpKey{topic, part}], broker)
}

// restoreLeaders moves partitions of topic (all topics if "") back to their
// first leader where it runs and is in sync; it returns those moved.
func (p *Player) restoreLeaders(topic string) []string {
	var moved []string
	p.mu.Lock()
	first := make(map[tpKey]int32, len(p.firstLeader))
	for k, v := range p.firstLeader {
		first[k] = v
	}
	p.mu.Unlock()
	keys := make([]tpKey, 0, len(first))
	for k := range first {
		if topic == "" || k.topic == topic {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b tpKey) int {
		if a.topic != b.topic {
			if a.topic < b.topic {
				return -1
			}
			return 1
		}
		return int(a.part - b.part)
	})
	for _, k := range keys {
		want := first[k]
		if leader, _ := p.c.Leader(k.topic, k.part); leader == want || want < 0 {
			continue
		}
		if p.c.MoveLeader(k.topic, k.part, want) == nil {
			moved = append(moved, fmt.Sprintf("%s/%d→%d", k.topic, k.part, want))
		}
	}
	return moved
}

// Heal undoes what the player left behind: queued produce faults cleared,
// delays and follower lags it set ended, replication resumed, stopped
// brokers started; then it waits (at most d) until every partition has a
// leader and every replica is back in its ISR.
func (p *Player) Heal(ctx context.Context, d time.Duration) error {
	c := p.c
	n := int32(len(c.Addrs()))
	var errs []error
	for _, t := range c.Topics() {
		for part := range partitions(c, t) {
			if err := c.ClearFaults(t, part); err != nil {
				errs = append(errs, err)
			}
		}
	}
	p.mu.Lock()
	delayed, lagged := slices.Clone(p.delayed), make([]int32, 0, len(p.lagged))
	for id := range p.lagged {
		lagged = append(lagged, id)
	}
	paused := map[tpKey][]int32{}
	for k, v := range p.paused {
		paused[k] = slices.Clone(v)
	}
	p.delayed, p.lagged, p.paused = nil, map[int32]bool{}, map[tpKey][]int32{}
	p.mu.Unlock()
	for _, id := range delayed {
		errs = append(errs, c.DelayResponses(id, 0))
	}
	for _, id := range lagged {
		errs = append(errs, c.SetFollowerLag(id, 0))
	}
	for k, ids := range paused {
		for _, id := range ids {
			errs = append(errs, c.ResumeReplication(k.topic, k.part, id))
		}
	}
	for id := range n {
		if !c.BrokerUp(id) {
			if err := c.StartBroker(id); err != nil && !errors.Is(err, sim.ErrBrokerUp) {
				errs = append(errs, err)
			}
		}
	}
	p.mu.Lock()
	p.stopped = nil
	p.current = "healed"
	p.mu.Unlock()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("scenario: heal: %w", err)
	}
	err := waitFor(ctx, d, func() bool {
		for _, t := range c.Topics() {
			for part := range partitions(c, t) {
				if leader, _ := c.Leader(t, part); leader < 0 {
					return false
				}
				isr, _ := c.ISR(t, part)
				if rs, _ := c.Replicas(t, part); len(isr) < len(rs) {
					return false
				}
			}
		}
		return true
	})
	if err != nil {
		return fmt.Errorf("scenario: heal: %w", err)
	}
	return nil
}

// ErrUnknownScenario: ByName was given a name it does not know.
var ErrUnknownScenario = errors.New("scenario: unknown scenario")
