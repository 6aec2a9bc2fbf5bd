package client_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/kafkaerr"
	"github.com/rollsafe/rollsafe/protocol"
	"github.com/rollsafe/rollsafe/sim"
)

// committedLog reads topic back from c as a read_committed consumer sees it.
func committedLog(t testing.TB, c *sim.Cluster, topic string) (committed, raw map[int32][]readback.Record) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	raw, err := readback.ReadTopic(ctx, c.Addrs(), topic)
	require.NoError(t, err)
	return readback.Committed(raw), raw
}

// committedValues lists the values of every committed record of topic.
func committedValues(t testing.TB, c *sim.Cluster, topic string) map[string]int {
	t.Helper()
	log, _ := committedLog(t, c, topic)
	seen := map[string]int{}
	for _, recs := range log {
		for _, r := range recs {
			seen[string(r.Value)]++
		}
	}
	return seen
}

// checkCommitted reads the topic back as read_committed and checks every
// record of r against it: acknowledged (committed) at its offset, once, in
// order.
func checkCommitted(t testing.TB, c *sim.Cluster, topic string, r *run) {
	t.Helper()
	log, _ := committedLog(t, c, topic)
	r.mu.Lock()
	defer r.mu.Unlock()
	rep := readback.Check(log, r.produced, func(rec readback.Record) string { return string(rec.Value) })
	require.True(t, rep.OK(), "%s\n%s", rep, strings.Join(rep.Problems, "\n"))
}

// waitTxnEnded waits until the coordinator has written the markers of
// id's last transaction (EndTxn is answered before they are; a
// read_committed reader sees the records once they are).
func waitTxnEnded(t testing.TB, c *sim.Cluster, id string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		d, ok := c.DescribeTransaction(id)
		if ok && (d.State == sim.TxnEmpty || d.State == sim.TxnCompleteCommit || d.State == sim.TxnCompleteAbort) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("transaction %s still %v", id, d.State)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func txnProducer(t testing.TB, c *sim.Cluster, id string, opts ...client.Option) *client.Producer {
	t.Helper()
	return newProducer(t, c, append([]client.Option{client.TransactionalID(id)}, opts...)...)
}

// allAcked says whether every record of r was called back with success.
func allAcked(r *run) (acked, total int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, pr := range r.produced {
		if pr.Acked {
			acked++
		}
	}
	return acked, len(r.produced)
}

func TestTxnCommitReadCommittedOnceInOrder(t *testing.T) {
	c := newCluster(t, 4)
	p := txnProducer(t, c, "tx-commit")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	require.NoError(t, p.InitTransactions(ctx))
	for round := range 2 {
		require.NoError(t, p.BeginTransaction())
		r := newRun()
		r.produce(ctx, t, p, "t", "c"+string(rune('a'+round)), 40, 8)
		require.NoError(t, p.CommitTransaction(ctx))
		// The callbacks ran before CommitTransaction returned.
		acked, total := allAcked(r)
		require.Equal(t, total, acked, "records called back with success when the commit returned")
		r.wg.Wait()
		waitTxnEnded(t, c, "tx-commit")
		checkCommitted(t, c, "t", r)
		log, _ := committedLog(t, c, "t")
		parts := 0
		for _, recs := range log {
			if len(recs) > 0 {
				parts++
			}
		}
		require.GreaterOrEqual(t, parts, 2, "the transaction spans several partitions")
	}
}

func TestTxnAbortInvisibleToReadCommitted(t *testing.T) {
	c := newCluster(t, 3)
	p := txnProducer(t, c, "tx-abort")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	require.NoError(t, p.InitTransactions(ctx))
	require.NoError(t, p.BeginTransaction())
	aborted := newRun()
	aborted.produce(ctx, t, p, "t", "x", 30, 6)
	// Wait until they are written, so the abort has something to hide.
	waitRecords(t, c, "t", 30)
	require.NoError(t, p.AbortTransaction(ctx))
	aborted.wg.Wait()
	require.Len(t, aborted.errs, 30)
	for _, err := range aborted.errs {
		require.ErrorIs(t, err, client.ErrAborted)
	}
	// The next transaction on the same producer commits.
	require.NoError(t, p.BeginTransaction())
	next := newRun()
	next.produce(ctx, t, p, "t", "y", 20, 5)
	require.NoError(t, p.CommitTransaction(ctx))
	next.wg.Wait()
	waitTxnEnded(t, c, "tx-abort")

	seen := committedValues(t, c, "t")
	for v := range seen {
		require.False(t, strings.HasPrefix(v, "x-"), "aborted record %s visible to read_committed", v)
	}
	_, raw := committedLog(t, c, "t")
	rawX := 0
	for _, recs := range raw {
		for _, r := range recs {
			if strings.HasPrefix(string(r.Value), "x-") {
				rawX++
			}
		}
	}
	require.Equal(t, 30, rawX, "the aborted records are in the log, hidden by the abort markers")
	checkCommitted(t, c, "t", next)
}

// waitRecords waits until topic's partitions hold at least n records (or
// markers) below their high watermarks.
func waitRecords(t testing.TB, c *sim.Cluster, topic string, n int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var sum int64
		for part := int32(0); ; part++ {
			hw, _, err := c.HighWatermark(topic, part)
			if err != nil {
				break
			}
			sum += hw
		}
		if sum >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s holds %d records, want %d", topic, sum, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestTxnSecondInstanceFencesFirst(t *testing.T) {
	c := newCluster(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	old := txnProducer(t, c, "tx-zombie")
	require.NoError(t, old.InitTransactions(ctx))
	require.NoError(t, old.BeginTransaction())
	zombie := newRun()
	zombie.produce(ctx, t, old, "t", "z", 20, 4)
	waitRecords(t, c, "t", 20)

	newer := txnProducer(t, c, "tx-zombie")
	require.NoError(t, newer.InitTransactions(ctx))

	err := old.CommitTransaction(ctx)
	require.Error(t, err)
	if errors.Is(err, client.ErrTxnAbortable) {
		err = old.AbortTransaction(ctx)
	}
	require.ErrorIs(t, err, client.ErrFenced)
	require.ErrorIs(t, err, client.ErrTxnFatal)
	// Fatal stays fatal.
	require.ErrorIs(t, old.BeginTransaction(), client.ErrFenced)
	zombie.wg.Wait()
	for _, e := range zombie.errs {
		require.ErrorIs(t, e, client.ErrAborted)
	}

	require.NoError(t, newer.BeginTransaction())
	r := newRun()
	r.produce(ctx, t, newer, "t", "n", 20, 4)
	require.NoError(t, newer.CommitTransaction(ctx))
	r.wg.Wait()
	waitTxnEnded(t, c, "tx-zombie")
	for v := range committedValues(t, c, "t") {
		require.False(t, strings.HasPrefix(v, "z-"), "the fenced instance's record %s is visible", v)
	}
	checkCommitted(t, c, "t", r)
}

func TestTxnCoordinatorMoveMidCommitRetried(t *testing.T) {
	c := newCluster(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p := txnProducer(t, c, "tx-move")
	require.NoError(t, p.InitTransactions(ctx))
	require.NoError(t, p.BeginTransaction())
	r := newRun()
	r.produce(ctx, t, p, "t", "m", 30, 6)
	waitRecords(t, c, "t", 30)

	// The coordinator moves: the controller fences its broker (frozen),
	// another is elected, and the old one runs again, answering
	// NOT_COORDINATOR on the connection the producer holds.
	old := c.TransactionCoordinator("tx-move")
	require.NoError(t, c.FreezeBroker(old))
	require.NoError(t, c.FenceBroker(old))
	moved := c.TransactionCoordinator("tx-move")
	require.NotEqual(t, old, moved)
	require.NoError(t, c.ThawBroker(old))

	require.NoError(t, p.CommitTransaction(ctx))
	r.wg.Wait()
	waitTxnEnded(t, c, "tx-move")
	checkCommitted(t, c, "t", r)

	notCoord := false
	for _, ex := range c.Recorder().Exchanges() {
		if resp, ok := ex.Response.(*kmsg.EndTxnResponse); ok && ex.Broker == old && resp.ErrorCode == 16 {
			notCoord = true
		}
	}
	require.True(t, notCoord, "EndTxn went to the old coordinator and was answered NOT_COORDINATOR")
}

func TestTxnProduceOutsideTransactionRefused(t *testing.T) {
	c := newCluster(t, 1)
	p := txnProducer(t, c, "tx-outside")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res := p.ProduceSync(ctx, &client.Record{Topic: "t", Value: []byte("before-init")})
	require.ErrorIs(t, res[0].Err, client.ErrNoTransaction)
	require.ErrorIs(t, res[0].Err, client.ErrNotWritten)
	require.NoError(t, p.InitTransactions(ctx))
	res = p.ProduceSync(ctx, &client.Record{Topic: "t", Value: []byte("before-begin")})
	require.ErrorIs(t, res[0].Err, client.ErrNoTransaction)
	require.ErrorIs(t, res[0].Err, client.ErrTxnState)

	require.NoError(t, p.BeginTransaction())
	r := newRun()
	r.produce(ctx, t, p, "t", "in", 5, 1)
	require.NoError(t, p.CommitTransaction(ctx))
	res = p.ProduceSync(ctx, &client.Record{Topic: "t", Value: []byte("after-commit")})
	require.ErrorIs(t, res[0].Err, client.ErrNoTransaction)

	waitTxnEnded(t, c, "tx-outside")
	_, raw := committedLog(t, c, "t")
	for _, recs := range raw {
		for _, rec := range recs {
			require.False(t, strings.HasPrefix(string(rec.Value), "before-") || string(rec.Value) == "after-commit", "refused record %s written", rec.Value)
		}
	}
	checkCommitted(t, c, "t", r)
}

func TestTxnCallsInWrongState(t *testing.T) {
	c := newCluster(t, 1)
	p := txnProducer(t, c, "tx-state")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	require.ErrorIs(t, p.BeginTransaction(), client.ErrTxnState, "Begin before Init")
	require.NoError(t, p.InitTransactions(ctx))
	require.ErrorIs(t, p.CommitTransaction(ctx), client.ErrTxnState, "Commit without a transaction")
	require.ErrorIs(t, p.InitTransactions(ctx), client.ErrTxnState, "Init twice")
	require.NoError(t, p.BeginTransaction())
	require.ErrorIs(t, p.BeginTransaction(), client.ErrTxnState, "Begin twice")
	require.NoError(t, p.CommitTransaction(ctx), "an empty transaction commits")

	plain := newProducer(t, c)
	require.ErrorIs(t, plain.InitTransactions(ctx), client.ErrNotTransactional)
	require.ErrorIs(t, plain.BeginTransaction(), client.ErrTxnState)
}

func TestTxnConflictingOptionsRefused(t *testing.T) {
	for name, opts := range map[string][]client.Option{
		"no idempotence": {client.DisableIdempotence()},
		"acks=1":         {client.DisableIdempotence(), client.Acks(client.AcksLeader)},
	} {
		_, err := client.NewProducer(append([]client.Option{client.Brokers("localhost:9092"), client.TransactionalID("x")}, opts...)...)
		require.ErrorIs(t, err, client.ErrTxnConfig, name)
		require.ErrorIs(t, err, client.ErrInvalidConfig, name)
	}
	_, err := client.NewProducer(client.Brokers("localhost:9092"), client.TransactionalID("x"), client.TransactionTimeout(-time.Second))
	require.ErrorIs(t, err, client.ErrInvalidConfig)
	p, err := client.NewProducer(client.Brokers("localhost:9092"), client.TransactionalID("x"))
	require.NoError(t, err)
	require.NoError(t, p.Close(context.Background()))
}

func TestTxnCloseWithOpenTransactionAborts(t *testing.T) {
	c := newCluster(t, 2)
	p, err := client.NewProducer(client.Brokers(c.Addrs()...), client.TransactionalID("tx-close"))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	require.NoError(t, p.InitTransactions(ctx))
	require.NoError(t, p.BeginTransaction())
	r := newRun()
	r.produce(ctx, t, p, "t", "open", 10, 2)
	require.NoError(t, p.Close(ctx), "Close does not wait for the open transaction")
	r.wg.Wait()
	require.Len(t, r.errs, 10)
	for _, e := range r.errs {
		// Aborted, or never handed to the machine (still waiting for the
		// topic's metadata): closed, not written.
		require.True(t, errors.Is(e, client.ErrAborted) || errors.Is(e, client.ErrClosed) && errors.Is(e, client.ErrNotWritten), "%v", e)
	}
	for v := range committedValues(t, c, "t") {
		require.False(t, strings.HasPrefix(v, "open-"), "record %s of the open transaction visible", v)
	}
}

// A commit whose context ended goes on; calling it again returns its
// outcome, whether it is still under way or ended meanwhile.
func TestTxnCommitRetriedAfterContextEnds(t *testing.T) {
	c := newCluster(t, 3)
	p := txnProducer(t, c, "tx-retry")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	require.NoError(t, p.InitTransactions(ctx))
	require.NoError(t, p.BeginTransaction())
	r := newRun()
	r.produce(ctx, t, p, "t", "r", 20, 4)
	// The coordinator is frozen: the commit cannot end before its
	// context does.
	coord := c.TransactionCoordinator("tx-retry")
	require.NoError(t, c.FreezeBroker(coord))
	short, cancelShort := context.WithTimeout(ctx, 100*time.Millisecond)
	err := p.CommitTransaction(short)
	cancelShort()
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.NotErrorIs(t, err, client.ErrTxnState)
	require.NoError(t, c.ThawBroker(coord))
	r.wg.Wait() // the commit ended meanwhile: its records are called back
	require.NoError(t, p.CommitTransaction(ctx), "the same commit's outcome")
	waitTxnEnded(t, c, "tx-retry")
	checkCommitted(t, c, "t", r)
	// A commit with no transaction is still refused.
	require.ErrorIs(t, p.CommitTransaction(ctx), client.ErrTxnState)
}

// TestTxnCommitGoesOnWhenItsContextEndsFirst: a commit whose context ends
// while its records are still being handed over (one waits for its
// topic's metadata) goes on by itself: once the topic exists the
// transaction commits and every record is called back, with nobody
// calling CommitTransaction again; a later call gets that outcome.
func TestTxnCommitGoesOnWhenItsContextEndsFirst(t *testing.T) {
	c := newCluster(t, 3)
	p := txnProducer(t, c, "tx-goes-on")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	require.NoError(t, p.InitTransactions(ctx))
	require.NoError(t, p.BeginTransaction())
	r := newRun()
	r.produce(ctx, t, p, "t", "a", 6, 3)
	r.produce(ctx, t, p, "later", "b", 3, 3) // no such topic yet: held
	short, cancelShort := context.WithTimeout(ctx, 100*time.Millisecond)
	err := p.CommitTransaction(short)
	cancelShort()
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Contains(t, err.Error(), "still under way")
	require.NoError(t, c.CreateTopic("later", 3, 3))
	r.wg.Wait() // the commit went on: every record called back
	acked, total := allAcked(r)
	require.Equal(t, total, acked, "%v", r.errs)
	require.NoError(t, p.CommitTransaction(ctx), "the same commit's outcome")
	require.ErrorIs(t, p.CommitTransaction(ctx), client.ErrTxnState, "a commit with no transaction")
}

// TestTxnIDNotAuthorizedIsFatal: a transactional id the principal may not
// use (no TRANSACTIONAL_ID grant) is refused at FindCoordinator
// (TRANSACTIONAL_ID_AUTHORIZATION_FAILED): InitTransactions fails fatal at
// once instead of asking again until its context ends.
func TestTxnIDNotAuthorizedIsFatal(t *testing.T) {
	c := newCluster(t, 1, sim.SASL(sim.MechPlain, "app", "a"), sim.ACL("app", "t", sim.OpWrite, sim.OpRead),
		sim.TransactionalIDACL("app", "allowed"))
	p := txnProducer(t, c, "denied", client.SASLPlain("app", "a"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := p.InitTransactions(ctx)
	require.ErrorIs(t, err, client.ErrTxnFatal)
	require.NotErrorIs(t, err, context.DeadlineExceeded)
	require.Contains(t, err.Error(), "TRANSACTIONAL_ID_AUTHORIZATION_FAILED")
}

// TestTxnAbortableCarriesTheCode: a record the leader refused makes the
// transaction abortable; the commit's error carries the leader's code
// (errors.Is with protocol's sentinel, errors.As *protocol.KafkaError),
// and BeginTransaction before the abort is refused with that same
// abortable error (ErrTxnState and ErrTxnAbortable), on one line.
func TestTxnAbortableCarriesTheCode(t *testing.T) {
	c := newCluster(t, 1)
	p := txnProducer(t, c, "tx-code")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	require.NoError(t, p.InitTransactions(ctx))
	require.NoError(t, p.BeginTransaction())
	require.NoError(t, c.InjectError("t", 0, int16(kafkaerr.TopicAuthorizationFailed), 1))
	r := newRun()
	r.produce(ctx, t, p, "t", "a", 1, 1)
	err := p.CommitTransaction(ctx)
	require.ErrorIs(t, err, client.ErrTxnAbortable)
	require.ErrorIs(t, err, protocol.ErrTopicAuthorizationFailed)
	var ke *protocol.KafkaError
	require.ErrorAs(t, err, &ke)
	require.Equal(t, int16(kafkaerr.TopicAuthorizationFailed), ke.Code)

	begin := p.BeginTransaction()
	require.ErrorIs(t, begin, client.ErrTxnState)
	require.ErrorIs(t, begin, client.ErrTxnAbortable, "the cause the transaction must be aborted for")
	require.ErrorIs(t, begin, protocol.ErrTopicAuthorizationFailed)
	require.NotContains(t, begin.Error(), "\n")
	require.Contains(t, begin.Error(), "TOPIC_AUTHORIZATION_FAILED")

	require.NoError(t, p.AbortTransaction(ctx))
	r.wg.Wait()
	require.NoError(t, p.BeginTransaction())
	require.NoError(t, p.CommitTransaction(ctx))
}

// TestTxnCallWhileAnotherIsUnderWay: a transaction call while another
// (a commit whose context ended) is under way is refused with
// ErrTxnInProgress (also ErrTxnState); the commit goes on and ends as it
// would have.
func TestTxnCallWhileAnotherIsUnderWay(t *testing.T) {
	c := newCluster(t, 3)
	p := txnProducer(t, c, "tx-conflict")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	require.NoError(t, p.InitTransactions(ctx))
	require.NoError(t, p.BeginTransaction())
	r := newRun()
	r.produce(ctx, t, p, "t", "c", 10, 3)
	waitRecords(t, c, "t", 10) // the commit has no record left to hand over
	coord := c.TransactionCoordinator("tx-conflict")
	require.NoError(t, c.FreezeBroker(coord))
	short, cancelShort := context.WithTimeout(ctx, 100*time.Millisecond)
	err := p.CommitTransaction(short)
	cancelShort()
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Contains(t, err.Error(), "still under way")
	for name, call := range map[string]func() error{
		"AbortTransaction": func() error { return p.AbortTransaction(ctx) },
		"BeginTransaction": p.BeginTransaction,
		"SendOffsetsToTransaction": func() error {
			return p.SendOffsetsToTransaction(ctx, client.GroupMetadata{GroupID: "g", GenerationID: -1}, []client.TxnOffset{{Topic: "t", Offset: 1, LeaderEpoch: -1}})
		},
	} {
		err := call()
		require.ErrorIs(t, err, client.ErrTxnInProgress, name)
		require.ErrorIs(t, err, client.ErrTxnState, name)
		require.NotErrorIs(t, err, context.DeadlineExceeded, name)
		require.Contains(t, err.Error(), "CommitTransaction", name)
		require.NotContains(t, err.Error(), "\n", name)
	}
	require.NoError(t, c.ThawBroker(coord))
	require.NoError(t, p.CommitTransaction(ctx), "the same commit's outcome")
	r.wg.Wait()
	waitTxnEnded(t, c, "tx-conflict")
	checkCommitted(t, c, "t", r)
}

// TestTxnCommitRefusedKeepsTheTransactionOpen: a CommitTransaction refused
// because SendOffsetsToTransaction is under way (ErrTxnInProgress) leaves
// the transaction open: records produced after it join the transaction,
// and the commit that follows commits them with the offsets.
func TestTxnCommitRefusedKeepsTheTransactionOpen(t *testing.T) {
	c := newCluster(t, 3)
	p := txnProducer(t, c, "tx-refused")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	require.NoError(t, p.InitTransactions(ctx))
	require.NoError(t, p.BeginTransaction())
	r := newRun()
	r.produce(ctx, t, p, "t", "a", 5, 3)
	waitRecords(t, c, "t", 5)
	coord := c.TransactionCoordinator("tx-refused")
	require.NoError(t, c.FreezeBroker(coord)) // AddOffsetsToTxn waits
	group := client.GroupMetadata{GroupID: "g", GenerationID: -1}
	offsets := []client.TxnOffset{{Topic: "t", Partition: 0, Offset: 7, LeaderEpoch: -1}}
	short, cancelShort := context.WithTimeout(ctx, 100*time.Millisecond)
	err := p.SendOffsetsToTransaction(short, group, offsets)
	cancelShort()
	require.ErrorIs(t, err, context.DeadlineExceeded)

	err = p.CommitTransaction(ctx)
	require.ErrorIs(t, err, client.ErrTxnInProgress)
	r.produce(ctx, t, p, "t", "b", 5, 3) // still inside the transaction
	require.NoError(t, c.ThawBroker(coord))
	require.NoError(t, p.SendOffsetsToTransaction(ctx, group, offsets), "the same call's outcome")
	require.NoError(t, p.CommitTransaction(ctx))
	r.wg.Wait()
	acked, total := allAcked(r)
	require.Equal(t, total, acked, "every record committed: %v", r.errs)
	waitTxnEnded(t, c, "tx-refused")
	checkCommitted(t, c, "t", r)
	require.Equal(t, map[int32]int64{0: 7}, c.CommittedOffsets("g")["t"])
}

// TestTxnFlushWaitsForAcknowledgements: Flush inside an open transaction
// returns once every record produced so far is acknowledged (in the log,
// not yet committed), as Kafka's producer flushes, without waiting for
// the commit; the records' callbacks come with CommitTransaction. A
// leader that does not answer keeps it waiting until its context ends.
func TestTxnFlushWaitsForAcknowledgements(t *testing.T) {
	c := newCluster(t, 3)
	p := txnProducer(t, c, "tx-flush", client.Linger(time.Hour))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	require.NoError(t, p.InitTransactions(ctx))
	require.NoError(t, p.BeginTransaction())
	r := newRun()
	r.produce(ctx, t, p, "t", "f", 30, 6)
	require.NoError(t, p.Flush(ctx)) // no commit meanwhile: it returns on the acknowledgements
	var sum int64
	for part := int32(0); part < 3; part++ {
		_, leo, err := c.HighWatermark("t", part)
		require.NoError(t, err)
		sum += leo
	}
	require.Equal(t, int64(30), sum, "every record in the log when Flush returns")
	acked, _ := allAcked(r)
	require.Zero(t, acked, "no callback before the commit")

	// A leader frozen: Flush waits for its acknowledgement until ctx ends.
	r.produce(ctx, t, p, "t", "g", 6, 6)
	leader, _ := c.Leader("t", 0)
	require.NoError(t, c.FreezeBroker(leader))
	short, cancelShort := context.WithTimeout(ctx, 200*time.Millisecond)
	err := p.Flush(short)
	cancelShort()
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.NoError(t, c.ThawBroker(leader))
	require.NoError(t, p.Flush(ctx))
	require.NoError(t, p.CommitTransaction(ctx))
	r.wg.Wait()
	acked, total := allAcked(r)
	require.Equal(t, total, acked, "%v", r.errs)
	waitTxnEnded(t, c, "tx-flush")
	checkCommitted(t, c, "t", r)
}
