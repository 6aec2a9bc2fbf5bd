package kafka_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/confluent/kafka"
	"github.com/rollsafe/rollsafe/kafkaerr"
	"github.com/rollsafe/rollsafe/sim"
)

func kafkaError(t *testing.T, err error) kafka.Error {
	t.Helper()
	require.Error(t, err)
	ke, ok := err.(kafka.Error)
	require.True(t, ok, "%T is not a kafka.Error", err)
	return ke
}

func produceN(t *testing.T, p *kafka.Producer, topic string, n int, ch chan kafka.Event) {
	t.Helper()
	for i := 0; i < n; i++ {
		require.NoError(t, p.Produce(&kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: kafka.PartitionAny}, Value: []byte{byte(i)}}, ch))
	}
}

// TestTxnCallsStates: the transaction calls in and out of order, with the
// codes librdkafka returns (ERR__STATE, ERR__NOT_CONFIGURED), Produce
// refused outside a transaction, and a commit's delivery reports sent
// before it returns.
func TestTxnCallsStates(t *testing.T) {
	c := newCluster(t, 3)
	topic := "t"
	plain, p := twoProducers(t, c, nil, kafka.ConfigMap{"transactional.id": "tx-states"})
	require.Equal(t, kafka.ErrNotConfigured, kafkaError(t, plain.InitTransactions(nil)).Code())
	require.Equal(t, kafka.ErrNotConfigured, kafkaError(t, plain.BeginTransaction()).Code())

	err := p.Produce(&kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: kafka.PartitionAny}}, nil)
	require.Equal(t, kafka.ErrState, kafkaError(t, err).Code(), "Produce before BeginTransaction")
	require.ErrorIs(t, err, client.ErrNoTransaction)
	require.Equal(t, kafka.ErrState, kafkaError(t, p.BeginTransaction()).Code(), "Begin before Init")
	require.NoError(t, p.InitTransactions(nil)) // nil: 2 × transaction.timeout.ms
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.Equal(t, kafka.ErrState, kafkaError(t, p.InitTransactions(ctx)).Code(), "Init twice")
	require.Equal(t, kafka.ErrState, kafkaError(t, p.CommitTransaction(ctx)).Code(), "Commit without a transaction")
	require.Equal(t, kafka.ErrState, kafkaError(t, p.AbortTransaction(ctx)).Code(), "Abort without a transaction")

	require.NoError(t, p.BeginTransaction())
	require.Equal(t, kafka.ErrState, kafkaError(t, p.BeginTransaction()).Code(), "Begin twice")
	ch := make(chan kafka.Event, 10)
	produceN(t, p, topic, 10, ch)
	require.NoError(t, p.CommitTransaction(ctx))
	require.Len(t, ch, 10, "the reports are sent before CommitTransaction returns")
	for range 10 {
		m := (<-ch).(*kafka.Message)
		require.NoError(t, m.TopicPartition.Error)
		require.GreaterOrEqual(t, int64(m.TopicPartition.Offset), int64(0))
	}
	err = p.Produce(&kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: kafka.PartitionAny}}, nil)
	require.Equal(t, kafka.ErrState, kafkaError(t, err).Code(), "Produce after CommitTransaction")

	require.NoError(t, p.BeginTransaction())
	produceN(t, p, topic, 5, ch)
	require.NoError(t, p.AbortTransaction(nil))
	require.Len(t, ch, 5, "the reports are sent before AbortTransaction returns")
	for range 5 {
		// Never sent (ErrPurgeQueue), or sent before the abort reached
		// the producer's loop (ErrPurgeInflight: in the log, aborted).
		m := (<-ch).(*kafka.Message)
		switch code := kafkaError(t, m.TopicPartition.Error).Code(); code {
		case kafka.ErrPurgeQueue:
			require.Equal(t, kafka.MsgStatusNotPersisted, m.Status())
		case kafka.ErrPurgeInflight:
			require.Equal(t, kafka.MsgStatusPossiblyPersisted, m.Status())
		default:
			t.Fatalf("an aborted message's report: %v", code)
		}
		require.ErrorIs(t, m.TopicPartition.Error, client.ErrAborted)
	}
	require.Nil(t, p.GetFatalError())
	require.Zero(t, p.Flush(1000))
}

// TestTxnFencedIsFatal: a second instance with the same transactional.id
// fences the first, whose next call fails ErrFenced, fatal; the producer
// is then fatal as librdkafka's is: an Error event, GetFatalError, Produce
// refused with ErrFatal, every transaction call returning the fatal error.
func TestTxnFencedIsFatal(t *testing.T) {
	c := newCluster(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	old, newer := twoProducers(t, c, kafka.ConfigMap{"transactional.id": "tx-zombie"}, kafka.ConfigMap{"transactional.id": "tx-zombie"})
	require.NoError(t, old.InitTransactions(ctx))
	require.NoError(t, old.BeginTransaction())
	produceN(t, old, "t", 20, nil)

	require.NoError(t, newer.InitTransactions(ctx))

	err := old.CommitTransaction(ctx)
	if ke := kafkaError(t, err); ke.TxnRequiresAbort() {
		// A leader answered the stale epoch: the abort's EndTxn learns
		// the fence.
		require.Contains(t, []kafka.ErrorCode{kafka.ErrInvalidProducerEpoch, kafka.ErrProducerFenced}, ke.Code(), "%v", ke)
		err = old.AbortTransaction(ctx)
	}
	ke := kafkaError(t, err)
	require.Equal(t, kafka.ErrFenced, ke.Code(), "%v", ke)
	require.True(t, ke.IsFatal())
	require.False(t, ke.IsRetriable())
	require.False(t, ke.TxnRequiresAbort())
	require.ErrorIs(t, err, client.ErrFenced)

	require.Equal(t, ke, old.GetFatalError())
	fatalEvent := false
	for !fatalEvent {
		select {
		case ev := <-old.Events():
			if e, ok := ev.(kafka.Error); ok && e.IsFatal() {
				require.Equal(t, kafka.ErrFenced, e.Code())
				fatalEvent = true
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no fatal Error event")
		}
	}
	require.Equal(t, ke, old.BeginTransaction(), "fatal stays fatal")
	require.Equal(t, ke, old.AbortTransaction(ctx))
	err = old.Produce(&kafka.Message{TopicPartition: kafka.TopicPartition{Topic: strp("t"), Partition: kafka.PartitionAny}}, nil)
	require.Equal(t, kafka.ErrFatal, kafkaError(t, err).Code())
	require.True(t, errors.Is(err, client.ErrFenced))

	require.NoError(t, newer.BeginTransaction())
	produceN(t, newer, "t", 5, nil)
	require.NoError(t, newer.CommitTransaction(ctx))
}

// TestTxnCommitTimeoutRetriable: a commit whose context ends first is
// ErrTimedOut, retriable; calling it again gets the same commit's outcome.
func TestTxnCommitTimeoutRetriable(t *testing.T) {
	c := newCluster(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p := newProducer(t, c, kafka.ConfigMap{"transactional.id": "tx-retry"})
	require.NoError(t, p.InitTransactions(ctx))
	require.NoError(t, p.BeginTransaction())
	produceN(t, p, "t", 10, nil)
	coord := c.TransactionCoordinator("tx-retry")
	require.NoError(t, c.FreezeBroker(coord))
	short, cancelShort := context.WithTimeout(ctx, 100*time.Millisecond)
	err := p.CommitTransaction(short)
	cancelShort()
	ke := kafkaError(t, err)
	require.Equal(t, kafka.ErrTimedOut, ke.Code(), "%v", ke)
	require.True(t, ke.IsRetriable())
	require.True(t, ke.IsTimeout())
	require.False(t, ke.IsFatal())
	require.False(t, ke.TxnRequiresAbort())
	require.NoError(t, c.ThawBroker(coord))
	require.NoError(t, p.CommitTransaction(ctx), "the same commit's outcome")
	require.Nil(t, p.GetFatalError())
}

// TestTxnAbortableBrokerCode: a message the leader refused
// (TOPIC_AUTHORIZATION_FAILED) makes the transaction abortable; the commit
// returns that code with TxnRequiresAbort, as librdkafka does, and so does
// BeginTransaction until the abort (librdkafka's begin_transaction returns
// the abortable error); after AbortTransaction the next transaction
// commits.
func TestTxnAbortableBrokerCode(t *testing.T) {
	c := newCluster(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p := newProducer(t, c, kafka.ConfigMap{"transactional.id": "tx-code"})
	require.NoError(t, p.InitTransactions(ctx))
	require.NoError(t, p.BeginTransaction())
	require.NoError(t, c.InjectError("t", 0, int16(kafkaerr.TopicAuthorizationFailed), 1))
	ch := make(chan kafka.Event, 1)
	produceN(t, p, "t", 1, ch)
	for name, err := range map[string]error{"CommitTransaction": p.CommitTransaction(ctx), "BeginTransaction": p.BeginTransaction()} {
		ke := kafkaError(t, err)
		require.Equal(t, kafka.ErrTopicAuthorizationFailed, ke.Code(), "%s: %v", name, ke)
		require.True(t, ke.TxnRequiresAbort(), name)
		require.False(t, ke.IsFatal(), name)
		require.False(t, ke.IsRetriable(), name)
		require.ErrorIs(t, err, client.ErrTxnAbortable, name)
	}
	require.NoError(t, p.AbortTransaction(ctx))
	m := (<-ch).(*kafka.Message)
	require.Error(t, m.TopicPartition.Error)
	require.NoError(t, p.BeginTransaction())
	produceN(t, p, "t", 1, nil)
	require.NoError(t, p.CommitTransaction(ctx))
	require.Nil(t, p.GetFatalError())
}

// TestTxnConflictingCall: a transaction call while another is under way
// (a commit whose context ended) is ErrConflict, retriable, as librdkafka's
// rd_kafka_txn_curr_api_begin answers; the commit goes on and its outcome
// is the next CommitTransaction's.
func TestTxnConflictingCall(t *testing.T) {
	c := newCluster(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p := newProducer(t, c, kafka.ConfigMap{"transactional.id": "tx-conflict"})
	require.NoError(t, p.InitTransactions(ctx))
	require.NoError(t, p.BeginTransaction())
	produceN(t, p, "t", 5, nil)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		// Every message written: the commit hands nothing over.
		hw, _, err := c.HighWatermark("t", 0)
		require.NoError(t, err)
		if hw >= 5 {
			break
		}
		require.True(t, time.Now().Before(deadline), "5 messages not written")
	}
	coord := c.TransactionCoordinator("tx-conflict")
	require.NoError(t, c.FreezeBroker(coord))
	short, cancelShort := context.WithTimeout(ctx, 100*time.Millisecond)
	ke := kafkaError(t, p.CommitTransaction(short))
	cancelShort()
	require.Equal(t, kafka.ErrTimedOut, ke.Code(), "%v", ke)
	for name, err := range map[string]error{"AbortTransaction": p.AbortTransaction(ctx), "BeginTransaction": p.BeginTransaction()} {
		ke := kafkaError(t, err)
		require.Equal(t, kafka.ErrConflict, ke.Code(), "%s: %v", name, ke)
		require.True(t, ke.IsRetriable(), name)
		require.False(t, ke.IsFatal(), name)
		require.False(t, ke.TxnRequiresAbort(), name)
		require.ErrorIs(t, err, client.ErrTxnInProgress, name)
	}
	require.NoError(t, c.ThawBroker(coord))
	require.NoError(t, p.CommitTransaction(ctx), "the same commit's outcome")
	require.Nil(t, p.GetFatalError())
}

func strp(s string) *string { return &s }

// twoProducers makes two producers on c that live together, closed when
// the test ends, checking then that neither left a goroutine behind.
func twoProducers(t *testing.T, c *sim.Cluster, a, b kafka.ConfigMap) (*kafka.Producer, *kafka.Producer) {
	t.Helper()
	before := runtime.NumGoroutine()
	mk := func(props kafka.ConfigMap) *kafka.Producer {
		conf := kafka.ConfigMap{"bootstrap.servers": strings.Join(c.Addrs(), ",")}
		for k, v := range props {
			conf[k] = v
		}
		p, err := kafka.NewProducer(&conf)
		require.NoError(t, err)
		return p
	}
	pa, pb := mk(a), mk(b)
	t.Cleanup(func() {
		pa.Close()
		pb.Close()
		waitGoroutines(t, before)
	})
	return pa, pb
}

// Flush inside an open transaction returns 0 once every message is
// acknowledged, as librdkafka's: a program that flushes before
// CommitTransaction goes on; the reports come with the commit.
func TestTxnFlushInsideTransaction(t *testing.T) {
	c := newCluster(t, 3)
	p := newProducer(t, c, kafka.ConfigMap{"transactional.id": "tx-flush", "linger.ms": 30000})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, p.InitTransactions(ctx))
	require.NoError(t, p.BeginTransaction())
	ch := make(chan kafka.Event, 20)
	produceN(t, p, "t", 20, ch)
	require.Zero(t, p.Flush(10000))
	var sum int64
	for part := int32(0); part < 3; part++ {
		_, leo, err := c.HighWatermark("t", part)
		require.NoError(t, err)
		sum += leo
	}
	require.Equal(t, int64(20), sum, "every message in the log when Flush returns")
	require.Empty(t, ch, "the reports come with the commit")
	require.NoError(t, p.CommitTransaction(ctx))
	require.Len(t, ch, 20)
}
