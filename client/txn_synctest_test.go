package client_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/protocol"
	"github.com/rollsafe/rollsafe/sim"
	"github.com/rollsafe/rollsafe/sim/memnet"
)

// A transactional producer runs inside a synctest bubble (its coordinator
// requests take their turns like the other background goroutines'): a
// commit and an abort, read back as read_committed.
func TestTxnInSyncTestBubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mn := memnet.New(3, memnet.Latency(20*time.Microsecond, 200*time.Microsecond))
		c := newCluster(t, 4, sim.Network(mn))
		p, err := client.NewProducer(client.Brokers(c.Addrs()...), client.Dialer(mn.Dial), client.SyncTest(synctest.Wait),
			client.TransactionalID("tx-bubble"))
		require.NoError(t, err)
		t.Cleanup(func() { _ = p.Close(context.Background()) })
		ctx := context.Background()
		require.NoError(t, p.InitTransactions(ctx))

		require.NoError(t, p.BeginTransaction())
		kept := newRun()
		kept.produce(ctx, t, p, "t", "keep", 50, 10)
		require.NoError(t, p.CommitTransaction(ctx))

		require.NoError(t, p.BeginTransaction())
		dropped := newRun()
		dropped.produce(ctx, t, p, "t", "drop", 50, 10)
		require.NoError(t, p.AbortTransaction(ctx))
		dropped.wg.Wait()
		require.Len(t, dropped.errs, 50)
		waitTxnEnded(t, c, "tx-bubble")

		raw, err := readback.ReadTopicConn(ctx, c.Addrs(), "t", protocol.ConnConfig{Dial: mn.Dial})
		require.NoError(t, err)
		log := readback.Committed(raw)
		kept.mu.Lock()
		rep := readback.Check(log, kept.produced, func(r readback.Record) string { return string(r.Value) })
		kept.mu.Unlock()
		require.True(t, rep.OK(), "%s\n%s", rep, strings.Join(rep.Problems, "\n"))
		for _, recs := range log {
			for _, r := range recs {
				require.False(t, strings.HasPrefix(string(r.Value), "drop-"), "aborted %s visible", r.Value)
			}
		}
	})
}
