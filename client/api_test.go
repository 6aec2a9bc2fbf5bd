package client_test

import (
	"context"
	"errors"
	"github.com/rollsafe/rollsafe/sim"
	"github.com/rollsafe/rollsafe/sim/memnet"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/compress"
)

func TestConfigValidationNamesTheField(t *testing.T) {
	cases := map[string][]client.Option{
		"Brokers":            {},
		"Acks":               {client.Brokers("x:1"), client.Acks(1)},
		"MaxInFlight":        {client.Brokers("x:1"), client.MaxInFlight(6)},
		"ProduceConnections": {client.Brokers("x:1"), client.ProduceConnections(0)},
		"Linger":             {client.Brokers("x:1"), client.Linger(-time.Second)},
		"BatchBytes":         {client.Brokers("x:1"), client.BatchBytes(-1)},
		"MaxRecordBytes":     {client.Brokers("x:1"), client.MaxRecordBytes(0)},
		"MaxBuffered":        {client.Brokers("x:1"), client.MaxBuffered(-1, 10)},
		"DeliveryTimeout":    {client.Brokers("x:1"), client.DeliveryTimeout(-time.Second)},
		"RetryBackoff":       {client.Brokers("x:1"), client.RetryBackoff(-time.Second)},
		"RetryBackoffMax":    {client.Brokers("x:1"), client.RetryBackoffMax(0)},
		"Compression":        {client.Brokers("x:1"), client.Compression(compress.Codec(9), 0)},
	}
	for field, opts := range cases {
		_, err := client.NewProducer(opts...)
		require.ErrorIs(t, err, client.ErrInvalidConfig, field)
		require.Contains(t, err.Error(), field+":", field)
	}
	// acks=1 is fine without idempotence
	p, err := client.NewProducer(client.Brokers("127.0.0.1:1"), client.Acks(1), client.DisableIdempotence())
	require.NoError(t, err)
	require.NoError(t, p.Close(context.Background()))
}

func TestUnknownTopicFailsAfterBoundedWait(t *testing.T) {
	// On virtual time (a testing/synctest bubble, sim/memnet): the bounds
	// below are the producer's, not the machine's load.
	synctest.Test(t, unknownTopicFailsAfterBoundedWait)
}

func unknownTopicFailsAfterBoundedWait(t *testing.T) {
	mn := memnet.New(1)
	c := newCluster(t, 1, sim.Network(mn))
	p, err := client.NewProducer(client.Brokers(c.Addrs()...), client.Dialer(mn.Dial), client.SyncTest(synctest.Wait),
		client.UnknownTopicWait(200*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	start := time.Now()
	err = p.ProduceSync(context.Background(), &client.Record{Topic: "nope", Value: []byte("x")}).FirstErr()
	require.ErrorIs(t, err, client.ErrUnknownTopic)
	require.Contains(t, err.Error(), `"nope"`)
	// It waited for the topic (refreshing metadata, backing off), and
	// gave up within UnknownTopicWait: when the next retry would fall
	// past it (187 ms here, every run).
	waited := time.Since(start)
	require.GreaterOrEqual(t, waited, 100*time.Millisecond)
	require.LessOrEqual(t, waited, 200*time.Millisecond)
	// The next records for the same topic fail at once: no time passes.
	start = time.Now()
	for i := 0; i < 100; i++ {
		require.ErrorIs(t, p.ProduceSync(context.Background(), &client.Record{Topic: "nope"}).FirstErr(), client.ErrUnknownTopic)
	}
	require.Less(t, time.Since(start), time.Millisecond)
	// Other topics are unaffected.
	require.NoError(t, p.ProduceSync(context.Background(), &client.Record{Topic: "t", Value: []byte("ok")}).FirstErr())
}

func TestRecordTooLargeAndBufferFull(t *testing.T) {
	c := newCluster(t, 1)
	p := newProducer(t, c, client.MaxRecordBytes(1000), client.MaxBuffered(10, 1<<20), client.Linger(time.Hour))
	ctx := context.Background()
	err := p.ProduceSync(ctx, &client.Record{Topic: "t", Value: make([]byte, 2000)}).FirstErr()
	require.ErrorIs(t, err, client.ErrRecordTooLarge)
	require.Contains(t, err.Error(), "1000")

	var mu sync.Mutex
	var errs []error
	for i := 0; i < 30; i++ {
		p.TryProduce(ctx, &client.Record{Topic: "t", Value: []byte("v")}, func(_ *client.Record, err error) {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		})
	}
	require.NoError(t, p.Flush(ctx))
	mu.Lock()
	defer mu.Unlock()
	full := 0
	for _, e := range errs {
		if errors.Is(e, client.ErrBufferFull) {
			full++
		} else {
			require.NoError(t, e)
		}
	}
	require.Len(t, errs, 30)
	require.Positive(t, full, "TryProduce refused records beyond MaxBuffered")
}

func TestProduceBlocksForRoomUntilContextEnds(t *testing.T) {
	c := newCluster(t, 1)
	p := newProducer(t, c, client.MaxBuffered(2, 1<<20), client.DeliveryTimeout(time.Second))
	ctx := context.Background()
	require.NoError(t, p.ProduceSync(ctx, &client.Record{Topic: "t", Value: []byte("warm")}).FirstErr())
	for id := int32(0); id < 3; id++ {
		require.NoError(t, c.StopBroker(id)) // nothing can be acknowledged: the buffer stays full
	}
	p.Produce(ctx, &client.Record{Topic: "t", Value: []byte("a")}, nil)
	p.Produce(ctx, &client.Record{Topic: "t", Value: []byte("b")}, nil)
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := p.ProduceSync(short, &client.Record{Topic: "t", Value: []byte("c")}).FirstErr()
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Less(t, time.Since(start), 900*time.Millisecond, "Produce gave up with its context, before any delivery timeout")
	// a and b fail with their delivery timeout, freeing the buffer.
	require.NoError(t, p.Flush(ctx))
}

func TestCloseFailsLaterRecordsAndIsIdempotent(t *testing.T) {
	c := newCluster(t, 1)
	p, err := client.NewProducer(client.Brokers(c.Addrs()...))
	require.NoError(t, err)
	require.NoError(t, p.ProduceSync(context.Background(), &client.Record{Topic: "t", Value: []byte("a")}).FirstErr())
	require.NoError(t, p.Close(context.Background()))
	require.ErrorIs(t, p.Close(context.Background()), client.ErrClosed)
	err = p.ProduceSync(context.Background(), &client.Record{Topic: "t", Value: []byte("b")}).FirstErr()
	require.ErrorIs(t, err, client.ErrClosed)
}

func TestCloseDeadlineFailsBufferedWithErrClosed(t *testing.T) {
	c := newCluster(t, 1)
	p, err := client.NewProducer(client.Brokers(c.Addrs()...), client.Linger(0))
	require.NoError(t, err)
	require.NoError(t, p.ProduceSync(context.Background(), &client.Record{Topic: "t", Value: []byte("a")}).FirstErr())
	require.NoError(t, c.StopBroker(0))
	require.NoError(t, c.StopBroker(1))
	require.NoError(t, c.StopBroker(2))
	done := make(chan error, 1)
	p.Produce(context.Background(), &client.Record{Topic: "t", Value: []byte("stuck")}, func(_ *client.Record, err error) { done <- err })
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, p.Close(ctx), client.ErrClosed)
	err = <-done
	require.ErrorIs(t, err, client.ErrClosed)
	require.True(t, errors.Is(err, client.ErrNotWritten) || errors.Is(err, client.ErrOutcomeUnknown), "%v", err)
}
