package kafkatest

import (
	"context"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/internal/kafkacheck"
	"github.com/rollsafe/rollsafe/protocol"
)

// txnAbortCheck is the cluster's
// transaction.abort.timed.out.transaction.cleanup.interval.ms (Kafka's
// default is 10 s): how soon a transaction past its timeout is aborted.
const txnAbortCheck = time.Second

// testTransactions runs kafkacheck.Transactions, which the sim runs too
// (sim.TestKafkaTransactions): a transactional producer's requests at
// transactions v1's versions, fencing, a timeout and read_committed reads.
func testTransactions(t *testing.T, ctx context.Context, c *Cluster) {
	restoreNodes(t, ctx, c)
	healthyTopic(t, ctx, c, Topic{Name: "txn", Partitions: 2})
	dial := func(ctx context.Context, id int32, caps map[int16]int16) (*protocol.Conn, error) {
		return protocol.Dial(ctx, c.DirectAddr(id), protocol.ConnConfig{MaxVersions: caps})
	}
	if err := kafkacheck.Transactions(ctx, dial, "txn", txnAbortCheck); err != nil {
		t.Fatal(err)
	}
}

// testTransactionsV2 runs kafkacheck.TransactionsV2, which the sim runs
// too (sim.TestKafkaTransactionsV2): a transactions v2 producer's
// requests (KIP-890 part 2, the cluster's transaction.version 2).
func testTransactionsV2(t *testing.T, ctx context.Context, c *Cluster) {
	restoreNodes(t, ctx, c)
	healthyTopic(t, ctx, c, Topic{Name: "txn-v2", Partitions: 2})
	dial := func(ctx context.Context, id int32, caps map[int16]int16) (*protocol.Conn, error) {
		return protocol.Dial(ctx, c.DirectAddr(id), protocol.ConnConfig{MaxVersions: caps})
	}
	if err := kafkacheck.TransactionsV2(ctx, dial, "txn-v2", txnAbortCheck); err != nil {
		t.Fatal(err)
	}
}
