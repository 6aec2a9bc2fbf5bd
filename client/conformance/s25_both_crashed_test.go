package conformance

import (
	"context"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/sim"
)

// TestConformance25LastLeaderBack: every replica of a partition crashes
// and its last leader is elected again, as Kafka 4.4 does when no replica
// is eligible (kafkacheck.ELRElection, both-crashed, checks the broker's
// side on Kafka). Partition 0 of three (replication 3,
// min.insync.replicas=2) takes a steady load while each follower copies a
// batch 300 ms after its leader appended it. One follower is killed, then
// the other: one replica in sync, so the batches the leader appended in
// the last 300 ms wait above a high watermark that does not move, and
// every new batch is refused NOT_ENOUGH_REPLICAS. Then the leader is
// killed too, its in-flight requests unanswered: those batches' outcome is
// unknown. The followers come back first — crashed, so not eligible —,
// then the last leader, elected with whatever its log kept:
//
//   - process (kill -9, sim.KillProcess): the page cache survives and the
//     appended batches with it; once the followers copy them they commit,
//     and their retries must be answered as duplicates, not written again;
//   - host (a power cut, sim.KillBroker): the appended batches are gone,
//     and their retries are written anew.
//
// Either way every record must be acknowledged and be in the log once, in
// order, at its reported offset.
func TestConformance25LastLeaderBack(t *testing.T) {
	for _, mode := range []string{"process", "host"} {
		t.Run(mode, func(t *testing.T) {
			world(t, func(t *testing.T) { lastLeaderBack(t, mode) })
		})
	}
}

func lastLeaderBack(t *testing.T, mode string) {
	r := startT(t, cfg{partitions: 3, sim: []sim.Option{sim.MinInsyncReplicas(topic, 2), sim.FollowerLag(300 * time.Millisecond)}})
	kill := r.c.KillProcess
	if mode == "host" {
		kill = r.c.KillBroker
	}
	ctx := context.Background()
	r.produceTo(ctx, "warm", 30, one(0))
	r.check(t, r.wait(20*time.Second), "warm-up")

	stopLoad := r.steadyLoad(ctx, 5, func(int) int32 { return 0 })
	time.Sleep(time.Second)
	leader, followers := r.followers(t, 0)
	for _, f := range followers {
		if err := kill(f); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(100 * time.Millisecond)
	pending := r.aboveHW(t, 0)
	if err := kill(leader); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	stopLoad()
	time.Sleep(500 * time.Millisecond)
	for _, f := range followers {
		if err := r.c.StartBroker(f); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(500 * time.Millisecond)
	if l, _ := r.c.Leader(topic, 0); l >= 0 {
		t.Fatalf("broker %d elected, back from a crash while broker %d, the last leader, is down; Kafka elects nobody", l, leader)
	}
	if err := r.c.StartBroker(leader); err != nil {
		t.Fatal(err)
	}
	if l, _ := r.c.Leader(topic, 0); l != leader {
		t.Fatalf("leader %d once the last leader %d is back; Kafka elects it (last known leader)", l, leader)
	}
	r.check(t, r.wait(30*time.Second), "acknowledgements")
	_, err := r.verify()
	r.check(t, err, "read-back")

	dups := r.count(0, func(pr sim.ProduceRecord) bool { return pr.Duplicate && pr.Time.After(killed) })
	t.Logf("%s crash: %d records above the high watermark when the leader %d was killed; %d retries answered as duplicates after", mode, pending, leader, dups)
	if pending == 0 {
		t.Fatal("no batch waited above the high watermark when the leader was killed: the scenario was not played")
	}
	if mode == "process" && dups == 0 {
		t.Fatal("no retry answered as a duplicate: the batches the killed leader kept were written again or never retried")
	}
	if mode == "host" && dups > 0 {
		t.Fatalf("%d retries answered as duplicates after the leader lost its unreplicated tail", dups)
	}
	r.check(t, r.goesOn("after", 100), "after the crash")
}

// aboveHW returns how many records partition p's leader holds above its
// high watermark.
func (r *rig) aboveHW(t *testing.T, p int32) int64 {
	t.Helper()
	hw, leo, err := r.c.HighWatermark(topic, p)
	if err != nil {
		t.Fatal(err)
	}
	return leo - hw
}
