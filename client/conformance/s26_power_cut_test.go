package conformance

import (
	"context"
	"testing"
	"time"
)

// TestConformance26LoneLeaderPowerCut: a leader left alone in the ISR
// loses power with the records it acknowledged alone (sim.CutPower; on
// Kafka 4.4, kafkatest's TestELR/producer-power-cut). Partition 0 of
// three (replication 3, min.insync.replicas=1) takes a steady load; both
// followers are killed and the leader acknowledges acks=all writes alone
// for half a second; then its power is cut. Back, it is elected again (the
// last leader) without them. Only the producer can tell: every
// acknowledged record missing from the log must be reported through
// OnDataLoss and no report may cover one that is there; every other
// record is in the log once, in order, at its offset, and production goes
// on.
func TestConformance26LoneLeaderPowerCut(t *testing.T) {
	world(t, loneLeaderPowerCut)
}

func loneLeaderPowerCut(t *testing.T) {
	r := startT(t, cfg{partitions: 3})
	ctx := context.Background()
	r.produceTo(ctx, "warm", 30, one(0))
	r.check(t, r.wait(20*time.Second), "warm-up")

	stopLoad := r.steadyLoad(ctx, 5, func(int) int32 { return 0 })
	time.Sleep(300 * time.Millisecond)
	leader, followers := r.followers(t, 0)
	for _, f := range followers {
		if err := r.c.KillProcess(f); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(500 * time.Millisecond)
	_, alone, err := r.c.HighWatermark(topic, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.c.CutPower(leader); err != nil {
		t.Fatal(err)
	}
	stopLoad()
	time.Sleep(200 * time.Millisecond)
	if err := r.c.StartBroker(leader); err != nil {
		t.Fatal(err)
	}
	if l, _ := r.c.Leader(topic, 0); l != leader {
		t.Fatalf("leader %d once the last leader %d is back; Kafka elects it (last known leader)", l, leader)
	}
	_, kept, err := r.c.HighWatermark(topic, 0)
	if err != nil {
		t.Fatal(err)
	}
	r.check(t, r.goesOn("after", 100), "after the power cut")
	for _, f := range followers {
		if err := r.c.StartBroker(f); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := r.verify()
	r.check(t, err, "read-back")
	r.mu.Lock()
	losses := r.losses
	r.mu.Unlock()
	t.Logf("the leader %d held offsets up to %d alone, kept %d after the power cut; %d acknowledged records lost, reported: %v", leader, alone, kept, len(rep.LostIDs), losses)
	if kept >= alone || len(rep.LostIDs) == 0 || len(losses) == 0 {
		t.Fatal("no acknowledged record lost with the power cut: the scenario was not played")
	}
}
