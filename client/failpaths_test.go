package client_test

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/protocol"
)

// outcome collects one record's callback.
type outcome struct {
	done chan struct{}
	rec  *client.Record
	err  error
}

func newOutcome() *outcome { return &outcome{done: make(chan struct{})} }

func (o *outcome) cb(r *client.Record, err error) {
	o.rec, o.err = r, err
	close(o.done)
}

func (o *outcome) wait(t *testing.T) error {
	t.Helper()
	select {
	case <-o.done:
		return o.err
	case <-time.After(30 * time.Second):
		t.Fatal("no callback within 30s")
		return nil
	}
}

// requireOneLine checks what every error a user sees must be: one line,
// no internal package names.
func requireOneLine(t *testing.T, err error) {
	t.Helper()
	require.Error(t, err)
	msg := err.Error()
	require.NotContains(t, msg, "\n", "error on one line")
	for _, pkg := range []string{"idempotence:", "batching:", "protocol:"} {
		require.NotContains(t, msg, pkg, "no internal package in %q", msg)
	}
}

// An unreachable cluster is not an unknown topic: the error says no broker
// was reachable and names the address tried, and neither Produce nor
// TryProduce waits for it: the outcome arrives through the callback.
func TestUnreachableClusterIsTypedAndProduceDoesNotBlock(t *testing.T) {
	p, err := client.NewProducer(client.Brokers("127.0.0.1:1"), client.UnknownTopicWait(time.Second), client.DialTimeout(time.Second))
	require.NoError(t, err)
	defer p.Close(context.Background())
	ctx := context.Background()
	for _, try := range []bool{false, true} {
		o := newOutcome()
		if try {
			p.TryProduce(ctx, &client.Record{Topic: "events", Value: []byte("v")}, o.cb)
		} else {
			p.Produce(ctx, &client.Record{Topic: "events", Value: []byte("v")}, o.cb)
		}
		select {
		case <-o.done:
			t.Fatalf("try=%v: Produce returned only after the outcome (%v): it waited for metadata", try, o.err)
		default:
		}
		err := o.wait(t)
		require.ErrorIs(t, err, client.ErrBrokersUnreachable, "try=%v", try)
		require.ErrorIs(t, err, client.ErrNotWritten)
		require.NotErrorIs(t, err, client.ErrUnknownTopic)
		var be *client.BrokersUnreachableError
		require.ErrorAs(t, err, &be)
		require.Equal(t, []string{"127.0.0.1:1"}, be.Tried)
		require.Contains(t, err.Error(), "127.0.0.1:1")
		requireOneLine(t, err)
	}
}

func TestBrokerAddressesValidated(t *testing.T) {
	for _, addrs := range [][]string{{""}, {"localhost"}, {"kafka:notaport"}, {"", ""}, {"kafka:0"}, {":9092"}} {
		_, err := client.NewProducer(client.Brokers(addrs...))
		require.ErrorIs(t, err, client.ErrInvalidConfig, "%q", addrs)
		require.Contains(t, err.Error(), "Brokers:", "%q", addrs)
		requireOneLine(t, err)
	}
	p, err := client.NewProducer(client.Brokers("localhost:9092", "[::1]:9092"))
	require.NoError(t, err)
	require.NoError(t, p.Close(context.Background()))
}

// Every configuration problem is reported at once, and nil options are
// errors, not panics.
func TestConfigErrorsReportedTogether(t *testing.T) {
	_, err := client.NewProducer(client.Linger(-time.Second), nil, client.MaxInFlight(0), client.DeliveryTimeout(0))
	require.ErrorIs(t, err, client.ErrInvalidConfig)
	for _, field := range []string{"Brokers:", "options:", "Linger:", "MaxInFlight:", "DeliveryTimeout:"} {
		require.Contains(t, err.Error(), field)
	}
	requireOneLine(t, err)
}

// Nil inputs get typed errors: a nil record through Produce (with or
// without a callback) and ProduceSync, and a record without a topic, which
// is refused at once even when no broker is reachable.
func TestNilAndEmptyInputsAreTypedErrors(t *testing.T) {
	c := newCluster(t, 1)
	p := newProducer(t, c)
	ctx := context.Background()
	p.Produce(ctx, nil, nil) // nothing to report to: must not panic
	o := newOutcome()
	p.Produce(ctx, nil, o.cb)
	err := o.wait(t)
	require.ErrorIs(t, err, client.ErrInvalidRecord)
	require.ErrorIs(t, err, client.ErrNotWritten)
	require.Nil(t, o.rec)

	res := p.ProduceSync(ctx, &client.Record{Topic: "t", Value: []byte("ok")}, nil)
	require.NoError(t, res[0].Err)
	require.ErrorIs(t, res[1].Err, client.ErrInvalidRecord)
	requireOneLine(t, res[1].Err)

	err = p.ProduceSync(ctx, &client.Record{Value: []byte("no topic")}).FirstErr()
	require.ErrorIs(t, err, client.ErrInvalidRecord)
	require.ErrorIs(t, err, client.ErrNotWritten)
	require.Contains(t, err.Error(), "Topic")

	unreachable, err := client.NewProducer(client.Brokers("127.0.0.1:1"), client.UnknownTopicWait(time.Hour))
	require.NoError(t, err)
	defer unreachable.Close(context.Background())
	o = newOutcome()
	unreachable.Produce(ctx, &client.Record{}, o.cb)
	select {
	case <-o.done:
	case <-time.After(10 * time.Second):
		t.Fatal("a record without a topic waited for the cluster")
	}
	require.ErrorIs(t, o.err, client.ErrInvalidRecord)
}

// Records certainly not written say so (ErrNotWritten), on one line: after
// Close, too large, unknown partition, unknown topic, and a context ended
// before the record was accepted, which the log confirms absent.
func TestCertainlyNotWrittenSaysSo(t *testing.T) {
	c := newCluster(t, 2)
	p := newProducer(t, c, client.MaxRecordBytes(1000), client.UnknownTopicWait(100*time.Millisecond))
	ctx := context.Background()
	require.NoError(t, p.ProduceSync(ctx, &client.Record{Topic: "t", Partition: 0, HasPartition: true, Value: []byte("warm")}).FirstErr())

	canceled, cancel := context.WithCancel(ctx)
	cancel()
	errs := map[string]error{
		"too large":         p.ProduceSync(ctx, &client.Record{Topic: "t", Value: make([]byte, 2000)}).FirstErr(),
		"unknown partition": p.ProduceSync(ctx, &client.Record{Topic: "t", Partition: 7, HasPartition: true}).FirstErr(),
		"unknown topic":     p.ProduceSync(ctx, &client.Record{Topic: "nope"}).FirstErr(),
		"canceled":          p.ProduceSync(canceled, &client.Record{Topic: "t", Partition: 0, HasPartition: true, Value: []byte("canceled")}).FirstErr(),
	}
	require.ErrorIs(t, errs["too large"], client.ErrRecordTooLarge)
	require.ErrorIs(t, errs["unknown partition"], client.ErrUnknownPartition)
	require.ErrorIs(t, errs["unknown topic"], client.ErrUnknownTopic)
	require.ErrorIs(t, errs["canceled"], context.Canceled)
	require.NoError(t, p.Close(ctx))
	errs["closed"] = p.ProduceSync(ctx, &client.Record{Topic: "t", Value: []byte("late")}).FirstErr()
	require.ErrorIs(t, errs["closed"], client.ErrClosed)
	for name, err := range errs {
		require.ErrorIs(t, err, client.ErrNotWritten, name)
		requireOneLine(t, err)
	}
	// The log agrees: only the warm-up record is there.
	log, err := readback.ReadTopic(ctx, c.Addrs(), "t")
	require.NoError(t, err)
	var values []string
	for _, recs := range log {
		for _, r := range recs {
			values = append(values, string(r.Value))
		}
	}
	require.Equal(t, []string{"warm"}, values)
}

// bufferedHook records the largest and the last depth Hooks.Buffered saw.
type bufferedHook struct {
	mu        sync.Mutex
	max, last int
	calls     atomic.Int64
}

func (h *bufferedHook) Buffered(records int, _ int64) {
	h.calls.Add(1)
	h.mu.Lock()
	h.max, h.last = max(h.max, records), records
	h.mu.Unlock()
}

func (h *bufferedHook) get() (int, int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.max, h.last
}

// Buffered and Hooks.Buffered show 10,000 records held behind a stalled
// broker, and zero once they are acknowledged. Costs about 3 s.
func TestBufferedDepthBehindStalledBroker(t *testing.T) {
	c := newCluster(t, 1)
	hook := &bufferedHook{}
	p := newProducer(t, c, client.WithHooks(client.Hooks{Buffered: hook.Buffered}))
	ctx := context.Background()
	require.NoError(t, p.ProduceSync(ctx, &client.Record{Topic: "t", Value: []byte("warm")}).FirstErr())
	for b := int32(0); b < 3; b++ {
		require.NoError(t, c.DelayResponses(b, 2*time.Second))
	}
	const n = 10_000
	var acked atomic.Int64
	for i := 0; i < n; i++ {
		p.Produce(ctx, &client.Record{Topic: "t", Value: []byte("0123456789")}, func(_ *client.Record, err error) {
			if err == nil {
				acked.Add(1)
			}
		})
	}
	records, bytes := p.Buffered()
	require.Equal(t, n, records, "every record is buffered while the broker stalls")
	require.Greater(t, bytes, int64(n*10))
	require.Eventually(t, func() bool { m, _ := hook.get(); return m == n }, 10*time.Second, 10*time.Millisecond, "Hooks.Buffered reported the depth")
	for b := int32(0); b < 3; b++ {
		require.NoError(t, c.DelayResponses(b, 0))
	}
	require.NoError(t, p.Flush(ctx))
	require.EqualValues(t, n, acked.Load())
	records, bytes = p.Buffered()
	require.Zero(t, records)
	require.Zero(t, bytes)
	require.Eventually(t, func() bool { _, l := hook.get(); return l == 0 }, 10*time.Second, 10*time.Millisecond, "Hooks.Buffered reported the empty buffer")
}

// A stream of records for a topic not known yet keeps its order: records
// produced while the first ones wait for metadata queue behind them.
func TestHeldRecordsKeepOrder(t *testing.T) {
	c := newCluster(t, 1)
	p := newProducer(t, c)
	ctx := context.Background()
	r := newRun()
	r.produce(ctx, t, p, "t", "held", 2000, 1)
	require.NoError(t, p.Flush(ctx))
	rep := r.verify(t, c, "t")
	require.Equal(t, 2000, rep.Acked)
}

// A producer pointed at an HTTP server says so in the record's error.
func TestHTTPEndpointNamedInTheError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 512)
				if _, err := c.Read(buf); err == nil {
					_, _ = c.Write([]byte("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n"))
				}
			}()
		}
	}()
	p, err := client.NewProducer(client.Brokers(ln.Addr().String()), client.UnknownTopicWait(300*time.Millisecond))
	require.NoError(t, err)
	defer p.Close(context.Background())
	err = p.ProduceSync(context.Background(), &client.Record{Topic: "events", Value: []byte("v")}).FirstErr()
	require.ErrorIs(t, err, client.ErrBrokersUnreachable)
	require.ErrorIs(t, err, protocol.ErrNotKafka)
	require.Contains(t, err.Error(), "this is not a Kafka listener (HTTP?)")
	requireOneLine(t, err)
	t.Log(err)
}

// A record waiting for metadata is bounded by the delivery timeout when it
// is shorter than UnknownTopicWait.
func TestHeldRecordBoundedByDeliveryTimeout(t *testing.T) {
	p, err := client.NewProducer(client.Brokers("127.0.0.1:1"), client.UnknownTopicWait(time.Hour), client.DeliveryTimeout(300*time.Millisecond))
	require.NoError(t, err)
	defer p.Close(context.Background())
	o := newOutcome()
	p.Produce(context.Background(), &client.Record{Topic: "events"}, o.cb)
	require.ErrorIs(t, o.wait(t), client.ErrBrokersUnreachable)
}
