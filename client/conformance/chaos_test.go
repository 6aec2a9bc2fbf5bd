package conformance

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/sim"
	"github.com/rollsafe/rollsafe/sim/memnet"
	"github.com/rollsafe/rollsafe/sim/scenario"
)

var (
	chaosRuns     = flag.Int("chaos.runs", 500, "number of random fault schedules TestChaos plays in the deterministic world (seeds 1..N)")
	chaosWallRuns = flag.Int("chaos.wallruns", 40, "number of random fault schedules TestChaosSockets plays over sockets and the wall clock")
	chaosSeed     = flag.Int64("chaos.seed", 0, "play only the schedule of this seed (reproduces a failure)")
	chaosWorkers  = flag.Int("chaos.workers", 0, "schedules played at once (0: 4 over sockets, GOMAXPROCS in the deterministic world)")
)

// chaosConfig is the shape of every chaos schedule: small, so that 200 of
// them fit in CI, with every kind of fault allowed.
func chaosConfig(seed int64) scenario.ChaosConfig {
	c := scenario.ChaosConfig{
		Topic: topic, Partitions: 3, Brokers: 3, Faults: 3, Span: 150 * time.Millisecond,
		Unclean: true, Expiry: true,
		// A dropped response costs the producer its request timeout
		// (plus the connection's grace): one schedule in ten.
		Drops: seed%10 == 0,
		// Mid-run, state expires only for producers idle longer than any
		// retry takes (a reconnect, a dropped response's request timeout),
		// as Kafka's day-long producer.id.expiration.ms always does; the
		// realistic expiry, of a producer whose batches are all answered,
		// is played between the schedule and the final wave (chaosPlay).
		ExpiryIdle: 3 * time.Second, // above the longest late append (LateHold 2.5 s)
		// As unkind as a real cluster: requests processed after their
		// connection dropped, brokers returning on new addresses, and —
		// costing the producer its request timeout, so one schedule in
		// ten — a high watermark held behind the log end past the request
		// timeout (acks=all answers REQUEST_TIMED_OUT, the batch commits
		// later) and appends landing after the producer gave up.
		Late:        true,
		MoveBrokers: true,
		Vanish:      true,
		// Every replica of a partition killed (kill -9, logs kept), the
		// leader last, and back leader first: the partition offline, then
		// led again by its last leader (Kafka's last known leader).
		Crashes: true,
		// A leader alone in the ISR loses power and comes back without
		// the records it acknowledged: each must be reported lost.
		PowerCuts: true,
	}
	if seed%10 == 5 {
		c.Stall = 2500 * time.Millisecond
		c.LateHold = 2500 * time.Millisecond
	}
	return c
}

// TestChaos plays seeded random fault schedules over a 3-broker cluster
// while producing, heals the cluster, checks that production carries on
// and reads everything back: acknowledged records once each and in order,
// failed ones absent, and acknowledged records lost (unclean elections)
// exactly those reported through OnDataLoss. Each schedule is played in
// the deterministic world (a testing/synctest bubble on sim/memnet): one
// execution per seed, replayed bit for bit (TestChaosReplay).
//
// CI plays seeds 1..500 (-chaos.runs); ROLLSAFE_CHAOS_RUNS=N plays seeds
// 1..N instead, for larger runs on demand. Either way the regressions
// below play too.
func TestChaos(t *testing.T) {
	runs := *chaosRuns
	if v := os.Getenv("ROLLSAFE_CHAOS_RUNS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			t.Fatalf("ROLLSAFE_CHAOS_RUNS=%q: want a number of schedules", v)
		}
		runs = n
	}
	chaos(t, runs, false)
}

// TestChaosSockets plays the first schedules over real sockets and the wall
// clock, where the scheduler, not a seed, interleaves the goroutines.
func TestChaosSockets(t *testing.T) { chaos(t, *chaosWallRuns, true) }

// chaosRegressions are seeds beyond the usual runs that once found a
// bug, played in the deterministic world in every run:
//   - 9745: a partition with no leader at the producer's first metadata
//     read never asked for metadata again.
//   - 50682: a request the loop built before it heard that the one ahead
//     of it failed (the broker unreachable) went out on a new connection
//     once the broker was back, power-cut and without the producer's state:
//     the later batch landed first, the earlier one after it.
//   - 240 and 433 (found by the dimensions on d2e7f2b): a batch purged while it waited in the outbox behind a
//     held request, whose partition then moved, was answered never
//     written but never released: records stayed buffered for good.
//   - 15540: records stamped long ago; a request read before its
//     connection dropped was appended 0.1 ms after the tail read that
//     showed it absent, and the resend, held by the broker past its
//     producer expiry check, was appended again: the read that settles an
//     attempt without an answer now waits for the answer timeout.
var chaosRegressions = []int64{9745, 50682, 240, 433, 15540}

// chaosPlain are seeds played without the dimensions (chaosDims) whatever
// their draw: regressions found before the dimensions existed, kept as
// they were found.
var chaosPlain = map[int64]bool{9745: true}

// chaosBeforeResets are seeds played without the resets after an answer
// (drawResets) whatever their draw: regressions found before the resets
// existed, kept as they were found.
var chaosBeforeResets = map[int64]bool{50682: true, 240: true, 433: true}

func chaos(t *testing.T, runs int, wallClock bool) {
	seeds := make(chan int64)
	go func() {
		defer close(seeds)
		if *chaosSeed != 0 {
			seeds <- *chaosSeed
			return
		}
		for s := int64(1); s <= int64(runs); s++ {
			seeds <- s
		}
		if !wallClock {
			for _, s := range chaosRegressions {
				if s > int64(runs) {
					seeds <- s
				}
			}
		}
	}()
	start := time.Now()
	before := runtime.NumGoroutine()
	var failures, played atomic.Int64
	var wg sync.WaitGroup
	workers := *chaosWorkers
	if workers <= 0 {
		workers = 4
		if !wallClock {
			workers = runtime.GOMAXPROCS(0)
		}
	}
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seed := range seeds {
				if failures.Load() >= 5 {
					continue // drain: enough evidence
				}
				sched, detail, tr, err := chaosRun(t, seed, !wallClock)
				played.Add(1)
				if err != nil {
					failures.Add(1)
					test := "Chaos$"
					if wallClock {
						test = "ChaosSockets"
					}
					t.Errorf("chaos seed %d failed: %v\n%s\napplied:\n%s%s\nreproduce: go test ./client/conformance -run '%s' -chaos.seed=%d -v", seed, err, sched, detail, tr.save(t, seed), test, seed)
				} else if *chaosSeed != 0 {
					t.Logf("%s\napplied:\n%s", sched, detail)
				}
			}
		}()
	}
	wg.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<20)
		t.Errorf("goroutines leaked: %d before, %d after\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
	t.Logf("%d schedules in %v, %d failed (records purged: %d not written, %d outcome unknown)", played.Load(), time.Since(start).Round(time.Millisecond), failures.Load(),
		purgedNotWritten.Load(), purgedUnknown.Load())
}

// chaosRun plays one schedule and returns it, what it did, the producer's
// transcript and the first violation found. deterministic plays it in a
// testing/synctest bubble on sim/memnet (virtual time: one execution per
// seed, replayed bit for bit); otherwise over sockets and the wall clock.
func chaosRun(t *testing.T, seed int64, deterministic bool) (sched scenario.Schedule, detail string, tr *transcript, err error) {
	if !deterministic {
		return chaosRunIn(seed, nil)
	}
	synctest.Test(t, func(*testing.T) {
		// A schedule takes a few virtual minutes at most; one still
		// running after an hour of virtual time is a hang (virtual time
		// runs on while the producer's timers fire): say which, and stop.
		done := make(chan struct{})
		defer close(done)
		go func() {
			select {
			case <-done:
			case <-time.After(time.Hour):
				panic(fmt.Sprintf("chaos seed %d: still running after an hour of virtual time (a hang); reproduce: go test ./client/conformance -run 'Chaos$' -chaos.seed=%d -v", seed, seed))
			}
		}()
		sched, detail, tr, err = chaosRunIn(seed, memnet.New(uint64(seed)))
	})
	return sched, detail, tr, err
}

func chaosRunIn(seed int64, n *memnet.Network) (scenario.Schedule, string, *transcript, error) {
	const partitions = 3
	sched := scenario.Random(seed, chaosConfig(seed))
	span := sched.Span()
	dims := drawDims(seed, partitions, span)
	sched = dims.steps(sched)
	tr := newTranscript()
	simOpts := []sim.Option{sim.Seed(seed), sim.RecorderLimit(4000)}
	// Every fourth seed replays historical events: records stamped two
	// days ago, which Kafka (and the sim) forget the producer of at every
	// expiry check — here every second — and at every restart.
	old := seed%4 == 0
	if old {
		simOpts = append(simOpts, sim.ProducerIDExpirationCheck(time.Second))
	}
	r, err := start(cfg{partitions: partitions, parallel: true, net: n,
		sim: simOpts,
		client: append([]client.Option{
			client.BatchBytes(1 << 10), client.Linger(time.Millisecond),
			client.RequestTimeout(500 * time.Millisecond), client.DeliveryTimeout(time.Minute),
			client.WithLogger(slog.New(tr)),
			// One, two or three produce connections per broker: with
			// more than one, a broker's partitions go out on several
			// pipelines, which the broker handles side by side.
			client.ProduceConnections(1 + int(seed%3)),
		}, dims.options()...),
	})
	if err != nil {
		return sched, dims.String(), tr, err
	}
	if err := dims.prepare(r, partitions); err != nil {
		return sched, dims.String(), tr, errors.Join(err, r.close())
	}
	if old {
		r.age = 48 * time.Hour
	}
	pl := scenario.NewPlayer(r.c, sched)
	detail := func() string {
		s := dims.String()
		for _, a := range pl.Applied() {
			s += "  " + a.String() + "\n"
		}
		return s
	}
	err = chaosPlay(r, pl, sched, span, dims)
	if err != nil {
		err = fmt.Errorf("%w\nrecorder (tail):\n%s", err, tail(r.dump(), 6000))
	}
	if cerr := r.close(); cerr != nil {
		err = errors.Join(err, fmt.Errorf("close: %w", cerr))
	}
	return sched, detail(), tr, err
}

// chaosPlay plays sched (whose fault schedule spans span) with dims'
// producer actions while producing, heals the cluster and checks.
func chaosPlay(r *rig, pl *scenario.Player, sched scenario.Schedule, span time.Duration, dims chaosDims) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	played, acted := make(chan error, 1), make(chan error, 1)
	go func() { played <- pl.Run(ctx) }()
	go func() { acted <- dims.act(ctx, r, time.Now()) }()
	// Records spread over the schedule's span, in six waves.
	const waves, perWave = 6, 50
	step := span/waves + time.Millisecond
	for w := range waves {
		r.produce(ctx, fmt.Sprintf("w%d", w), perWave)
		if w == 3 {
			if what, ok := chaosPurge(sched.Seed); ok {
				// A purge mid-schedule: what it fails must be absent (not
				// written) or may be present (in flight), and the
				// producer must go on (the later waves, goesOn).
				if err := r.p.Purge(ctx, what); err != nil {
					return fmt.Errorf("purge: %w", err)
				}
			}
		}
		select {
		case <-time.After(step):
		case <-ctx.Done():
		}
	}
	if err := <-acted; err != nil {
		return fmt.Errorf("dimensions: %w", err)
	}
	if err := <-played; err != nil {
		return fmt.Errorf("schedule: %w", err)
	}
	if err := pl.Heal(ctx, 10*time.Second); err != nil {
		return err
	}
	if sched.Seed%3 == 0 {
		// The producer goes idle, the brokers forget it (as after
		// producer.id.expiration.ms), and it writes again.
		if err := r.wait(30 * time.Second); err != nil {
			return fmt.Errorf("before expiry: %w", err)
		}
		// Everything is answered, but a request the broker read before its
		// connection dropped (a late step) may still be queued there; Kafka
		// forgets a producer only after producer.id.expiration.ms of
		// idleness (a day), far beyond that. So wait out the schedule's
		// longest lateness, then expire the producers idle that long: one
		// whose late request just landed is not idle, as in Kafka.
		late := time.Duration(0)
		for _, st := range sched.Steps {
			if st.Kind == scenario.ProcessAfterDisconnect || st.Kind == scenario.DelayProcessing {
				late = max(late, st.Duration+50*time.Millisecond)
			}
		}
		time.Sleep(late)
		r.c.ExpireIdleProducers(late)
	}
	if err := r.goesOn("after", 90); err != nil {
		return err
	}
	if _, err := r.verify(); err != nil {
		return err
	}
	return released(r)
}

// released checks that the producer holds nothing once every record is
// resolved: a batch reported while an attempt was still out (pinned) is
// released when that attempt is answered, whichever way (one answered
// from the outbox when its partition moved must be too).
func released(r *rig) error {
	if waitUntil(30*time.Second, func() bool { n, _ := r.p.Buffered(); return n == 0 }) {
		return nil
	}
	n, b := r.p.Buffered()
	return fmt.Errorf("%d records (%d bytes) still buffered 30 s after every record was resolved", n, b)
}

// chaosPurge says whether a schedule purges mid-run, and what: one seed in
// five, the queue alone or with what is in flight.
func chaosPurge(seed int64) (client.PurgeFlags, bool) {
	switch seed % 10 {
	case 2:
		return client.PurgeQueued, true
	case 7:
		return client.PurgeQueued | client.PurgeInFlight, true
	}
	return 0, false
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "...\n" + s[len(s)-n:]
}
