package kafka_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/confluent/kafka"
	"github.com/rollsafe/rollsafe/sim"
)

// TestSendOffsetsToTransaction: the offsets a transaction sends are the
// group's committed offsets once it commits and are dropped when it
// aborts (the sim's group coordinator, Cluster.CommittedOffsets); logical
// offsets are ignored; a call without group metadata is an invalid
// argument, and one outside a transaction ErrState.
func TestSendOffsetsToTransaction(t *testing.T) {
	c := newCluster(t, 1, sim.Topic("in", 3, 3), sim.Topic("out", 3, 3))
	p := newProducer(t, c, kafka.ConfigMap{"transactional.id": "tx-offsets"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	in, out := "in", "out"
	group, err := kafka.NewTestConsumerGroupMetadata("copier")
	require.NoError(t, err)
	offsets := func(at int64) []kafka.TopicPartition {
		return []kafka.TopicPartition{
			{Topic: &in, Partition: 0, Offset: kafka.Offset(at)},
			{Topic: &in, Partition: 1, Offset: kafka.Offset(at + 1)},
			{Topic: &in, Partition: 2, Offset: kafka.OffsetEnd}, // logical: ignored
		}
	}
	require.Equal(t, kafka.ErrState, kafkaError(t, p.SendOffsetsToTransaction(ctx, offsets(1), group)).Code(), "before InitTransactions")
	require.NoError(t, p.InitTransactions(ctx))
	require.Equal(t, kafka.ErrState, kafkaError(t, p.SendOffsetsToTransaction(ctx, offsets(1), group)).Code(), "without a transaction")

	require.NoError(t, p.BeginTransaction())
	require.Equal(t, kafka.ErrInvalidArg, kafkaError(t, p.SendOffsetsToTransaction(ctx, offsets(1), nil)).Code())
	require.Equal(t, kafka.ErrInvalidArg, kafkaError(t, p.SendOffsetsToTransaction(ctx, []kafka.TopicPartition{{Partition: 0, Offset: 1}}, group)).Code())
	require.NoError(t, p.SendOffsetsToTransaction(ctx, []kafka.TopicPartition{{Topic: &in, Offset: kafka.OffsetInvalid}}, group), "nothing valid: nothing to do")
	ch := make(chan kafka.Event, 10)
	produceN(t, p, out, 3, ch)
	require.NoError(t, p.SendOffsetsToTransaction(ctx, offsets(10), group))
	require.NoError(t, p.CommitTransaction(ctx))
	require.Eventually(t, func() bool {
		return len(c.CommittedOffsets("copier")["in"]) == 2
	}, 10*time.Second, 5*time.Millisecond, "the committed transaction's offsets")
	require.Equal(t, map[int32]int64{0: 10, 1: 11}, c.CommittedOffsets("copier")["in"])

	require.NoError(t, p.BeginTransaction())
	produceN(t, p, out, 3, ch)
	require.NoError(t, p.SendOffsetsToTransaction(ctx, offsets(20), group))
	require.NoError(t, p.AbortTransaction(ctx))
	require.NoError(t, p.BeginTransaction())
	require.NoError(t, p.CommitTransaction(ctx)) // an empty transaction: the markers of the abort are written by now
	require.Equal(t, map[int32]int64{0: 10, 1: 11}, c.CommittedOffsets("copier")["in"], "an aborted transaction's offsets are dropped")
}

// A commit refused because SendOffsetsToTransaction is still under way
// (ErrConflict, retriable) leaves the transaction open, as librdkafka
// does: Produce goes on into it, and the next commit commits it.
func TestCommitConflictKeepsTheTransactionOpen(t *testing.T) {
	c := newCluster(t, 1, sim.Topic("in", 1, 3))
	p := newProducer(t, c, kafka.ConfigMap{"transactional.id": "tx-conflict-open"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	in := "in"
	group, err := kafka.NewTestConsumerGroupMetadata("copier")
	require.NoError(t, err)
	offsets := []kafka.TopicPartition{{Topic: &in, Partition: 0, Offset: 3}}
	require.NoError(t, p.InitTransactions(ctx))
	require.NoError(t, p.BeginTransaction())
	coord := c.TransactionCoordinator("tx-conflict-open")
	require.NoError(t, c.FreezeBroker(coord)) // AddOffsetsToTxn waits
	short, cancelShort := context.WithTimeout(ctx, 100*time.Millisecond)
	require.Equal(t, kafka.ErrTimedOut, kafkaError(t, p.SendOffsetsToTransaction(short, offsets, group)).Code())
	cancelShort()
	ke := kafkaError(t, p.CommitTransaction(ctx))
	require.Equal(t, kafka.ErrConflict, ke.Code(), "%v", ke)
	ch := make(chan kafka.Event, 3)
	produceN(t, p, "t", 3, ch) // still inside the transaction: no ErrState
	require.NoError(t, c.ThawBroker(coord))
	require.NoError(t, p.SendOffsetsToTransaction(ctx, offsets, group), "the same call's outcome")
	require.NoError(t, p.CommitTransaction(ctx))
	for range 3 {
		m := (<-ch).(*kafka.Message)
		require.NoError(t, m.TopicPartition.Error)
	}
	require.Eventually(t, func() bool { return c.CommittedOffsets("copier")["in"][0] == 3 }, 10*time.Second, 5*time.Millisecond)
}
