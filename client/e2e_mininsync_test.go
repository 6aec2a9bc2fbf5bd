package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/sim"
)

// TestMinInsyncOutage: with min.insync.replicas=2 on three replicas, two
// brokers stop mid-run, so every partition has one replica in sync and its
// leader answers acks=all NOT_ENOUGH_REPLICAS (kafkacheck.MinInsync proves
// the sim does as Kafka 4.4). The producer keeps the records and retries
// without an error reaching the caller; once the brokers are back and in
// sync every record is acknowledged, and the log holds each exactly once,
// in order, at its reported offset.
func TestMinInsyncOutage(t *testing.T) {
	c := newCluster(t, 4, sim.MinInsyncReplicas("t", 2))
	p := newProducer(t, c)
	r := newRun()
	ctx := context.Background()
	r.produce(ctx, t, p, "t", "before", 2000, 32)
	require.NoError(t, p.Flush(ctx))
	require.NoError(t, c.StopBroker(1))
	require.NoError(t, c.StopBroker(2))
	r.produce(ctx, t, p, "t", "during", 2000, 32)
	deadline := time.Now().Add(10 * time.Second)
	refused := 0
	for refused == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		for _, pr := range c.Recorder().Produces() {
			if pr.ErrorCode == 19 { // NOT_ENOUGH_REPLICAS
				refused++
			}
		}
	}
	require.NotZero(t, refused, "no produce answered NOT_ENOUGH_REPLICAS while one replica was in sync")
	time.Sleep(200 * time.Millisecond) // more retries meet the outage
	require.NoError(t, c.StartBroker(1))
	require.NoError(t, c.StartBroker(2))
	r.produce(ctx, t, p, "t", "after", 2000, 32)
	require.NoError(t, p.Flush(ctx))
	rep := r.verify(t, c, "t")
	require.Empty(t, r.errs)
	t.Logf("%d produces answered NOT_ENOUGH_REPLICAS; %s", refused, rep)
}
