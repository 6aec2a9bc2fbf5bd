package kafkatest

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/client/readback"
)

// testProducerPowerCut is sim.CutPower on Kafka, under rollsafe's
// producer: a partition of two replicas with min.insync.replicas=1 takes
// records at a steady rate; its follower is killed and the ISR shrinks to
// the leader, which goes on acknowledging acks=all writes alone; then the
// leader's host loses power with those writes in its page cache (kill -9,
// and its log cut back to where the follower's ends: CutLog). Back, the
// leader is elected again (the last leader) without them. Kafka cannot
// know; the producer can, from its acknowledged offsets and the log: every
// acknowledged record missing must be one OnDataLoss reported, each report
// covering only missing ones, and every other record must be in the log
// once, in order, at its offset.
func testProducerPowerCut(t *testing.T, ctx context.Context, c *Cluster) {
	restoreNodes(t, ctx, c)
	const topic = "power-cut"
	r := healthyTopic(t, ctx, c, Topic{Name: topic, Replication: 2, Configs: map[string]string{"min.insync.replicas": "1"}})
	leader, follower := leaderAndInSync(t, ctx, r)
	var lmu sync.Mutex
	var losses []client.DataLoss
	p := newLoadProducer(t, c, client.OnDataLoss(func(d client.DataLoss) { lmu.Lock(); losses = append(losses, d); lmu.Unlock() }))
	l := &steadyLoad{p: p, topic: topic, prefix: "p"}
	stopLoad := l.run(t, ctx)
	l.waitAcked(t, 200, "before any fault")
	if err := c.Kill(follower); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitFor(ctx, topic, "the follower out of the ISR", func(p Partition) bool {
		return p.Leader == leader && slices.Equal(p.ISR, []int32{leader})
	}); err != nil {
		t.Fatal(err)
	}
	l.waitAcked(t, l.ackedNow()+300, "from the leader alone in the ISR")
	if err := c.Kill(leader); err != nil {
		t.Fatal(err)
	}
	stopLoad()
	if err := c.WaitFor(ctx, topic, "no leader", func(p Partition) bool { return p.Leader < 0 }); err != nil {
		t.Fatal(err)
	}
	kept, err := c.LogEnd(follower, topic, 0)
	if err != nil {
		t.Fatal(err)
	}
	from, to, err := c.CutLog(leader, topic, 0, kept)
	if err != nil {
		t.Fatal(err)
	}
	if to <= from {
		t.Fatalf("the leader's log ends at %d, the follower's at %d: nothing written by the leader alone", to, kept)
	}
	if err := c.Start(ctx, leader); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitFor(ctx, topic, "the last leader elected", func(p Partition) bool { return p.Leader == leader }); err != nil {
		t.Fatal(err)
	}
	// The producer writes on to the leader that lost its tail, then the
	// follower returns.
	stopAgain := l.run(t, ctx)
	l.waitAcked(t, l.ackedNow()+200, "after the power cut")
	stopAgain()
	if err := c.Start(ctx, follower); err != nil {
		t.Fatal(err)
	}
	fctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	err = p.Flush(fctx)
	cancel()
	if err != nil {
		t.Fatalf("flush: %v", err)
	}
	log, err := readback.ReadTopic(ctx, c.Addrs(), topic)
	if err != nil {
		t.Fatal(err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	produced, failed := l.produced, l.failed
	lmu.Lock()
	defer lmu.Unlock()
	rep := readback.Check(log, produced, func(rec readback.Record) string { return string(rec.Value) })
	t.Logf("%d records, %d acknowledged; offsets %d-%d cut from the leader %d; read back: %v; data loss reported: %v; failed: %d",
		len(produced), l.acked, from, to-1, leader, rep, losses, len(failed))
	if len(failed) > 0 {
		t.Fatalf("%d records failed: %v", len(failed), failed[:min(len(failed), 3)])
	}
	if rep.Duplicates+rep.Reordered+rep.WrongOffset+rep.FailedPresent > 0 {
		t.Fatalf("read back: %v %v", rep, rep.Problems)
	}
	if len(rep.LostIDs) == 0 {
		t.Fatalf("no acknowledged record lost with offsets %d-%d cut: the fault did not happen", from, to-1)
	}
	lost := map[int64]bool{}
	for _, id := range rep.LostIDs {
		i := slices.IndexFunc(produced, func(pr readback.Produced) bool { return pr.ID == id })
		lost[produced[i].Offset] = true
	}
	for off := range lost {
		if !slices.ContainsFunc(losses, func(d client.DataLoss) bool { return off >= d.FromOffset && off <= d.ToOffset }) {
			t.Errorf("acknowledged record at offset %d lost and not reported (reports %v)", off, losses)
		}
	}
	for _, d := range losses {
		if !lost[d.FromOffset] || !lost[d.ToOffset] {
			t.Errorf("report %v: its first and last offsets must be lost acknowledged records", d)
		}
	}
}
