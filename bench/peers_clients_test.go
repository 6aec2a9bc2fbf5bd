package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/IBM/sarama"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/rollsafe/rollsafe/batching/fixture"
	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/compress"
)

// peerProducer is one client under comparison: asynchronous produce, a
// wait for every outcome, and close. Every client runs with acks=all,
// idempotence on, the given codec at its default level, and otherwise its
// own defaults (kgo's record buffer raised to rollsafe's 1Mi records).
type peerProducer interface {
	// produce hands ev to the client as a keyed record to peersTopic.
	produce(ctx context.Context, ev *fixture.Event)
	// flush waits until every record produced so far has its outcome and
	// returns the first record error since the last flush.
	flush(ctx context.Context) error
	close() error
}

// batchCounter is a peer that counts the batches the broker acknowledged
// and the produce requests it wrote (from its client's own hooks), for the
// benchmark's rec/batch and rec/req.
type batchCounter interface {
	batchesAcked() int64
	requestsSent() int64
}

// ackFunc, when not nil, is told the partition and offset of every
// acknowledged record (the test uses it; the benchmark does not).
type ackFunc func(partition int32, offset int64)

type peerClient struct {
	name string
	open func(ctx context.Context, addrs []string, codec compress.Codec, ack ackFunc) (peerProducer, error)
}

var peerClients = []peerClient{
	{"rollsafe", openRollsafe},
	{"kgo", openKgo},
	{"sarama", openSarama},
}

// outcomes counts records awaiting their outcome and keeps the first error.
// It is the harness's own cost per record, paid alike by every client, so it
// writes nothing two goroutines share: the producing goroutine counts what it
// produced in a plain field, the callbacks count what resolved on a cache
// line of their own (a sync.WaitGroup, Add per record on one goroutine and
// Done on another, bounced its line between the cores: ~17 % of a 100 B
// record's CPU in a profile of either client).
type outcomes struct {
	produced int64 // records expected; the producing goroutine's alone
	_        [56]byte
	resolved atomic.Int64 // outcomes seen so far
	_        [56]byte
	want     atomic.Int64 // the count wait is waiting for; set once per wait
	wake     chan struct{}
	mu       sync.Mutex
	first    error
	ack      ackFunc
}

func newOutcomes(ack ackFunc) outcomes { return outcomes{ack: ack, wake: make(chan struct{}, 1)} }

// expect counts one more record awaiting its outcome; called by the
// goroutine that produces and waits.
func (o *outcomes) expect() { o.produced++ }

// settle counts one outcome; the callback that reaches the count wait is
// waiting for wakes it.
func (o *outcomes) settle() {
	if o.resolved.Add(1) == o.want.Load() {
		select {
		case o.wake <- struct{}{}:
		default:
		}
	}
}

func (o *outcomes) done(partition int32, offset int64, err error) {
	if err != nil {
		o.mu.Lock()
		if o.first == nil {
			o.first = err
		}
		o.mu.Unlock()
	} else if o.ack != nil {
		o.ack(partition, offset)
	}
	o.settle()
}

// wait waits for the outcome of every record expected so far or ctx, and
// returns (and forgets) the first record error. Called by the goroutine that
// calls expect.
func (o *outcomes) wait(ctx context.Context) error {
	o.want.Store(o.produced)
	for o.resolved.Load() < o.produced {
		select {
		case <-o.wake:
		case <-ctx.Done():
			return fmt.Errorf("waiting for outcomes (%d of %d): %w", o.resolved.Load(), o.produced, ctx.Err())
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	err := o.first
	o.first = nil
	return err
}

// errUnknownCodec is returned for a codec a peer client has no mapping for.
var errUnknownCodec = errors.New("bench: unknown codec")

// --- rollsafe ---

type rollsafeProducer struct {
	p        *client.Producer
	o        outcomes
	cb       func(*client.Record, error)
	batches  atomic.Int64
	requests atomic.Int64
}

func (rp *rollsafeProducer) batchesAcked() int64 { return rp.batches.Load() }
func (rp *rollsafeProducer) requestsSent() int64 { return rp.requests.Load() }

func openRollsafe(_ context.Context, addrs []string, codec compress.Codec, ack ackFunc) (peerProducer, error) {
	return newRollsafe(addrs, codec, ack)
}

// newRollsafe opens the benchmark's rollsafe producer; extra options come
// after the common ones.
func newRollsafe(addrs []string, codec compress.Codec, ack ackFunc, extra ...client.Option) (*rollsafeProducer, error) {
	rp := &rollsafeProducer{o: newOutcomes(ack)}
	acked := func(string, int32, int, int64) { rp.batches.Add(1) }
	answered := func(int32, time.Duration) { rp.requests.Add(1) }
	opts := append([]client.Option{client.Brokers(addrs...), client.ClientID("bench-rollsafe"),
		client.Acks(client.AcksAll), client.Compression(codec, compress.DefaultLevel),
		client.WithHooks(client.Hooks{BatchAcked: acked, RequestLatency: answered})}, extra...)
	p, err := client.NewProducer(opts...)
	if err != nil {
		return nil, err
	}
	rp.p = p
	rp.cb = func(r *client.Record, err error) { rp.o.done(r.Partition, r.Offset, err) }
	return rp, nil
}

func (rp *rollsafeProducer) produce(ctx context.Context, ev *fixture.Event) {
	rp.o.expect()
	rp.p.Produce(ctx, &client.Record{Topic: peersTopic, Key: ev.Key, Value: ev.Value, Timestamp: ev.Timestamp}, rp.cb)
}

func (rp *rollsafeProducer) flush(ctx context.Context) error {
	if err := rp.p.Flush(ctx); err != nil {
		return err
	}
	return rp.o.wait(ctx)
}

// closeTimeout bounds a client's Close; every record is resolved by then.
const closeTimeout = 30 * time.Second

func (rp *rollsafeProducer) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	return rp.p.Close(ctx)
}

// --- franz-go kgo ---

type kgoProducer struct {
	cl      *kgo.Client
	o       outcomes
	promise func(*kgo.Record, error)
	batches kgoBatchHook
}

func (kp *kgoProducer) batchesAcked() int64 { return kp.batches.n.Load() }
func (kp *kgoProducer) requestsSent() int64 { return kp.batches.reqs.Load() }

// kgoBatchHook counts the batches kgo reports written and the produce
// requests it writes.
type kgoBatchHook struct{ n, reqs *atomic.Int64 }

func (h kgoBatchHook) OnProduceBatchWritten(kgo.BrokerMetadata, string, int32, kgo.ProduceBatchMetrics) {
	h.n.Add(1)
}

func (h kgoBatchHook) OnBrokerWrite(_ kgo.BrokerMetadata, key int16, _ int, _, _ time.Duration, err error) {
	if key == 0 && err == nil { // Produce
		h.reqs.Add(1)
	}
}

func kgoCodec(c compress.Codec) (kgo.CompressionCodec, error) {
	switch c {
	case compress.None:
		return kgo.NoCompression(), nil
	case compress.Gzip:
		return kgo.GzipCompression(), nil
	case compress.Snappy:
		return kgo.SnappyCompression(), nil
	case compress.LZ4:
		return kgo.Lz4Compression(), nil
	case compress.Zstd:
		return kgo.ZstdCompression(), nil
	}
	return kgo.CompressionCodec{}, fmt.Errorf("%w: %v", errUnknownCodec, c)
}

func openKgo(_ context.Context, addrs []string, codec compress.Codec, ack ackFunc) (peerProducer, error) {
	return newKgo(addrs, codec, ack)
}

// newKgo opens the benchmark's kgo client; extra options come after the
// common ones (and override them).
func newKgo(addrs []string, codec compress.Codec, ack ackFunc, extra ...kgo.Opt) (*kgoProducer, error) {
	kc, err := kgoCodec(codec)
	if err != nil {
		return nil, err
	}
	kp := &kgoProducer{o: newOutcomes(ack), batches: kgoBatchHook{new(atomic.Int64), new(atomic.Int64)}}
	opts := append([]kgo.Opt{kgo.SeedBrokers(addrs...), kgo.ClientID("bench-kgo"),
		kgo.DefaultProduceTopic(peersTopic), kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.ProducerBatchCompression(kc), kgo.MaxBufferedRecords(1 << 20), kgo.WithHooks(kp.batches)}, extra...)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, err
	}
	kp.cl = cl
	kp.promise = func(r *kgo.Record, err error) { kp.o.done(r.Partition, r.Offset, err) }
	return kp, nil
}

func (kp *kgoProducer) produce(ctx context.Context, ev *fixture.Event) {
	kp.o.expect()
	kp.cl.Produce(ctx, &kgo.Record{Key: ev.Key, Value: ev.Value, Timestamp: ev.Timestamp}, kp.promise)
}

func (kp *kgoProducer) flush(ctx context.Context) error {
	if err := kp.cl.Flush(ctx); err != nil {
		return err
	}
	return kp.o.wait(ctx)
}

func (kp *kgoProducer) close() error { kp.cl.Close(); return nil }

// --- IBM/sarama ---

// saramaProducer drives an AsyncProducer; one goroutine drains its success
// and error channels.
type saramaProducer struct {
	ap      sarama.AsyncProducer
	o       outcomes
	drained chan struct{}
}

func saramaCodec(c compress.Codec) (sarama.CompressionCodec, error) {
	switch c {
	case compress.None:
		return sarama.CompressionNone, nil
	case compress.Gzip:
		return sarama.CompressionGZIP, nil
	case compress.Snappy:
		return sarama.CompressionSnappy, nil
	case compress.LZ4:
		return sarama.CompressionLZ4, nil
	case compress.Zstd:
		return sarama.CompressionZSTD, nil
	}
	return 0, fmt.Errorf("%w: %v", errUnknownCodec, c)
}

func openSarama(_ context.Context, addrs []string, codec compress.Codec, ack ackFunc) (peerProducer, error) {
	sc, err := saramaCodec(codec)
	if err != nil {
		return nil, err
	}
	cfg := sarama.NewConfig()
	cfg.ClientID = "bench-sarama"
	cfg.Producer.Idempotent = true
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	cfg.Net.MaxOpenRequests = 1 // sarama's idempotent producer requires it
	cfg.Producer.Compression = sc
	cfg.Producer.Return.Successes = true
	cfg.Producer.Return.Errors = true
	ap, err := sarama.NewAsyncProducer(addrs, cfg)
	if err != nil {
		return nil, err
	}
	sp := &saramaProducer{ap: ap, o: newOutcomes(ack), drained: make(chan struct{})}
	go sp.drain()
	return sp, nil
}

// drain reports every outcome until both channels close (on Close).
func (sp *saramaProducer) drain() {
	defer close(sp.drained)
	succ, errs := sp.ap.Successes(), sp.ap.Errors()
	for succ != nil || errs != nil {
		select {
		case m, ok := <-succ:
			if !ok {
				succ = nil
				continue
			}
			sp.o.done(m.Partition, m.Offset, nil)
		case e, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			sp.o.done(e.Msg.Partition, -1, e.Err)
		}
	}
}

func (sp *saramaProducer) produce(ctx context.Context, ev *fixture.Event) {
	sp.o.expect()
	m := &sarama.ProducerMessage{Topic: peersTopic, Key: sarama.ByteEncoder(ev.Key),
		Value: sarama.ByteEncoder(ev.Value), Timestamp: ev.Timestamp}
	select {
	case sp.ap.Input() <- m:
	case <-ctx.Done():
		sp.o.done(-1, -1, ctx.Err())
	}
}

// flush waits for outcomes: sarama sends as soon as it can and has no flush.
func (sp *saramaProducer) flush(ctx context.Context) error { return sp.o.wait(ctx) }

func (sp *saramaProducer) close() error {
	err := sp.ap.Close()
	<-sp.drained
	return err
}
