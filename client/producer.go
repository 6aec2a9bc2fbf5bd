package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rollsafe/rollsafe/batching"
	"github.com/rollsafe/rollsafe/idempotence"
	"github.com/rollsafe/rollsafe/protocol"
)

// Producer is an idempotent Kafka producer. It is safe for concurrent use.
// Records to one partition are written in the order Produce accepted them,
// each exactly once, across broker restarts, leader moves and the sequence
// errors that make other clients fail.
type Producer struct {
	cfg   config
	log   *slog.Logger
	hooks Hooks

	meta *protocol.Metadata
	pool *protocol.Pool
	acc  *batching.Accumulator

	ctx    context.Context // cancelled by Close after draining
	cancel context.CancelFunc
	wg     sync.WaitGroup

	closing atomic.Bool
	pending atomic.Int64  // records accepted and not yet called back
	idle    chan struct{} // signalled when pending drops to zero

	calls *callbackQueue

	unknownMu sync.Mutex
	unknown   map[string]unknownTopic

	mu      sync.Mutex // guards everything below
	idem    *idempotence.Producer
	batches map[idempotence.BatchID]*batchState
	nextID  idempotence.BatchID
	parts   map[idempotence.TopicPartition]*partition
	senders map[int32]*sender
	initing bool // an InitProducerId is under way

	metaKick chan struct{} // asks the metadata loop for a refresh
}

// batchState is one closed batch the engine owns until it is resolved.
type batchState struct {
	b    *batching.Batch
	sent bool
}

// partition is the engine's view of one partition's placement.
type partition struct {
	tp          idempotence.TopicPartition
	leader      int32 // -1: unknown
	leaderEpoch int32
	needLeader  bool // the idempotence machine waits for LeaderChanged
	tailReading bool
}

// connInFlight bounds the produce requests pipelined on one broker
// connection: up to MaxInFlight per partition, shared by its partitions.
const connInFlight = 64

// NewProducer validates the options and returns a producer. It does not
// wait for the cluster: brokers are contacted in the background, and
// records wait (within their delivery timeout) until they are reachable.
func NewProducer(opts ...Option) (*Producer, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if cfg.logger == nil {
		cfg.logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.hooks == nil {
		cfg.hooks = NopHooks{}
	}
	if cfg.partitioner == nil {
		cfg.partitioner = &DefaultPartitioner{BatchBytes: min(cfg.batchBytes, 16<<10)}
	}
	p := &Producer{
		cfg:      cfg,
		log:      cfg.logger,
		hooks:    cfg.hooks,
		idle:     make(chan struct{}, 1),
		batches:  make(map[idempotence.BatchID]*batchState),
		parts:    make(map[idempotence.TopicPartition]*partition),
		senders:  make(map[int32]*sender),
		metaKick: make(chan struct{}, 1),
		unknown:  make(map[string]unknownTopic),
		idem: idempotence.New(idempotence.Config{
			MaxInFlight:    cfg.maxInFlight,
			StopOnDataLoss: cfg.stopOnDataLoss,
			RetryBackoff:   max(cfg.retryBackoff, time.Nanosecond),
		}),
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	connCfg := protocol.ConnConfig{
		ClientID:       cfg.clientID,
		DialTimeout:    cfg.dialTimeout,
		TLS:            cfg.tls,
		MaxInFlight:    connInFlight,
		RequestTimeout: cfg.requestTimeout + 5*time.Second,
		Authenticate:   cfg.auth,
		Logger:         cfg.logger,
	}
	p.meta = protocol.NewMetadata(cfg.brokers, protocol.MetadataConfig{
		Conn:            connCfg,
		RefreshInterval: -1, // the producer's metadata loop refreshes
		RefreshTimeout:  cfg.requestTimeout,
		Logger:          cfg.logger,
	})
	p.pool = protocol.NewPool(p.meta, protocol.PoolConfig{Conn: connCfg, BackoffMin: 20 * time.Millisecond, BackoffMax: time.Second, Logger: cfg.logger})
	acc, err := batching.NewAccumulator(batching.Config{
		Codec:              cfg.codec,
		Level:              cfg.level,
		BatchBytes:         cfg.batchBytes,
		Linger:             cfg.linger,
		MaxRecordBytes:     cfg.maxRecordBytes,
		MaxBufferedBytes:   cfg.maxBufferedBytes,
		MaxBufferedRecords: cfg.maxBufferedRecs,
		Workers:            cfg.workers,
	}, p.batchReady)
	if err != nil {
		p.pool.Close()
		p.meta.Close()
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	p.acc = acc
	p.calls = newCallbackQueue(p.recordsDone)
	p.wg.Add(3)
	go func() { defer p.wg.Done(); p.calls.run() }()
	go func() { defer p.wg.Done(); p.metadataLoop() }()
	go func() { defer p.wg.Done(); p.tickLoop() }()
	if cfg.idempotent {
		p.mu.Lock()
		p.initProducerIDLocked()
		p.mu.Unlock()
	} else {
		p.idem.SetIdentity(-1, -1)
	}
	return p, nil
}

// Produce hands r to the producer; cb (which may be nil) is called once
// with r and nil when r is acknowledged, or with the reason it was not.
// Produce blocks while the buffer is full or the topic's metadata is
// unknown, until ctx ends; cb is always called, even then.
func (p *Producer) Produce(ctx context.Context, r *Record, cb func(*Record, error)) {
	p.produce(ctx, r, cb, false)
}

// TryProduce is Produce that fails at once with ErrBufferFull instead of
// waiting for buffer room.
func (p *Producer) TryProduce(ctx context.Context, r *Record, cb func(*Record, error)) {
	p.produce(ctx, r, cb, true)
}

// ProduceSync produces the records and waits for every outcome.
func (p *Producer) ProduceSync(ctx context.Context, rs ...*Record) Results {
	out := make(Results, len(rs))
	var wg sync.WaitGroup
	wg.Add(len(rs))
	for i, r := range rs {
		out[i].Record = r
		p.Produce(ctx, r, func(_ *Record, err error) {
			out[i].Err = err
			wg.Done()
		})
	}
	wg.Wait()
	return out
}

func (p *Producer) produce(ctx context.Context, r *Record, cb func(*Record, error), try bool) {
	r.Offset = -1
	r.cb = cb
	p.pending.Add(1)
	if p.closing.Load() {
		p.finish(r, ErrClosed)
		return
	}
	if r.Timestamp.IsZero() {
		r.Timestamp = time.Now()
	}
	tp, err := p.partitionFor(ctx, r)
	if err != nil {
		p.finish(r, err)
		return
	}
	br := batching.Record{Key: r.Key, Value: r.Value, Headers: r.Headers, Timestamp: r.Timestamp}
	btp := batching.TopicPartition{Topic: tp.Topic, Partition: tp.Partition}
	if try {
		err = p.acc.TryAppend(btp, &br, r)
	} else {
		err = p.acc.Append(ctx, btp, &br, r)
	}
	if errors.Is(err, batching.ErrClosed) {
		err = errors.Join(ErrClosed, ErrNotWritten)
	}
	if err != nil {
		p.finish(r, err)
	}
}

// partitionFor resolves r's partition, waiting for the topic's metadata.
func (p *Producer) partitionFor(ctx context.Context, r *Record) (idempotence.TopicPartition, error) {
	n, err := p.meta.Partitions(r.Topic)
	if err != nil {
		if err := p.recentlyUnknown(r.Topic); err != nil {
			return idempotence.TopicPartition{}, err
		}
		n, err = p.waitTopic(ctx, r.Topic)
		if err != nil {
			return idempotence.TopicPartition{}, err
		}
	}
	part := r.Partition
	if !r.HasPartition {
		part = p.cfg.partitioner.Partition(r, n)
	}
	if part < 0 || part >= n {
		return idempotence.TopicPartition{}, fmt.Errorf("%w: %s[%d] (the topic has %d partitions)", ErrUnknownPartition, r.Topic, part, n)
	}
	r.Partition = part
	return idempotence.TopicPartition{Topic: r.Topic, Partition: part}, nil
}

// waitTopic refreshes metadata until topic appears, UnknownTopicWait
// passes, or ctx ends.
func (p *Producer) waitTopic(ctx context.Context, topic string) (int32, error) {
	deadline := time.Now().Add(p.cfg.unknownTopicWait)
	backoff := 25 * time.Millisecond
	var last error
	for {
		rctx, cancel := context.WithTimeout(ctx, p.cfg.requestTimeout)
		err := p.meta.Refresh(rctx, topic)
		cancel()
		if n, perr := p.meta.Partitions(topic); perr == nil {
			return n, nil
		} else if err == nil {
			last = perr
		} else {
			last = err
		}
		if err := authError(last); errors.Is(err, ErrAuthorization) || errors.Is(err, ErrAuthentication) {
			// Wrong credentials or no access: waiting cannot help.
			err = fmt.Errorf("client: metadata for topic %q: %w", topic, err)
			p.unknownMu.Lock()
			p.unknown[topic] = unknownTopic{at: time.Now(), err: err}
			p.unknownMu.Unlock()
			return 0, err
		}
		if time.Now().Add(backoff).After(deadline) {
			err := fmt.Errorf("%w %q after %v: %w", ErrUnknownTopic, topic, p.cfg.unknownTopicWait, last)
			p.unknownMu.Lock()
			p.unknown[topic] = unknownTopic{at: time.Now(), err: err}
			p.unknownMu.Unlock()
			return 0, err
		}
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("%w %q: %w", ErrUnknownTopic, topic, ctx.Err())
		case <-p.ctx.Done():
			return 0, ErrClosed
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, time.Second)
	}
}

// unknownTopic remembers a topic found missing, so that a stream of records
// for it fails at once instead of each waiting UnknownTopicWait.
type unknownTopic struct {
	at  time.Time
	err error
}

// unknownTopicMemory is how long a missing topic's verdict is reused.
const unknownTopicMemory = time.Second

func (p *Producer) recentlyUnknown(topic string) error {
	p.unknownMu.Lock()
	defer p.unknownMu.Unlock()
	u, ok := p.unknown[topic]
	if !ok {
		return nil
	}
	if time.Since(u.at) > unknownTopicMemory {
		delete(p.unknown, topic)
		return nil
	}
	return u.err
}

// finish calls r's callback (through the ordered callback queue).
func (p *Producer) finish(r *Record, err error) {
	p.calls.push(r, err)
}

// recordsDone runs after n records' callbacks.
func (p *Producer) recordsDone(n int) {
	if p.pending.Add(-int64(n)) == 0 {
		select {
		case p.idle <- struct{}{}:
		default:
		}
	}
}

// Flush sends every buffered record now and waits until every record
// accepted so far is resolved (acknowledged or failed), or ctx ends.
func (p *Producer) Flush(ctx context.Context) error {
	p.acc.Flush()
	for p.pending.Load() > 0 {
		select {
		case <-ctx.Done():
			return fmt.Errorf("client: flush: %d records unresolved: %w", p.pending.Load(), ctx.Err())
		case <-p.idle:
		case <-time.After(flushPoll):
			// Records that reached the accumulator after the flush
			// began (a Produce waiting for metadata) wait for no linger.
			p.acc.Flush()
		}
	}
	return nil
}

// flushPoll is how often Flush closes batches again while it waits.
const flushPoll = 5 * time.Millisecond

// Close stops accepting records, waits until every buffered record is
// resolved or ctx ends, then fails what is left with ErrClosed (joined
// with ErrNotWritten or ErrOutcomeUnknown) and releases everything.
// No goroutine of the producer outlives Close.
func (p *Producer) Close(ctx context.Context) error {
	if p.closing.Swap(true) {
		return ErrClosed
	}
	ferr := p.Flush(ctx)
	p.cancel()
	p.acc.Close()
	p.mu.Lock()
	for id, bs := range p.batches {
		delete(p.batches, id)
		p.failBatchLocked(bs, closedErr(bs.sent))
	}
	senders := p.senders
	p.senders = map[int32]*sender{}
	p.mu.Unlock()
	for _, s := range senders {
		s.stop()
	}
	p.pool.Close()
	p.meta.Close()
	p.calls.close()
	p.wg.Wait()
	if ferr != nil {
		return fmt.Errorf("%w: %w", ErrClosed, ferr)
	}
	return nil
}

func closedErr(sent bool) error {
	if sent {
		return errors.Join(ErrClosed, ErrOutcomeUnknown)
	}
	return errors.Join(ErrClosed, ErrNotWritten)
}
