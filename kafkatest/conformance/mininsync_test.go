package conformance

import (
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/kafkatest"
)

// TestMinInsyncOutage: a topic on three replicas with
// min.insync.replicas=3 loses one broker (controlled shutdown) under load,
// for three times the producer's request timeout. Every partition is left
// with two replicas in sync. The batches its leader appended just before
// wait above a high watermark that does not move (KIP-966) until their
// requests time out, outcome unknown; their retries, and every batch sent
// after, are answered NOT_ENOUGH_REPLICAS before anything is appended
// (kafkacheck.MinInsync and PendingBatch show both on Kafka 4.4). Nothing
// may be acknowledged while the outage lasts, every partition must be
// retried (the outage met), and nothing may fail back to the application.
// Once the broker is back in sync every record is acknowledged, and the
// log holds each exactly once — the appended batches' retries answered as
// duplicates, not written twice —, in order, at its reported offset.
func TestMinInsyncOutage(t *testing.T) { playMinInsyncOutage(t, cluster(t, "mininsync"), "mininsync") }

func playMinInsyncOutage(t *testing.T, c *kafkatest.Cluster, topic string) {
	const requestTimeout = 3 * time.Second
	const hold = 3 * requestTimeout
	newTopic(t, c, topic, parts, map[string]string{"min.insync.replicas": "3"})
	ctx := ctxFor(t, 5*time.Minute)
	l := newLoad(t, c, topic, parts, nil, client.RequestTimeout(requestTimeout))
	l.run("mininsync")
	l.awaitAllAcks(100, time.Minute)

	victim := leaderOf(t, ctx, c, topic, 0)
	if err := c.Stop(ctx, victim); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitFor(ctx, topic, "two replicas in sync", func(p kafkatest.Partition) bool {
		return p.Leader >= 0 && p.Leader != victim && len(p.ISR) == 2
	}); err != nil {
		t.Fatal(err)
	}
	// Answers to requests sent before the ISR shrank may still arrive in
	// the first moments; after that nothing can be acknowledged.
	time.Sleep(time.Second)
	ackedBefore, retriedBefore := l.ackedAll(), l.h.retried()
	time.Sleep(hold)
	ackedDuring, retriedAfter := l.ackedAll()-ackedBefore, l.h.retried()
	t.Logf("broker %d stopped: %d acknowledgements in %v with two of three replicas in sync; batches retried by partition before %v, after %v",
		victim, ackedDuring, hold, retriedBefore, retriedAfter)
	if ackedDuring != 0 {
		t.Errorf("%d records acknowledged while every partition had fewer in-sync replicas than min.insync.replicas", ackedDuring)
	}
	for p := range int32(parts) {
		if retriedAfter[p] == retriedBefore[p] {
			t.Errorf("partition %d: no batch retried in %v of the outage: the outage was not met", p, hold)
		}
	}
	if err := c.Start(ctx, victim); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitHealthy(ctx, topic); err != nil {
		t.Fatal(err)
	}
	l.awaitAllAcks(100, time.Minute)
	l.halt()
	l.verify()
}
