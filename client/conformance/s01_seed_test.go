package conformance

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/compress"
	"github.com/rollsafe/rollsafe/sim"
	"github.com/rollsafe/rollsafe/sim/scenario"
)

// TestConformance01Seed: confluent-kafka-go#830, librdkafka#3584,
// confluent-kafka-python#1128. The leader of partition 0 goes down,
// leadership moves, the producer keeps writing; the broker comes back,
// catches up and takes its leadership back while batches are in flight to
// the interim leader (NOT_LEADER_OR_FOLLOWER), and the retried batch meets
// OUT_OF_ORDER_SEQUENCE_NUMBER. librdkafka declared the producer fatally
// desynchronised here.
func TestConformance01Seed(t *testing.T) {
	world(t, func(t *testing.T) {
		r := startT(t, cfg{partitions: 6,
			sim:    []sim.Option{sim.FollowerLag(3 * time.Millisecond)},
			client: []client.Option{client.Compression(compress.Gzip, compress.DefaultLevel), client.Linger(5 * time.Millisecond), client.MaxBuffered(3000, 64<<20)},
		})
		ctx := context.Background()
		r.produce(ctx, "warm", 2000)
		r.check(t, r.wait(20*time.Second), "warm-up")

		sched := scenario.Seed(scenario.SeedConfig{Topic: topic, Partition: 0, Down: 50 * time.Millisecond, Up: 150 * time.Millisecond, OutOfOrderOnReturn: true})
		pl := scenario.NewPlayer(r.c, sched)
		var done atomic.Bool
		playErr := make(chan error, 1)
		go func() {
			defer done.Store(true)
			pctx, cancel := context.WithTimeout(ctx, 20*time.Second)
			defer cancel()
			playErr <- pl.Run(pctx)
		}()
		// Large volume while the schedule plays: the buffer limit paces the
		// loop to the acknowledgements.
		chunks := 0
		for ; !done.Load() && chunks < 500; chunks++ {
			r.produce(ctx, "during"+strconv.Itoa(chunks), 200)
		}
		r.check(t, <-playErr, "schedule\n"+sched.String())
		r.produce(ctx, "tail", 2000)
		_, err := r.verify()
		r.check(t, err, "read-back")
		for _, a := range pl.Applied() {
			if a.Skipped != nil {
				t.Fatalf("seed step did not happen: %s\n%s", a, sched)
			}
		}
		t.Logf("schedule:\n%s records during the schedule: %d", sched, chunks*200)
		if !r.sequence(0, answered(codeNotLeader, true), answered(codeOutOfOrderSequence, false)) {
			t.Fatalf("partition 0 never answered NOT_LEADER_OR_FOLLOWER then OUT_OF_ORDER_SEQUENCE_NUMBER\n%s", r.dump())
		}
		if r.h.tailReads(0) == 0 || len(r.h.bumpsOf(0)) == 0 {
			t.Fatalf("the out-of-order answer did not lead to a tail read (%d) and an epoch bump (%v)", r.h.tailReads(0), r.h.bumpsOf(0))
		}
		if n := len(r.dataLosses()); n != 0 {
			t.Fatalf("data loss reported without truncation: %v", r.dataLosses())
		}
		r.check(t, r.goesOn("after", 600), "after the scenario")
		_, err = r.verify()
		r.check(t, err, "final read-back")
	})
}
