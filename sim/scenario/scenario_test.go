package scenario

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/sim"
)

func newCluster(t *testing.T, opts ...sim.Option) *sim.Cluster {
	t.Helper()
	before := runtime.NumGoroutine()
	c, err := sim.NewCluster(append([]sim.Option{sim.Brokers(3), sim.Topic("t", 3, 3)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			t.Errorf("goroutines: %d before, %d after", before, n)
		}
	})
	return c
}

func TestRandomIsDeterministic(t *testing.T) {
	cfg := ChaosConfig{Topic: "t", Partitions: 4, Brokers: 3, Faults: 6, Unclean: true, Drops: true, Expiry: true}
	a, b := Random(42, cfg), Random(42, cfg)
	if a.String() != b.String() {
		t.Fatalf("same seed, different schedules:\n%s\n%s", a, b)
	}
	if !strings.Contains(a.String(), "seed=42") {
		t.Fatalf("the printed schedule does not name its seed:\n%s", a)
	}
	distinct := map[string]bool{}
	for seed := int64(0); seed < 50; seed++ {
		s := Random(seed, cfg)
		distinct[s.String()] = true
		if !slices.IsSortedFunc(s.Steps, func(x, y Step) int { return int(x.At - y.At) }) {
			t.Fatalf("seed %d: steps not in time order:\n%s", seed, s)
		}
		if s.Span() >= 400*time.Millisecond {
			t.Fatalf("seed %d: span %v beyond the default 400ms", seed, s.Span())
		}
		for _, st := range s.Steps {
			if st.Topic != "t" && st.Kind != ExpireProducers && st.Kind != StartBroker && st.Kind != FollowerLag {
				t.Fatalf("seed %d: step on topic %q: %s", seed, st.Topic, st)
			}
			if st.Partition < 0 || st.Partition >= 4 {
				t.Fatalf("seed %d: partition out of range: %s", seed, st)
			}
		}
	}
	if len(distinct) < 45 {
		t.Fatalf("only %d distinct schedules from 50 seeds", len(distinct))
	}
}

func TestRandomRespectsConfig(t *testing.T) {
	kinds := map[Kind]bool{}
	for seed := int64(0); seed < 300; seed++ {
		for _, st := range Random(seed, ChaosConfig{Topic: "t", Partitions: 2, Brokers: 3}).Steps {
			kinds[st.Kind] = true
			if st.Kind == StopLeader && !st.Clean {
				t.Fatalf("seed %d: unclean stop without Unclean", seed)
			}
		}
	}
	for _, k := range []Kind{UncleanElect, DropResponses, ExpireProducers} {
		if kinds[k] {
			t.Errorf("%s drawn although not allowed", k)
		}
	}
	for _, k := range []Kind{MoveLeader, StopLeader, StartBroker, AwaitInSync, RestoreLeaders, InjectError, CloseAfterAppend, DelayResponses, FollowerLag} {
		if !kinds[k] {
			t.Errorf("%s never drawn in 300 schedules", k)
		}
	}
	kinds = map[Kind]bool{}
	for seed := int64(0); seed < 300; seed++ {
		for _, st := range Random(seed, ChaosConfig{Topic: "t", Unclean: true, Drops: true, Expiry: true}).Steps {
			kinds[st.Kind] = true
		}
	}
	for _, k := range []Kind{UncleanElect, PauseReplication, ResumeReplication, DropResponses, ExpireProducers} {
		if !kinds[k] {
			t.Errorf("%s never drawn with everything allowed", k)
		}
	}
}

func TestSeedScenarioGivesLeadershipBack(t *testing.T) {
	c := newCluster(t)
	first, epoch0 := c.Leader("t", 1)
	s := Seed(SeedConfig{Topic: "t", Partition: 1, Down: 10 * time.Millisecond, Up: 30 * time.Millisecond, OutOfOrderOnReturn: true})
	p := NewPlayer(c, s)
	if got := p.Current(); got != "no fault yet" {
		t.Fatalf("Current before Run = %q", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Run(ctx); err != nil {
		t.Fatal(err)
	}
	applied := p.Applied()
	if len(applied) != len(s.Steps) {
		t.Fatalf("%d of %d steps applied", len(applied), len(s.Steps))
	}
	for _, a := range applied {
		if a.Skipped != nil {
			t.Fatalf("step skipped: %s\n%s", a, s)
		}
	}
	if !strings.Contains(applied[0].Did, "stopped broker") || !strings.Contains(applied[1].Did, "started broker") {
		t.Fatalf("unexpected steps: %v", applied)
	}
	leader, epoch := c.Leader("t", 1)
	if leader != first || epoch < epoch0+2 {
		t.Fatalf("t/1 led by %d at epoch %d, want %d back after two elections (epoch was %d)", leader, epoch, first, epoch0)
	}
	if cur := p.Current(); !strings.Contains(cur, "step 5/5") {
		t.Fatalf("Current after Run = %q", cur)
	}
	isr, _ := c.ISR("t", 1)
	if len(isr) != 3 {
		t.Fatalf("ISR %v after catching up", isr)
	}
}

func TestUncleanLossAndHeal(t *testing.T) {
	c := newCluster(t)
	before, _ := c.Leader("t", 0)
	p := NewPlayer(c, UncleanLoss("t", 0, 5*time.Millisecond))
	ctx := context.Background()
	if err := p.Run(ctx); err != nil {
		t.Fatal(err)
	}
	after, _ := c.Leader("t", 0)
	if after == before {
		t.Fatalf("leader still %d after the unclean election: %v", after, p.Applied())
	}
	if len(p.Lost()) != 0 {
		t.Fatalf("an empty log lost offsets: %v", p.Lost())
	}
	// Break more and heal.
	if err := c.KillBroker(2); err != nil {
		t.Fatal(err)
	}
	p2 := NewPlayer(c, Schedule{Steps: []Step{
		{Kind: PauseReplication, Topic: "t", Partition: 1, Broker: Any},
		{Kind: DelayResponses, Topic: "t", Partition: 1, Broker: Any, Duration: time.Second},
		{Kind: FollowerLag, Broker: 0, Duration: time.Second},
		{Kind: InjectError, Topic: "t", Partition: 2, Code: 6, N: 100},
	}})
	if err := p2.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if err := p2.Heal(ctx, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	for b := range int32(3) {
		if !c.BrokerUp(b) {
			t.Fatalf("broker %d still down", b)
		}
	}
	for part := range int32(3) {
		if isr, _ := c.ISR("t", part); len(isr) != 3 {
			t.Fatalf("t/%d ISR %v after Heal", part, isr)
		}
	}
	if p2.Current() != "healed" {
		t.Fatalf("Current = %q", p2.Current())
	}
}

func TestSkippedAndFailingSteps(t *testing.T) {
	c := newCluster(t)
	p := NewPlayer(c, Schedule{Steps: []Step{
		{Kind: StartBroker, Broker: Any},                        // nothing stopped
		{Kind: StartBroker, Broker: 1},                          // already up
		{Kind: MoveLeader, Topic: "t", Partition: 0, Broker: 7}, // no such broker: a real error
	}})
	err := p.Run(context.Background())
	if !errors.Is(err, sim.ErrUnknownBroker) {
		t.Fatalf("Run = %v, want sim.ErrUnknownBroker", err)
	}
	a := p.Applied()
	if len(a) != 3 || !errors.Is(a[0].Skipped, ErrNoTarget) || !errors.Is(a[1].Skipped, sim.ErrBrokerUp) {
		t.Fatalf("applied: %v", a)
	}
	p = NewPlayer(c, Schedule{Steps: []Step{{Kind: Kind(200)}}})
	if err := p.Run(context.Background()); !errors.Is(err, ErrUnknownKind) {
		t.Fatalf("unknown kind: %v", err)
	}
}

func TestRunStopsWithContext(t *testing.T) {
	c := newCluster(t)
	p := NewPlayer(c, Schedule{Steps: []Step{{At: time.Hour, Kind: ExpireProducers}}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := p.Run(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Run = %v", err)
	}
	if time.Since(start) > 2*time.Second {
		t.Fatal("Run did not stop with its context")
	}
}

func TestNamedScenarios(t *testing.T) {
	for _, n := range Names() {
		s, err := ByName(n, "t", 3)
		if err != nil || s.Name != n || len(s.Steps) == 0 {
			t.Fatalf("ByName(%q) = %v, %v", n, s, err)
		}
		for _, st := range s.Steps {
			if strings.Contains(st.String(), "Kind(") {
				t.Fatalf("%s: unnamed kind in %s", n, st)
			}
		}
	}
	if _, err := ByName("nope", "t", 3); !errors.Is(err, ErrUnknownScenario) {
		t.Fatalf("unknown name: %v", err)
	}
	c := newCluster(t)
	p := NewPlayer(c, RollingRestart("t", 3, 5*time.Millisecond))
	if err := p.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, a := range p.Applied() {
		if a.Skipped != nil && a.Step.Kind != RestoreLeaders {
			t.Fatalf("rolling restart step skipped: %s", a)
		}
	}
	for part := range int32(3) {
		rs, _ := c.Replicas("t", part)
		if leader, _ := c.Leader("t", part); leader != rs[0] {
			t.Fatalf("t/%d led by %d after the rolling restart, preferred %d", part, leader, rs[0])
		}
	}
}
