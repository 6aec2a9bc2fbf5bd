package kafkatest

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/protocol"
)

// testProducerLastLeaderBack plays kafkacheck.ELRElection's both-crashed
// faults under rollsafe's producer, on Kafka: a partition of two replicas
// with min.insync.replicas=2 takes records at a steady rate; its follower
// is killed (kill -9), so the batches its leader appends until the
// controller shrinks the ISR wait above a high watermark that no longer
// moves, and those after are refused NOT_ENOUGH_REPLICAS; then the leader
// is killed too, its requests unanswered. The follower comes back first,
// crashed, so not eligible: no leader. Then the last leader, elected with
// the log its page cache kept — the batches whose outcome the producer
// could not know among it. Every record must be acknowledged and be in
// the log once, in order, at its reported offset.
func testProducerLastLeaderBack(t *testing.T, ctx context.Context, c *Cluster) {
	restoreNodes(t, ctx, c)
	const topic = "elr-producer"
	r := healthyTopic(t, ctx, c, Topic{Name: topic, Replication: 2, Configs: map[string]string{"min.insync.replicas": "2"}})
	leader, follower := leaderAndInSync(t, ctx, r)
	var hmu sync.Mutex
	var tailReads, bumps, timedOut int
	failures := map[string]int{}
	hooks := client.Hooks{
		TailRead:    func(string, int32, int64) { hmu.Lock(); tailReads++; hmu.Unlock() },
		EpochBumped: func(string, int32, int64, int16) { hmu.Lock(); bumps++; hmu.Unlock() },
		AttemptFailed: func(_ string, _ int32, _ int32, _ int, err error) {
			hmu.Lock()
			failures[shortErr(err)]++
			if errors.Is(err, protocol.ErrRequestTimedOut) {
				timedOut++ // appended, waiting above the held high watermark
			}
			hmu.Unlock()
		},
	}
	p := newLoadProducer(t, c, client.WithHooks(hooks))

	l := &steadyLoad{p: p, topic: topic, prefix: "r"}
	stopLoad := l.run(t, ctx) // stopped before the producer closes, should the test end early
	l.waitAcked(t, 200, "before any fault")
	if err := c.Kill(follower); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitFor(ctx, topic, "the follower out of the ISR", func(p Partition) bool {
		return p.Leader == leader && slices.Equal(p.ISR, []int32{leader})
	}); err != nil {
		t.Fatal(err)
	}
	// The batches appended since the follower died wait above the held
	// high watermark until their requests time out (REQUEST_TIMED_OUT);
	// the leader is killed once the producer has seen one do so.
	timedOutNow := func() int {
		hmu.Lock()
		defer hmu.Unlock()
		return timedOut
	}
	for deadline := time.Now().Add(20 * time.Second); timedOutNow() == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no attempt answered REQUEST_TIMED_OUT in 20 s with the follower gone: no batch waited above the high watermark")
		}
	}
	time.Sleep(500 * time.Millisecond) // new batches refused NOT_ENOUGH_REPLICAS meanwhile
	ackedAtKill := l.ackedNow()
	if err := c.Kill(leader); err != nil {
		t.Fatal(err)
	}
	stopLoad()
	if err := c.WaitFor(ctx, topic, "no leader", func(p Partition) bool { return p.Leader < 0 }); err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx, follower); err != nil {
		t.Fatal(err)
	}
	settle, cancel := context.WithTimeout(ctx, 10*time.Second)
	err := c.WaitFor(settle, topic, "a leader", func(p Partition) bool { return p.Leader >= 0 })
	cancel()
	if err == nil {
		t.Fatalf("a leader was elected with only the crashed follower %d back; Kafka waits for the last leader %d", follower, leader)
	}
	if err := c.Start(ctx, leader); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitFor(ctx, topic, "the last leader elected", func(p Partition) bool { return p.Leader == leader }); err != nil {
		t.Fatal(err)
	}
	fctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	err = p.Flush(fctx)
	cancel()
	if err != nil {
		t.Fatalf("flush after the last leader came back: %v", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	sent := len(l.produced)
	if len(l.failed) > 0 || l.acked != sent {
		t.Fatalf("%d of %d records acknowledged, %d failed: %v", l.acked, sent, len(l.failed), l.failed[:min(len(l.failed), 3)])
	}
	log, err := readback.ReadTopic(ctx, c.Addrs(), topic)
	if err != nil {
		t.Fatal(err)
	}
	rep := readback.Check(log, l.produced, func(rec readback.Record) string { return string(rec.Value) })
	hmu.Lock()
	defer hmu.Unlock()
	t.Logf("%d records, %d acknowledged before the leader %d was killed; log: %v; tail reads %d, epoch bumps %d, failed attempts %v",
		sent, ackedAtKill, leader, rep, tailReads, bumps, failures)
	if !rep.OK() || rep.InLog != sent {
		t.Fatalf("read back: %v %v", rep, rep.Problems)
	}
}

// shortErr is err's first 60 bytes, to count failed attempts by kind.
func shortErr(err error) string {
	s := err.Error()
	return s[:min(len(s), 60)]
}
