package conformance

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/kafkatest"
)

var (
	faultRuns  = flag.Int("faults.runs", 2, "random fault schedules TestRandomFaults plays on the real cluster")
	faultSteps = flag.Int("faults.steps", 2, "faults per schedule")
	faultSeed  = flag.Uint64("faults.seed", 0, "play only this schedule seed (0: seeds 1..faults.runs)")
)

// fault is one step of a schedule: it breaks something and returns how to
// check it happened (before healing) and how to heal.
type fault struct {
	name string
	do   func(t *testing.T, ctx context.Context, c *kafkatest.Cluster, topic string) (heal func())
}

const zombieRequestTimeout = 3 * time.Second

// faults are the kinds a schedule draws from; each acts on the leader of
// a partition chosen by the schedule's generator.
func faultsFor(rng *rand.Rand) []fault {
	part := func() int32 { return rng.Int32N(parts) }
	leader := func(t *testing.T, ctx context.Context, c *kafkatest.Cluster, topic string) (int32, int32) {
		p := part()
		return p, leaderOf(t, ctx, c, topic, p)
	}
	return []fault{
		{"kill", func(t *testing.T, ctx context.Context, c *kafkatest.Cluster, topic string) func() {
			p, id := leader(t, ctx, c, topic)
			if err := c.Kill(id); err != nil {
				t.Fatal(err)
			}
			waitMoved(t, ctx, c, topic, p, id)
			return func() {}
		}},
		{"stop", func(t *testing.T, ctx context.Context, c *kafkatest.Cluster, topic string) func() {
			p, id := leader(t, ctx, c, topic)
			if err := c.Stop(ctx, id); err != nil {
				t.Fatal(err)
			}
			waitMoved(t, ctx, c, topic, p, id)
			return func() {}
		}},
		{"pause", func(t *testing.T, ctx context.Context, c *kafkatest.Cluster, topic string) func() {
			p, id := leader(t, ctx, c, topic)
			if err := c.Pause(id); err != nil {
				t.Fatal(err)
			}
			waitMoved(t, ctx, c, topic, p, id)
			time.Sleep(2 * zombieRequestTimeout)
			return func() {}
		}},
		{"elect", func(t *testing.T, ctx context.Context, c *kafkatest.Cluster, topic string) func() {
			p, id := leader(t, ctx, c, topic)
			to := (id + 1 + rng.Int32N(int32(c.Brokers()-1))) % int32(c.Brokers())
			if err := c.MoveLeader(ctx, topic, p, to); err != nil {
				t.Fatal(err)
			}
			return func() {}
		}},
		{"blackhole", func(t *testing.T, ctx context.Context, c *kafkatest.Cluster, topic string) func() {
			_, id := leader(t, ctx, c, topic)
			c.Proxy(id).Set(kafkatest.Blackhole, 0)
			time.Sleep(2 * zombieRequestTimeout)
			return func() { c.Proxy(id).Heal() }
		}},
		{"mixed", func(t *testing.T, ctx context.Context, c *kafkatest.Cluster, topic string) func() {
			// One broker's clients blackholed while another broker is frozen.
			_, a := leader(t, ctx, c, topic)
			b := (a + 1) % int32(c.Brokers())
			c.Proxy(a).Set(kafkatest.Blackhole, 0)
			if err := c.Pause(b); err != nil {
				t.Fatal(err)
			}
			time.Sleep(2 * zombieRequestTimeout)
			return func() { c.Proxy(a).Heal() }
		}},
	}
}

// TestRandomFaults plays seeded random fault schedules on the real
// cluster under load: each schedule draws faults (kill, stop, pause,
// election, blackhole, mixed), restores the cluster after each, and reads
// everything back. A failure names its seed: -faults.seed=S -v replays it.
func TestRandomFaults(t *testing.T) {
	seeds := []uint64{*faultSeed}
	if *faultSeed == 0 {
		seeds = seeds[:0]
		for s := uint64(1); s <= uint64(*faultRuns); s++ {
			seeds = append(seeds, s)
		}
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) { playSchedule(t, seed) })
	}
}

func playSchedule(t *testing.T, seed uint64) {
	topic := fmt.Sprintf("random-%d", seed)
	c := cluster(t, topic)
	newTopic(t, c, topic, parts, nil)
	ctx := ctxFor(t, 10*time.Minute)
	rng := rand.New(rand.NewPCG(seed, 0x726f6c6c73616665))
	kinds := faultsFor(rng)
	l := newLoad(t, c, topic, parts, nil, client.RequestTimeout(zombieRequestTimeout))
	l.run(topic)
	l.awaitAcks(0, 100, time.Minute)
	var played []string
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("schedule seed %d played %s; replay: go test ./kafkatest/conformance -run RandomFaults -faults.seed=%d -v",
				seed, strings.Join(played, ", "), seed)
		}
	})
	for range *faultSteps {
		f := kinds[rng.IntN(len(kinds))]
		played = append(played, f.name)
		heal := f.do(t, ctx, c, topic)
		heal()
		if err := restore(c, []string{topic}); err != nil {
			t.Fatalf("after %s: %v", f.name, err)
		}
		for p := range int32(parts) {
			l.awaitAcks(p, 50, time.Minute)
		}
	}
	l.halt()
	t.Logf("seed %d: %s", seed, strings.Join(played, ", "))
	l.verify()
}
