package conformance

import (
	"context"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/kafkatest"
)

const parts = 6

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// leaderOf returns the leader of topic's partition, failing t if none.
func leaderOf(t *testing.T, ctx context.Context, c *kafkatest.Cluster, topic string, p int32) int32 {
	t.Helper()
	l, err := c.Leader(ctx, topic, p)
	if err != nil || l < 0 {
		t.Fatalf("leader of %s[%d]: %d, %v", topic, p, l, err)
	}
	return l
}

// waitMoved waits until topic's partition p is led by a broker other than from.
func waitMoved(t *testing.T, ctx context.Context, c *kafkatest.Cluster, topic string, p, from int32) int32 {
	t.Helper()
	if err := c.WaitFor(ctx, topic, "led away from the faulted broker", func(q kafkatest.Partition) bool {
		return q.ID != p || (q.Leader >= 0 && q.Leader != from)
	}); err != nil {
		t.Fatal(err)
	}
	return leaderOf(t, ctx, c, topic, p)
}

// handBack restarts nothing: it waits for a full ISR and runs the
// preferred-leader election, then checks broker to leads p again.
func handBack(t *testing.T, ctx context.Context, c *kafkatest.Cluster, topic string, p, to int32) {
	t.Helper()
	if err := c.WaitHealthy(ctx, topic); err != nil {
		t.Fatal(err)
	}
	if err := c.ElectPreferredWait(ctx, topic); err != nil {
		t.Fatal(err)
	}
	if l := leaderOf(t, ctx, c, topic, p); l != to {
		t.Fatalf("after the preferred-leader election %s[%d] is led by %d, want %d", topic, p, l, to)
	}
}

// TestClean: no fault; the baseline every other scenario is measured against.
func TestClean(t *testing.T) { playClean(t, cluster(t, "clean"), "clean") }

func playClean(t *testing.T, c *kafkatest.Cluster, topic string) {
	newTopic(t, c, topic, parts, nil)
	l := newLoad(t, c, topic, parts, nil)
	l.run("clean")
	for p := range int32(parts) {
		l.awaitAcks(p, 200, time.Minute)
	}
	l.halt()
	l.verify()
}

// TestSeed is confluent-kafka-go#830's sequence on real brokers: under
// load the leader of a partition is stopped with a controlled shutdown
// (its leaderships move away), restarted, and a preferred-leader election
// hands leadership back to it.
func TestSeed(t *testing.T) { playSeed(t, cluster(t, "seed"), "seed") }

func playSeed(t *testing.T, c *kafkatest.Cluster, topic string) {
	newTopic(t, c, topic, parts, nil)
	ctx := ctxFor(t, 5*time.Minute)
	l := newLoad(t, c, topic, parts, nil)
	l.run("seed")
	l.awaitAcks(0, 150, time.Minute)

	victim := leaderOf(t, ctx, c, topic, 0)
	if err := c.Stop(ctx, victim); err != nil {
		t.Fatal(err)
	}
	if c.Running(victim) {
		t.Fatalf("broker %d still running after its controlled shutdown", victim)
	}
	now := waitMoved(t, ctx, c, topic, 0, victim)
	t.Logf("broker %d stopped; partition 0 now led by %d", victim, now)
	l.awaitAcks(0, 150, time.Minute)

	if err := c.Start(ctx, victim); err != nil {
		t.Fatal(err)
	}
	handBack(t, ctx, c, topic, 0, victim)
	t.Logf("broker %d restarted and leads partition 0 again", victim)
	l.awaitAcks(0, 150, time.Minute)
	l.halt()
	l.verify()
}

// TestKillLeader: the leader of a partition is killed with SIGKILL under
// load (no controlled shutdown), restarted, and takes leadership back.
func TestKillLeader(t *testing.T) { playKillLeader(t, cluster(t, "kill"), "kill") }

func playKillLeader(t *testing.T, c *kafkatest.Cluster, topic string) {
	newTopic(t, c, topic, parts, nil)
	ctx := ctxFor(t, 5*time.Minute)
	l := newLoad(t, c, topic, parts, nil)
	l.run("kill")
	l.awaitAcks(0, 150, time.Minute)

	victim := leaderOf(t, ctx, c, topic, 0)
	if err := c.Kill(victim); err != nil {
		t.Fatal(err)
	}
	if c.Running(victim) {
		t.Fatalf("broker %d still running after SIGKILL", victim)
	}
	now := waitMoved(t, ctx, c, topic, 0, victim)
	t.Logf("broker %d killed; partition 0 now led by %d", victim, now)
	l.awaitAcks(0, 150, time.Minute)

	if err := c.Start(ctx, victim); err != nil {
		t.Fatal(err)
	}
	handBack(t, ctx, c, topic, 0, victim)
	l.awaitAcks(0, 150, time.Minute)
	l.halt()
	l.verify()
}

// TestRollingRestarts: two full rolling restarts under load, each broker
// in turn stopped (controlled), restarted and handed its leaderships back.
func TestRollingRestarts(t *testing.T) { playRollingRestarts(t, cluster(t, "rolling"), "rolling") }

func playRollingRestarts(t *testing.T, c *kafkatest.Cluster, topic string) {
	newTopic(t, c, topic, parts, nil)
	ctx := ctxFor(t, 10*time.Minute)
	l := newLoad(t, c, topic, parts, nil)
	l.run("rolling")
	l.awaitAcks(0, 150, time.Minute)
	moves := 0
	for round := 1; round <= 2; round++ {
		for id := range int32(c.Brokers()) {
			before, err := c.Partitions(ctx, topic)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Stop(ctx, id); err != nil {
				t.Fatal(err)
			}
			if c.Running(id) {
				t.Fatalf("broker %d still running after its controlled shutdown", id)
			}
			for _, p := range before {
				if p.Leader == id {
					waitMoved(t, ctx, c, topic, p.ID, id)
					moves++
				}
			}
			if err := c.Start(ctx, id); err != nil {
				t.Fatal(err)
			}
			if err := c.WaitHealthy(ctx, topic); err != nil {
				t.Fatal(err)
			}
			if err := c.ElectPreferredWait(ctx, topic); err != nil {
				t.Fatal(err)
			}
			l.awaitAllAcks(50, time.Minute)
			t.Logf("round %d: broker %d restarted", round, id)
		}
	}
	if moves < 2*parts {
		t.Fatalf("only %d leadership moves in two rolls of %d partitions", moves, parts)
	}
	l.halt()
	l.verify()
}

// TestZombieLeader: the leader of a partition is frozen (SIGSTOP) longer
// than the producer's request timeout, so the controller fences it and
// elects another leader, then it is resumed and finds itself deposed.
func TestZombieLeader(t *testing.T) { playZombieLeader(t, cluster(t, "zombie"), "zombie") }

func playZombieLeader(t *testing.T, c *kafkatest.Cluster, topic string) {
	newTopic(t, c, topic, parts, nil)
	ctx := ctxFor(t, 5*time.Minute)
	const requestTimeout = 3 * time.Second
	l := newLoad(t, c, topic, parts, nil, client.RequestTimeout(requestTimeout))
	l.run("zombie")
	l.awaitAcks(0, 150, time.Minute)

	victim := leaderOf(t, ctx, c, topic, 0)
	if err := c.Pause(victim); err != nil {
		t.Fatal(err)
	}
	paused := time.Now()
	now := waitMoved(t, ctx, c, topic, 0, victim)
	t.Logf("broker %d paused; partition 0 led by %d after %v", victim, now, time.Since(paused).Round(time.Millisecond))
	l.awaitAcks(0, 150, time.Minute)
	if d := time.Since(paused); d < 3*requestTimeout {
		time.Sleep(3*requestTimeout - d)
	}
	if err := c.Resume(victim); err != nil {
		t.Fatal(err)
	}
	t.Logf("broker %d resumed after %v", victim, time.Since(paused).Round(time.Millisecond))
	handBack(t, ctx, c, topic, 0, victim)
	l.awaitAcks(0, 150, time.Minute)
	l.halt()
	l.verify()
}

// TestBlackhole: every client connection to the leader of a partition goes
// silent (the proxy holds the bytes) while the brokers keep replicating;
// then the partition heals and the held requests arrive late.
func TestBlackhole(t *testing.T) { playBlackhole(t, cluster(t, "blackhole"), "blackhole") }

func playBlackhole(t *testing.T, c *kafkatest.Cluster, topic string) {
	newTopic(t, c, topic, parts, nil)
	ctx := ctxFor(t, 5*time.Minute)
	const requestTimeout = 3 * time.Second
	l := newLoad(t, c, topic, parts, nil, client.RequestTimeout(requestTimeout))
	l.run("blackhole")
	l.awaitAcks(0, 150, time.Minute)

	victim := leaderOf(t, ctx, c, topic, 0)
	before := l.acked(0)
	c.Proxy(victim).Set(kafkatest.Blackhole, 0)
	time.Sleep(3 * requestTimeout)
	during := l.acked(0) - before
	c.Proxy(victim).Heal()
	if l := leaderOf(t, ctx, c, topic, 0); l != victim {
		t.Fatalf("leadership moved during a client-side blackhole (%d -> %d): the fault was not what it claims", victim, l)
	}
	// Acks arriving in the first moments can be for requests answered just
	// before the hole opened; after that, nothing may get through.
	if during > 2*perTick*200 {
		t.Fatalf("%d acknowledgements on partition 0 while its leader was blackholed", during)
	}
	t.Logf("broker %d blackholed %v (%d acks on partition 0 meanwhile), healed", victim, 3*requestTimeout, during)
	l.awaitAcks(0, 150, time.Minute)
	l.halt()
	l.verify()
}

// TestMessageTooLarge: a topic whose max.message.bytes is smaller than the
// producer's batches answers MESSAGE_TOO_LARGE; the producer splits the
// batches and every record lands, none failed back.
func TestMessageTooLarge(t *testing.T) { playMessageTooLarge(t, cluster(t, "toolarge"), "toolarge") }

func playMessageTooLarge(t *testing.T, c *kafkatest.Cluster, topic string) {
	const limit = 16 << 10
	newTopic(t, c, topic, 2, map[string]string{"max.message.bytes": "16384"})
	// 1 KB records that do not compress, a 10 ms linger: batches of tens
	// of KB, well over the limit, each record well under it.
	noise := make([]byte, 64<<10)
	for i := range noise {
		noise[i] = byte(i*7919 + i>>3)
	}
	pad := func(i int) []byte { off := (i * 1031) % (len(noise) - 1024); return noise[off : off+1024] }
	l := newLoad(t, c, topic, 2, pad, client.Linger(10*time.Millisecond), client.Compression(0, 0))
	l.run("toolarge")
	for p := range int32(2) {
		l.awaitAcks(p, 1000, time.Minute)
	}
	l.halt()
	l.verify()
	l.h.mu.Lock()
	biggest := l.h.maxSent
	l.h.mu.Unlock()
	if biggest <= limit {
		t.Fatalf("largest batch sent was %d bytes, not over max.message.bytes %d: MESSAGE_TOO_LARGE never happened", biggest, limit)
	}
}

// TestProducerIDExpiry: the brokers forget an idle producer id
// (producer.id.expiration.ms, checked every second in the test cluster);
// the producer then writes again with the forgotten id.
func TestProducerIDExpiry(t *testing.T) {
	const topic = "pidexpiry"
	c := cluster(t, topic)
	newTopic(t, c, topic, parts, nil)
	ctx := ctxFor(t, 5*time.Minute)
	if err := c.SetClusterConfig(ctx, "producer.id.expiration.ms", strPtr("2000")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := c.SetClusterConfig(ctx, "producer.id.expiration.ms", nil); err != nil {
			t.Errorf("restore producer.id.expiration.ms: %v", err)
		}
	})
	l := newLoad(t, c, topic, parts, nil)
	l.run("before")
	l.awaitAllAcks(100, time.Minute)
	l.halt()
	if err := l.p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	active, err := c.ActiveProducers(ctx, topic, 0)
	if err != nil || len(active) == 0 {
		t.Fatalf("no active producer on partition 0 after producing: %v, %v", active, err)
	}
	idleFrom := time.Now()
	for {
		active, err = c.ActiveProducers(ctx, topic, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(active) == 0 {
			break
		}
		if time.Since(idleFrom) > time.Minute {
			t.Fatalf("producer ids %v still active after 1m idle with producer.id.expiration.ms=2000", active)
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("producer id expired after %v idle", time.Since(idleFrom).Round(time.Millisecond))
	began := l.began
	l.run("after")
	l.began = began
	l.awaitAllAcks(100, time.Minute)
	l.halt()
	l.verify()
}

func strPtr(s string) *string { return &s }
