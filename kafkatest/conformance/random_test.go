package conformance

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/kafkatest"
)

var (
	faultRuns  = flag.Int("faults.runs", 16, "random fault schedules TestRandomFaults plays on the real cluster (CI: 16; one costs 1-20 s on 2 shared cores, a kill or stop the most: a restarted broker's start)")
	faultSteps = flag.Int("faults.steps", 1, "most faults in a schedule (each schedule draws 1..faults.steps)")
	faultSeed  = flag.Uint64("faults.seed", 0, "play only this schedule seed (0: seeds 1..faults.runs)")
)

// fault is one kind of step a schedule draws: it breaks something on the
// cluster and returns how to heal it (restore does the rest: restarts,
// resumes, full ISRs, preferred leaders).
type fault struct {
	name   string
	weight int // how often it is drawn, relative to the others
	do     func(t *testing.T, ctx context.Context, c *kafkatest.Cluster, topic string) (heal func())
}

// draw picks a fault by weight.
func draw(rng *rand.Rand, kinds []fault) fault {
	total := 0
	for _, f := range kinds {
		total += f.weight
	}
	n := rng.IntN(total)
	for _, f := range kinds {
		if n < f.weight {
			return f
		}
		n -= f.weight
	}
	panic("unreachable")
}

// zombieRequestTimeout is the producer's request timeout in the schedules:
// a paused or blackholed leader stays silent longer than it, so requests
// to it time out with their outcome unknown and are resolved later.
const zombieRequestTimeout = 2 * time.Second

// randomPerTick is the schedules' load: records per 5 ms tick (600/s over
// the 6 partitions), enough for hundreds of batches in flight through
// every fault while a run's schedules' records stay cheap to read back.
const randomPerTick = 3

// stallLimit bounds a schedule's longest gap between two acknowledgements
// on one partition: every fault is healed within seconds.
const stallLimit = 30 * time.Second

// faultsFor are the kinds a schedule draws from; each acts on the leader
// of a partition chosen by the schedule's generator. kill and stop are
// drawn half as often as the others: their heal is a broker's JVM start,
// the dearest thing here (4-12 s under load on 2 shared cores), and TestSeed,
// TestKillLeader and TestRollingRestarts restart brokers 9 times besides.
func faultsFor(rng *rand.Rand) []fault {
	part := func() int32 { return rng.Int32N(parts) }
	leader := func(t *testing.T, ctx context.Context, c *kafkatest.Cluster, topic string) (int32, int32) {
		p := part()
		return p, leaderOf(t, ctx, c, topic, p)
	}
	// silent keeps a fault on until it has lasted longer than the
	// producer's request timeout.
	silent := func(since time.Time) {
		if d := zombieRequestTimeout + time.Second - time.Since(since); d > 0 {
			time.Sleep(d)
		}
	}
	return []fault{
		{"kill", 1, func(t *testing.T, ctx context.Context, c *kafkatest.Cluster, topic string) func() {
			p, id := leader(t, ctx, c, topic)
			if err := c.Kill(id); err != nil {
				t.Fatal(err)
			}
			waitMoved(t, ctx, c, topic, p, id)
			return func() {}
		}},
		{"stop", 1, func(t *testing.T, ctx context.Context, c *kafkatest.Cluster, topic string) func() {
			p, id := leader(t, ctx, c, topic)
			if err := c.Stop(ctx, id); err != nil {
				t.Fatal(err)
			}
			waitMoved(t, ctx, c, topic, p, id)
			return func() {}
		}},
		{"pause", 2, func(t *testing.T, ctx context.Context, c *kafkatest.Cluster, topic string) func() {
			p, id := leader(t, ctx, c, topic)
			if err := c.Pause(id); err != nil {
				t.Fatal(err)
			}
			paused := time.Now()
			waitMoved(t, ctx, c, topic, p, id) // fenced: a zombie once resumed
			silent(paused)
			return func() {}
		}},
		{"elect", 2, func(t *testing.T, ctx context.Context, c *kafkatest.Cluster, topic string) func() {
			p, id := leader(t, ctx, c, topic)
			to := (id + 1 + rng.Int32N(int32(c.Brokers()-1))) % int32(c.Brokers())
			if err := c.MoveLeader(ctx, topic, p, to); err != nil {
				t.Fatal(err)
			}
			return func() {}
		}},
		{"blackhole", 2, func(t *testing.T, ctx context.Context, c *kafkatest.Cluster, topic string) func() {
			_, id := leader(t, ctx, c, topic)
			c.Proxy(id).Set(kafkatest.Blackhole, 0)
			silent(time.Now())
			return func() { c.Proxy(id).Heal() }
		}},
		{"mixed", 2, func(t *testing.T, ctx context.Context, c *kafkatest.Cluster, topic string) func() {
			// One broker's clients blackholed while another broker is frozen.
			_, a := leader(t, ctx, c, topic)
			b := (a + 1 + rng.Int32N(int32(c.Brokers()-1))) % int32(c.Brokers())
			c.Proxy(a).Set(kafkatest.Blackhole, 0)
			if err := c.Pause(b); err != nil {
				t.Fatal(err)
			}
			silent(time.Now())
			return func() { c.Proxy(a).Heal() }
		}},
	}
}

// schedule is one seeded schedule and what its producer reported.
type schedule struct {
	seed   uint64
	played []string
	old    bool // records stamped 48 h ago (every even seed)
	l      *load
	stall  time.Duration
	took   time.Duration
}

// TestRandomFaults plays seeded random fault schedules on the real cluster
// under load, one after another on one topic: each schedule has its own
// producer (rollsafe's defaults, a 2 s request timeout) writing records
// tagged with its seed, draws 1..faults.steps faults (kill, stop, pause,
// election, blackhole, mixed) on partition leaders, heals each, restores
// the cluster and checks production flows on every partition again, then
// closes its producer and checks that every record was acknowledged and
// that production never stalled past stallLimit. At the end the whole topic
// is read back once and every schedule's records are checked in it: 0
// lost, 0 duplicates (anywhere in the log, also a late copy landing during
// a later schedule), 0 reordered, each at its reported offset. Even seeds
// stamp their records 48 h ago (historical events): Kafka forgets such a
// producer at a restart and at every expiry check (every second on the
// test cluster), while it writes. A failure names its seed: -faults.seed=S
// -v replays it alone.
func TestRandomFaults(t *testing.T) {
	seeds := []uint64{*faultSeed}
	if *faultSeed == 0 {
		seeds = seeds[:0]
		for s := uint64(1); s <= uint64(*faultRuns); s++ {
			seeds = append(seeds, s)
		}
	}
	const topic = "random"
	c := cluster(t, topic)
	newTopic(t, c, topic, parts, nil)
	began := time.Now()
	var done []*schedule
	failed := 0
	for _, seed := range seeds {
		if failed == 3 {
			t.Errorf("3 schedules failed: the other %d are not played", len(seeds)-len(done))
			break
		}
		s := &schedule{seed: seed}
		ok := t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) { s.play(t, c, topic) })
		if s.l != nil {
			done = append(done, s)
		}
		if !ok {
			failed++
			t.Logf("schedule seed %d played %s; replay: go test ./kafkatest/conformance -run RandomFaults -v -args -faults.seed=%d",
				seed, strings.Join(s.played, ", "), seed)
		}
	}
	played := time.Since(began)

	// Read the topic back once; check every schedule's records in it.
	ctx := ctxFor(t, 5*time.Minute)
	log := map[int32][]readback.Record{}
	n := 0
	err := readback.Scan(ctx, c.Addrs(), topic, func(r readback.Record) error {
		v, _, _ := bytes.Cut(r.Value, []byte("|"))
		log[r.Partition] = append(log[r.Partition], readback.Record{Partition: r.Partition, Offset: r.Offset, Value: bytes.Clone(v)})
		n++
		return nil
	})
	if err != nil {
		t.Fatalf("read back: %v", err)
	}
	kinds := map[string]int{}
	var stalls []time.Duration
	for _, s := range done {
		prefix := fmt.Sprintf("s%d-", s.seed)
		rep := readback.Check(log, s.l.produced, func(r readback.Record) string {
			if id := string(r.Value); strings.HasPrefix(id, prefix) {
				return id
			}
			return ""
		})
		if !rep.OK() || rep.InLog != len(s.l.produced) || rep.Acked != len(s.l.produced) {
			t.Errorf("schedule seed %d (%s): %v, %d produced\n%v\nreplay: go test ./kafkatest/conformance -run RandomFaults -v -args -faults.seed=%d",
				s.seed, strings.Join(s.played, ", "), rep, len(s.l.produced), rep.Problems, s.seed)
		}
		for _, k := range s.played {
			kinds[k]++
		}
		stalls = append(stalls, s.stall)
	}
	// Nothing in the log that no schedule produced.
	known := 0
	for _, s := range done {
		known += len(s.l.produced)
	}
	if n != known {
		t.Errorf("the log holds %d records, the schedules produced %d", n, known)
	}
	slices.Sort(stalls)
	if len(stalls) > 0 {
		t.Logf("%d schedules in %v (faults %v), %d records read back: 0 lost, 0 duplicates, 0 reordered unless reported above; "+
			"production stall per schedule: median %v, max %v",
			len(done), played.Round(time.Second), kinds, n, stalls[len(stalls)/2].Round(time.Millisecond), stalls[len(stalls)-1].Round(time.Millisecond))
	}
}

// scheduleRand is the generator of schedule seed.
func scheduleRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x726f6c6c73616665)) }

// play runs schedule s on topic with its own producer, leaving the cluster
// restored.
func (s *schedule) play(t *testing.T, c *kafkatest.Cluster, topic string) {
	began := time.Now()
	ctx := ctxFor(t, 5*time.Minute)
	rng := scheduleRand(s.seed)
	kinds := faultsFor(rng)
	steps := 1 + rng.IntN(max(1, *faultSteps))
	l := newLoad(t, c, topic, parts, nil, client.RequestTimeout(zombieRequestTimeout))
	l.rate = randomPerTick
	if s.seed%2 == 0 {
		// Historical events: Kafka forgets a producer whose records are
		// stamped over producer.id.expiration.ms (a day) ago at restarts
		// and expiry checks; its unknown outcomes must be settled from the
		// log, and its batches go one at a time.
		l.age = 48 * time.Hour
		s.old = true
	}
	s.l = l
	l.run(fmt.Sprintf("s%d", s.seed))
	l.awaitAllAcks(20, time.Minute)
	warm := time.Since(began)
	var timing []string
	for range steps {
		f := draw(rng, kinds)
		s.played = append(s.played, f.name)
		t0 := time.Now()
		heal := f.do(t, ctx, c, topic)
		heal()
		t1 := time.Now()
		if err := restore(c, []string{topic}); err != nil {
			t.Fatalf("after %s: %v", f.name, err)
		}
		t2 := time.Now()
		l.awaitAllAcks(20, time.Minute)
		timing = append(timing, fmt.Sprintf("%s %v+%v+%v", f.name, t1.Sub(t0).Round(100*time.Millisecond),
			t2.Sub(t1).Round(100*time.Millisecond), time.Since(t2).Round(100*time.Millisecond)))
	}
	l.halt()
	s.stall, _ = l.stall()
	t3 := time.Now()
	l.finish()
	s.took = time.Since(began)
	stamps := ""
	if s.old {
		stamps = ", records stamped 48 h ago"
	}
	t.Logf("seed %d%s: %s in %v (warm %v; fault+restore+flowing: %s; finish %v); longest production stall %v; %v", s.seed, stamps, strings.Join(s.played, ", "),
		s.took.Round(time.Millisecond), warm.Round(100*time.Millisecond), strings.Join(timing, ", "), time.Since(t3).Round(100*time.Millisecond),
		s.stall.Round(time.Millisecond), l.h)
	if s.stall > stallLimit {
		t.Errorf("production stalled %v (limit %v)", s.stall, stallLimit)
	}
}

// The schedules CI plays (seeds 1..faults.runs, faults.steps at most per
// schedule) draw every kind of fault: fewer schedules must not drop one.
func TestRandomFaultsCoverEveryKind(t *testing.T) {
	kinds := map[string]int{}
	for seed := uint64(1); seed <= uint64(*faultRuns); seed++ {
		rng := scheduleRand(seed)
		fs := faultsFor(rng)
		steps := 1 + rng.IntN(max(1, *faultSteps))
		for range steps {
			kinds[draw(rng, fs).name]++
		}
	}
	for _, f := range faultsFor(rand.New(rand.NewPCG(1, 1))) {
		if kinds[f.name] == 0 {
			t.Errorf("seeds 1..%d draw no %s (drawn: %v)", *faultRuns, f.name, kinds)
		}
	}
	t.Logf("seeds 1..%d draw %v", *faultRuns, kinds)
}
