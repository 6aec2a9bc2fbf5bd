package conformance

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/sim"
	"github.com/rollsafe/rollsafe/sim/scenario"
)

// TestConformance06UncleanElection: a follower stops replicating, the
// leader acknowledges more records without it, then the follower is
// elected uncleanly: those acknowledged records are gone. The producer must
// report the loss with exactly their offsets and keep producing.
func TestConformance06UncleanElection(t *testing.T) {
	for _, tc := range []struct {
		name string
		warm int // records the lagging follower copies before it stops
	}{{"follower-knows-producer", 300}, {"follower-never-saw-producer", 0}} {
		t.Run(tc.name, func(t *testing.T) {
			world(t, func(t *testing.T) {
				r := startT(t, cfg{partitions: 2, client: []client.Option{client.BatchBytes(2 << 10)}})
				ctx := context.Background()
				if tc.warm > 0 {
					r.produceTo(ctx, "warm", tc.warm, one(0))
					r.check(t, r.wait(10*time.Second), "warm-up")
					hw, _, _ := r.c.HighWatermark(topic, 0)
					if !waitUntil(5*time.Second, func() bool {
						isr, _ := r.c.ISR(topic, 0)
						return len(isr) == 3
					}) {
						t.Fatalf("followers did not catch up to %d", hw)
					}
				}
				pl := scenario.NewPlayer(r.c, scenario.Schedule{Steps: []scenario.Step{
					{Kind: scenario.PauseReplication, Topic: topic, Partition: 0, Broker: scenario.Any},
				}})
				r.check(t, pl.Run(ctx), "pause")
				r.produceTo(ctx, "acked", 500, one(0))
				r.check(t, r.wait(10*time.Second), "produce while the follower lags")
				if n, _ := r.acked("acked"); n != 500 {
					t.Fatalf("%d of 500 acknowledged before the election", n)
				}
				pl = scenario.NewPlayer(r.c, scenario.Schedule{Steps: []scenario.Step{
					{Kind: scenario.PauseReplication, Topic: topic, Partition: 0, Broker: pausedOf(t, r, 0)},
					{Kind: scenario.UncleanElect, Topic: topic, Partition: 0, Broker: scenario.Any},
					{Kind: scenario.ResumeReplication, Topic: topic, Partition: 0, Broker: scenario.Any},
				}})
				r.check(t, pl.Run(ctx), "unclean election")
				lost := pl.Lost()[topic+"/0"]
				if len(lost) == 0 {
					t.Fatalf("the unclean election removed nothing: %v", pl.Applied())
				}
				r.check(t, r.goesOn("after", 400), "after the election")
				rep, err := r.verify()
				r.check(t, err, "read-back")
				if rep.Lost == 0 {
					t.Fatalf("no acknowledged record lost (sim removed %v)", lost)
				}
				losses := r.dataLosses()
				if len(losses) == 0 {
					t.Fatalf("%d acknowledged records lost (offsets %v), no DataLoss reported", rep.Lost, lost)
				}
				t.Logf("sim removed %v; producer reported %v; %s", lost, losses, rep)
			})
		})
	}
}

// pausedOf finds the replica of partition p out of the ISR.
func pausedOf(t *testing.T, r *rig, p int32) int32 {
	t.Helper()
	isr, _ := r.c.ISR(topic, p)
	rs, _ := r.c.Replicas(topic, p)
	for _, b := range rs {
		if !slices.Contains(isr, b) {
			return b
		}
	}
	t.Fatalf("no replica of %d out of the ISR %v", p, isr)
	return -1
}

// TestConformance07ProducerStateExpired: the broker forgets the producer
// (producer.id.expiration.ms). Before Kafka 2.5 the next batch gets
// UNKNOWN_PRODUCER_ID (fatal for librdkafka); from 2.5 on it is accepted
// silently at its sequence. Either way nothing is lost or duplicated.
func TestConformance07ProducerStateExpired(t *testing.T) {
	for _, pre25 := range []bool{true, false} {
		name := "kafka-2.5"
		var opts []sim.Option
		if pre25 {
			name, opts = "pre-2.5", []sim.Option{sim.Pre25()}
		}
		t.Run(name, func(t *testing.T) {
			world(t, func(t *testing.T) {
				r := startT(t, cfg{partitions: 2, sim: opts, client: []client.Option{client.BatchBytes(2 << 10)}})
				ctx := context.Background()
				r.produceTo(ctx, "warm", 300, one(0))
				r.check(t, r.wait(10*time.Second), "warm-up")
				ids := r.c.ProducerIDs()
				if len(ids) != 1 {
					t.Fatalf("producer ids %v", ids)
				}
				r.c.ExpireProducer(ids[0])
				mark := len(r.produces(0))
				r.produceTo(ctx, "fault", 1000, one(0))
				r.check(t, r.goesOn("after", 300), "after expiry")
				_, err := r.verify()
				r.check(t, err, "read-back")
				after := r.produces(0)[mark:]
				if len(after) == 0 {
					t.Fatal("nothing produced after the expiry")
				}
				first := after[0]
				if pre25 {
					if first.ErrorCode != codeUnknownProducerID || first.Fault != "" {
						t.Fatalf("first answer after expiry %+v, want UNKNOWN_PRODUCER_ID\n%s", first, r.dump())
					}
					if r.h.tailReads(0) == 0 || len(r.h.bumpsOf(0)) == 0 {
						t.Fatalf("UNKNOWN_PRODUCER_ID: tail reads %d, bumps %v", r.h.tailReads(0), r.h.bumpsOf(0))
					}
					return
				}
				if first.ErrorCode != codeNone || !first.Appended || first.BaseSequence == 0 {
					t.Fatalf("first answer after expiry %+v, want a silent acceptance at a nonzero sequence\n%s", first, r.dump())
				}
			})
		})
	}
}

// TestConformance08EpochExhaustion: the producer id is at epoch 32767 and
// a partition needs a fresh epoch: the producer must take a new producer id
// instead of wrapping, and write nothing twice.
func TestConformance08EpochExhaustion(t *testing.T) {
	world(t, func(t *testing.T) {
		r := startT(t, cfg{partitions: 2, sim: []sim.Option{sim.ProducerEpochStart(math.MaxInt16)}, client: []client.Option{client.BatchBytes(2 << 10)}})
		ctx := context.Background()
		r.produce(ctx, "warm", 400)
		r.check(t, r.wait(10*time.Second), "warm-up")
		first := r.produces(0)[0].ProducerID
		if e := r.produces(0)[0].ProducerEpoch; e != math.MaxInt16 {
			t.Fatalf("epoch %d, want %d", e, math.MaxInt16)
		}
		// A head OUT_OF_ORDER desynchronises partition 0: it must move on.
		r.check(t, r.c.InjectError(topic, 0, codeOutOfOrderSequence, 1), "inject")
		r.produce(ctx, "fault", 2000)
		r.check(t, r.goesOn("after", 300), "after")
		_, err := r.verify()
		r.check(t, err, "read-back")
		bumps := r.h.bumpsOf(0)
		if len(bumps) == 0 || bumps[len(bumps)-1].pid == first {
			t.Fatalf("partition 0 did not move to a new producer id: %v (first %d)", bumps, first)
		}
		for _, pr := range r.produces(0) {
			if pr.ProducerID == first && pr.ProducerEpoch != math.MaxInt16 {
				t.Fatalf("epoch wrapped: %+v", pr)
			}
		}
		inits := 0
		for _, ex := range r.c.Recorder().Exchanges() {
			if _, ok := ex.Request.(*kmsg.InitProducerIDRequest); ok {
				inits++
			}
		}
		if inits < 2 {
			t.Fatalf("%d InitProducerId requests, want a second one", inits)
		}
	})
}
