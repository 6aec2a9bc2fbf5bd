package scenario

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/sim"
)

// TestRealismKindsAreOptIn: the default mix never draws the issue-12
// faults (so existing seeds replay as before); opting in draws each.
func TestRealismKindsAreOptIn(t *testing.T) {
	base := ChaosConfig{Topic: "t", Partitions: 3, Brokers: 3, Faults: 6, Unclean: true, Drops: true, Expiry: true}
	for seed := int64(0); seed < 300; seed++ {
		for _, st := range Random(seed, base).Steps {
			if isRealism(st.Kind) || (st.Kind == FollowerLag && st.Duration == stallLag) {
				t.Fatalf("seed %d: default mix drew %s", seed, st)
			}
		}
	}
	opt := base
	opt.Stall, opt.Late, opt.Compaction, opt.MoveBrokers, opt.Crashes = time.Second, true, true, true, true
	seen := map[string]bool{}
	for seed := int64(0); seed < 300; seed++ {
		s := Random(seed, opt)
		for _, st := range s.Steps {
			switch {
			case isRealism(st.Kind):
				seen[st.Kind.String()] = true
				if !strings.HasPrefix(whatRealism(st), st.Kind.String()) {
					t.Fatalf("description %q", whatRealism(st))
				}
			case st.Kind == FollowerLag && st.Duration == stallLag:
				seen["stall"] = true
			}
		}
		if Random(seed, opt).String() != s.String() {
			t.Fatalf("seed %d: not deterministic", seed)
		}
	}
	for _, k := range []string{"stall", "process-after-disconnect", "delay-processing", "compact", "start-broker-elsewhere", "kill-replicas"} {
		if !seen[k] {
			t.Errorf("never drew %s in 300 seeds", k)
		}
	}
}

func TestApplyRealism(t *testing.T) {
	c := newCluster(t, sim.Topic("c", 1, 3), sim.CompactTopic("c"))
	p := NewPlayer(c, Schedule{})
	ctx := context.Background()
	if _, ok := p.applyRealism(ctx, Step{Kind: MoveLeader}); ok {
		t.Fatal("a core kind was taken")
	}
	for _, k := range []Kind{ProcessAfterDisconnect, DelayProcessing} {
		a, ok := p.applyRealism(ctx, Step{Kind: k, Topic: "t", Partition: 1, N: 1, Duration: time.Millisecond})
		if !ok || a.Skipped != nil {
			t.Fatalf("%s: %+v", k, a)
		}
	}
	if n, _ := c.PendingFaults("t", 1); n != 2 {
		t.Fatalf("%d strikes pending, want 2", n)
	}
	if a, _ := p.applyRealism(ctx, Step{Kind: Compact, Topic: "c"}); a.Skipped != nil {
		t.Fatalf("compact: %v", a.Skipped)
	}
	if a, _ := p.applyRealism(ctx, Step{Kind: Compact, Topic: "t"}); !errors.Is(a.Skipped, sim.ErrNotCompacted) {
		t.Fatalf("compact of a delete-policy topic: %v", a.Skipped)
	}
	if a, _ := p.applyRealism(ctx, Step{Kind: StartBrokerElsewhere, Broker: Any}); !errors.Is(a.Skipped, ErrNoTarget) {
		t.Fatalf("nothing stopped: %v", a.Skipped)
	}
	leader, _ := c.Leader("t", 0)
	old := c.Addrs()[leader]
	if a := p.apply(ctx, Step{Kind: StopLeader, Topic: "t", Partition: 0, Clean: true}); a.Skipped != nil {
		t.Fatal(a.Skipped)
	}
	a, _ := p.applyRealism(ctx, Step{Kind: StartBrokerElsewhere, Broker: Any})
	if a.Skipped != nil || !c.BrokerUp(leader) || c.Addrs()[leader] == old {
		t.Fatalf("%+v: up %v, address %s (was %s)", a, c.BrokerUp(leader), c.Addrs()[leader], old)
	}
	leader, _ = c.Leader("t", 0)
	old = c.Addrs()[leader]
	if a, _ := p.applyRealism(ctx, Step{Kind: VanishLeader, Topic: "t", Partition: 0}); a.Skipped != nil || c.BrokerUp(leader) {
		t.Fatalf("vanish: %+v, up %v", a, c.BrokerUp(leader))
	}
	a, _ = p.applyRealism(ctx, Step{Kind: StartBrokerElsewhere, Broker: Any})
	if a.Skipped != nil || !c.BrokerUp(leader) || c.Addrs()[leader] == old {
		t.Fatalf("%+v: up %v, address %s (was %s)", a, c.BrokerUp(leader), c.Addrs()[leader], old)
	}
	if err := p.Heal(ctx, 5*time.Second); err != nil {
		t.Fatal(err)
	}
}

// TestRandomVanish: with Vanish, address moves start with a vanished leader
// about half the time; without it, never.
func TestRandomVanish(t *testing.T) {
	count := func(vanish bool) (vanished, stopped int) {
		for seed := range int64(50) {
			s := Random(seed, ChaosConfig{Topic: "t", Partitions: 3, Brokers: 3, Faults: 6, MoveBrokers: true, Vanish: vanish})
			for _, st := range s.Steps {
				switch st.Kind {
				case VanishLeader:
					vanished++
				case StopLeader:
					stopped++
				}
			}
		}
		return vanished, stopped
	}
	if v, s := count(true); v == 0 || s == 0 {
		t.Fatalf("with Vanish: %d vanished, %d stopped; want both", v, s)
	}
	if v, _ := count(false); v != 0 {
		t.Fatalf("without Vanish: %d vanished", v)
	}
}

// TestKillReplicas: every replica killed, the leader last; started back
// last killed first, the old leader leads again; a partition with no
// replica running is no target.
func TestKillReplicas(t *testing.T) {
	c := newCluster(t)
	ctx := context.Background()
	leader, _ := c.Leader("t", 1)
	p := NewPlayer(c, Schedule{})
	a, ok := p.applyRealism(ctx, Step{Kind: KillReplicas, Topic: "t", Partition: 1, Duration: 5 * time.Millisecond})
	if !ok || a.Skipped != nil {
		t.Fatalf("%+v", a)
	}
	p.mu.Lock()
	stopped := slices.Clone(p.stopped)
	p.mu.Unlock()
	if len(stopped) != 3 || stopped[2] != leader {
		t.Fatalf("killed %v; want all three, leader %d last (%s)", stopped, leader, a.Did)
	}
	for b := range int32(3) {
		if c.BrokerUp(b) {
			t.Fatalf("broker %d still up", b)
		}
	}
	if now, _ := c.Leader("t", 1); now >= 0 {
		t.Fatalf("leader %d with every replica killed", now)
	}
	if a, _ := p.applyRealism(ctx, Step{Kind: KillReplicas, Topic: "t", Partition: 1}); !errors.Is(a.Skipped, ErrNoTarget) {
		t.Fatalf("nothing running: %v", a.Skipped)
	}
	if a := p.apply(ctx, Step{Kind: StartBroker, Broker: Any}); a.Skipped != nil {
		t.Fatal(a.Skipped)
	}
	if now, _ := c.Leader("t", 1); now != leader {
		t.Fatalf("leader %d after the first start; want the old leader %d back", now, leader)
	}
	if err := p.Heal(ctx, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if isr, _ := c.ISR("t", 1); len(isr) != 3 {
		t.Fatalf("ISR %v after Heal", isr)
	}
}
