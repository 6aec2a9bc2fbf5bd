package client_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/kafkaerr"
	"github.com/rollsafe/rollsafe/sim"
)

// simple is a group without membership (GenerationID -1).
var simple = client.GroupMetadata{GroupID: "g", GenerationID: -1}

func offs(pairs ...int64) []client.TxnOffset {
	var o []client.TxnOffset
	for i := 0; i < len(pairs); i += 2 {
		o = append(o, client.TxnOffset{Topic: "t", Partition: int32(pairs[i]), Offset: pairs[i+1], LeaderEpoch: -1})
	}
	return o
}

// groupCoordinatorOf returns the broker that answered the last
// TxnOffsetCommit with success.
func groupCoordinatorOf(t *testing.T, c *sim.Cluster) int32 {
	t.Helper()
	b := int32(-1)
	for _, ex := range c.Recorder().Exchanges() {
		if r, ok := ex.Response.(*kmsg.TxnOffsetCommitResponse); ok && len(r.Topics) > 0 && r.Topics[0].Partitions[0].ErrorCode == int16(kafkaerr.None) {
			b = ex.Broker
		}
	}
	require.GreaterOrEqual(t, b, int32(0), "no TxnOffsetCommit answered")
	return b
}

// Offsets sent in a transaction are the group's once it commits, and
// dropped when it aborts.
func TestTxnOffsetsCommittedWithTransactionDroppedOnAbort(t *testing.T) {
	c := newCluster(t, 2)
	p := txnProducer(t, c, "tx-offsets")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	require.NoError(t, p.InitTransactions(ctx))

	require.NoError(t, p.BeginTransaction())
	r := newRun()
	r.produce(ctx, t, p, "t", "o", 10, 2)
	require.NoError(t, p.SendOffsetsToTransaction(ctx, simple, offs(0, 5, 1, 7)))
	require.Empty(t, c.CommittedOffsets("g"), "pending until the transaction commits")
	require.NoError(t, p.CommitTransaction(ctx))
	r.wg.Wait()
	waitTxnEnded(t, c, "tx-offsets")
	require.Equal(t, map[string]map[int32]int64{"t": {0: 5, 1: 7}}, c.CommittedOffsets("g"))
	checkCommitted(t, c, "t", r)

	// Offsets alone make a transaction.
	require.NoError(t, p.BeginTransaction())
	require.NoError(t, p.SendOffsetsToTransaction(ctx, simple, offs(0, 9)))
	require.NoError(t, p.AbortTransaction(ctx))
	waitTxnEnded(t, c, "tx-offsets")
	require.Equal(t, map[string]map[int32]int64{"t": {0: 5, 1: 7}}, c.CommittedOffsets("g"), "the aborted transaction's offsets dropped")

	require.NoError(t, p.BeginTransaction())
	require.NoError(t, p.SendOffsetsToTransaction(ctx, simple, offs(0, 11)))
	require.NoError(t, p.CommitTransaction(ctx))
	waitTxnEnded(t, c, "tx-offsets")
	require.Equal(t, map[string]map[int32]int64{"t": {0: 11, 1: 7}}, c.CommittedOffsets("g"))
}

// Offsets naming a generation the group does not have are refused: the
// transaction must abort, and the next one goes on.
func TestTxnOffsetsGenerationRefusedAbortable(t *testing.T) {
	c := newCluster(t, 2)
	p := txnProducer(t, c, "tx-gen")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	require.NoError(t, p.InitTransactions(ctx))
	require.NoError(t, p.BeginTransaction())
	r := newRun()
	r.produce(ctx, t, p, "t", "gen", 6, 2)
	err := p.SendOffsetsToTransaction(ctx, client.GroupMetadata{GroupID: "g", GenerationID: 3, MemberID: "m-1"}, offs(0, 5))
	require.ErrorIs(t, err, client.ErrTxnAbortable)
	require.Contains(t, err.Error(), "ILLEGAL_GENERATION")
	require.ErrorIs(t, p.CommitTransaction(ctx), client.ErrTxnAbortable)
	require.NoError(t, p.AbortTransaction(ctx))
	r.wg.Wait()
	for _, e := range r.errs {
		// Aborted, or refused once the transaction had to abort.
		require.True(t, errors.Is(e, client.ErrAborted) || errors.Is(e, client.ErrTxnState) && errors.Is(e, client.ErrNotWritten), "%v", e)
	}
	require.Empty(t, c.CommittedOffsets("g"))

	require.NoError(t, p.BeginTransaction())
	next := newRun()
	next.produce(ctx, t, p, "t", "next", 6, 2)
	require.NoError(t, p.SendOffsetsToTransaction(ctx, simple, offs(0, 5)))
	require.NoError(t, p.CommitTransaction(ctx))
	next.wg.Wait()
	waitTxnEnded(t, c, "tx-gen")
	require.Equal(t, map[string]map[int32]int64{"t": {0: 5}}, c.CommittedOffsets("g"))
	checkCommitted(t, c, "t", next)
}

// The group's coordinator moves between two transactions: the
// TxnOffsetCommit answered NOT_COORDINATOR goes to the one looked up
// again.
func TestTxnOffsetsCoordinatorMoveRetried(t *testing.T) {
	c := newCluster(t, 2)
	p := txnProducer(t, c, "tx-gmove")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, p.InitTransactions(ctx))
	require.NoError(t, p.BeginTransaction())
	require.NoError(t, p.SendOffsetsToTransaction(ctx, simple, offs(0, 1)))
	require.NoError(t, p.CommitTransaction(ctx))
	waitTxnEnded(t, c, "tx-gmove")
	old := groupCoordinatorOf(t, c)

	require.Equal(t, c.GroupCoordinator("g"), old)
	// The controller fences the frozen coordinator, another is elected,
	// and the old one runs again, answering NOT_COORDINATOR.
	require.NoError(t, c.FreezeBroker(old))
	require.NoError(t, c.FenceBroker(old))
	require.NotEqual(t, old, c.GroupCoordinator("g"))
	require.NoError(t, c.ThawBroker(old))
	require.NoError(t, p.BeginTransaction())
	require.NoError(t, p.SendOffsetsToTransaction(ctx, simple, offs(0, 2)))
	require.NoError(t, p.CommitTransaction(ctx))
	waitTxnEnded(t, c, "tx-gmove")
	require.Equal(t, map[string]map[int32]int64{"t": {0: 2}}, c.CommittedOffsets("g"))
	require.NotEqual(t, old, groupCoordinatorOf(t, c))
	notCoord := false
	for _, ex := range c.Recorder().Exchanges() {
		if r, ok := ex.Response.(*kmsg.TxnOffsetCommitResponse); ok && ex.Broker == old && r.Topics[0].Partitions[0].ErrorCode == int16(kafkaerr.NotCoordinator) {
			notCoord = true
		}
	}
	require.True(t, notCoord, "TxnOffsetCommit went to the old coordinator and was answered NOT_COORDINATOR")
}

// A call whose context ended goes on; calling it again returns its
// outcome.
func TestTxnOffsetsRetriedAfterContextEnds(t *testing.T) {
	c := newCluster(t, 2)
	p := txnProducer(t, c, "tx-octx")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	require.NoError(t, p.InitTransactions(ctx))
	require.NoError(t, p.BeginTransaction())
	coord := c.TransactionCoordinator("tx-octx")
	require.NoError(t, c.FreezeBroker(coord))
	short, cancelShort := context.WithTimeout(ctx, 100*time.Millisecond)
	err := p.SendOffsetsToTransaction(short, simple, offs(0, 3))
	cancelShort()
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.ErrorIs(t, p.CommitTransaction(ctx), client.ErrTxnState, "not while the offsets are under way")
	require.NoError(t, c.ThawBroker(coord))
	require.NoError(t, p.SendOffsetsToTransaction(ctx, simple, offs(0, 3)), "the first call's outcome")
	require.NoError(t, p.CommitTransaction(ctx))
	waitTxnEnded(t, c, "tx-octx")
	require.Equal(t, map[string]map[int32]int64{"t": {0: 3}}, c.CommittedOffsets("g"))
}

func TestTxnOffsetsOutsideTransactionRefused(t *testing.T) {
	c := newCluster(t, 1)
	p := txnProducer(t, c, "tx-onone")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	require.NoError(t, p.InitTransactions(ctx))
	require.ErrorIs(t, p.SendOffsetsToTransaction(ctx, simple, offs(0, 1)), client.ErrTxnState, "no transaction open")
	require.NoError(t, p.SendOffsetsToTransaction(ctx, simple, nil), "no offsets: nothing to send")
	require.ErrorIs(t, p.SendOffsetsToTransaction(ctx, client.GroupMetadata{GenerationID: -1}, offs(0, 1)), client.ErrTxnState, "no group")
	require.ErrorIs(t, p.SendOffsetsToTransaction(ctx, client.GroupMetadata{GroupID: "g", GenerationID: 2}, offs(0, 1)), client.ErrTxnState, "a generation without a member")
	for _, ex := range c.Recorder().Exchanges() {
		_, add := ex.Request.(*kmsg.AddOffsetsToTxnRequest)
		require.False(t, add, "AddOffsetsToTxn sent for a refused call")
	}
	plain := newProducer(t, c)
	require.ErrorIs(t, plain.SendOffsetsToTransaction(ctx, simple, offs(0, 1)), client.ErrNotTransactional)
}
