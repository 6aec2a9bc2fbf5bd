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
	// pool holds the producer's first produce connection to each broker
	// (and the one InitProducerId goes on); pools are every lane's, pool
	// first (ProduceConnections).
	pool  *protocol.Pool
	pools []*protocol.Pool
	// readPool holds the connections for log reads and producer-state
	// queries, apart from produce traffic.
	readPool *protocol.Pool
	acc      *batching.Accumulator

	ctx    context.Context // cancelled by Close after draining
	cancel context.CancelFunc
	wg     sync.WaitGroup

	closing atomic.Bool
	pending atomic.Int64  // records accepted and not yet called back
	idle    chan struct{} // signalled when pending drops to zero
	// flushing counts the Flush calls under way: records held for their
	// topic's metadata and placed meanwhile do not linger (loop_held.go).
	flushing atomic.Int32

	calls *callbackQueue

	deliverFn  func(*Record, error) // p.deliver, allocated once
	backupPart BackupPartitioner    // cfg.partitioner, if it chooses by backlog
	held       heldTopics           // topics whose records wait for metadata in the loop
	parts      partCache            // each known topic's partition refs

	unknownMu sync.Mutex
	unknown   map[string]unknownTopic

	// txnGate admits records while a transaction is open (TransactionalID);
	// txnPool holds the connection to the transaction coordinator.
	txnGate txnGate
	txnPool *protocol.Pool
	// txnUnfinished: the transaction call (txnKind) whose context ended
	// before its outcome, 0 if none.
	txnUnfinished atomic.Int32
	// txnEnding: the commit or abort under way (txn_end.go).
	txnEnding txnEnding

	loop     *loop         // owns the idempotence machine and every batch
	topics   topicSet      // topics written to, for metadata refreshes
	metaKick chan struct{} // asks the metadata loop for a refresh
}

// responseSlack is how late past RequestTimeout an answer may be before
// its connection is closed: the broker's time to take the request up and
// append it, and the network's. The wait starts when the request was
// written or, behind another on its connection, when that one was answered
// (Kafka handles a connection's requests one at a time).
const responseSlack = 2 * time.Second

// connInFlight bounds the requests pipelined on one broker connection:
// the loop hands a broker's sender at most MaxInFlight produce requests at
// a time (loop_send.go); the rest is room for other requests.
const connInFlight = 64

// NewProducer validates the options and returns a producer. It does not
// wait for the cluster: brokers are contacted in the background, and
// records wait (within their delivery timeout) until they are reachable.
func NewProducer(opts ...Option) (*Producer, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		if o == nil {
			cfg.nilOptions++
			continue
		}
		o(&cfg)
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if cfg.logger == nil {
		cfg.logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	watchBuffer := cfg.hooks.Buffered != nil
	cfg.hooks = cfg.hooks.filled()
	if cfg.partitioner == nil {
		cfg.partitioner = &DefaultPartitioner{BatchBytes: min(cfg.batchBytes, 16<<10)}
	}
	p := &Producer{
		cfg:      cfg,
		log:      cfg.logger,
		hooks:    cfg.hooks,
		idle:     make(chan struct{}, 1),
		metaKick: make(chan struct{}, 1),
		unknown:  make(map[string]unknownTopic),
	}
	if bp, ok := cfg.partitioner.(BackupPartitioner); ok {
		p.backupPart, p.parts.track = bp, true
	}
	p.loop = newLoop(p, idempotence.Config{
		MaxInFlight:          cfg.maxInFlight,
		StopOnDataLoss:       cfg.stopOnDataLoss,
		RetryBackoff:         max(cfg.retryBackoff, time.Nanosecond),
		RetryBackoffMax:      cfg.retryBackoffMax,
		LeaderAcks:           cfg.acks == AcksLeader,
		ProducerIDExpiration: cfg.pidExpiration,
		AnswerTimeout:        cfg.requestTimeout + responseSlack,
		Transactional:        cfg.txnID != "",
	})
	p.ctx, p.cancel = context.WithCancel(context.Background())
	connCfg := protocol.ConnConfig{
		ClientID:       cfg.clientID,
		DialTimeout:    cfg.dialTimeout,
		TLS:            cfg.tls,
		MaxInFlight:    connInFlight,
		RequestTimeout: cfg.requestTimeout + responseSlack,
		Authenticate:   cfg.auth,
		Logger:         cfg.logger,
		Dial:           cfg.dial,
	}
	if cfg.txnID != "" {
		connCfg.MaxVersions = txnProduceVersions(connCfg.MaxVersions)
	}
	hooks := cfg.hooks
	p.meta = protocol.NewMetadata(cfg.brokers, protocol.MetadataConfig{
		Conn: connCfg,
		Dial: func(ctx context.Context, addr string) (*protocol.Conn, error) {
			start := time.Now()
			c, err := protocol.Dial(ctx, addr, connCfg)
			hooks.BrokerConnect(-1, addr, time.Since(start), err)
			if err == nil {
				c.AfterDone(func(err error) { hooks.BrokerDisconnect(-1, addr, err) })
			}
			return c, err
		},
		RefreshTimeout:         cfg.requestTimeout,
		Logger:                 cfg.logger,
		AllowAutoTopicCreation: cfg.autoCreate,
	})
	p.meta.Watch(p.viewChanged)
	poolCfg := protocol.PoolConfig{Conn: connCfg, BackoffMin: 20 * time.Millisecond, BackoffMax: time.Second, Logger: cfg.logger,
		OnConnect: hooks.BrokerConnect, OnDisconnect: hooks.BrokerDisconnect}
	if cfg.settle != nil {
		poolCfg.Jitter = simJitter
	}
	for range cfg.connections {
		p.pools = append(p.pools, protocol.NewPool(p.meta, poolCfg))
	}
	p.pool = p.pools[0]
	p.readPool = protocol.NewPool(p.meta, poolCfg)
	if cfg.txnID != "" {
		p.txnPool = protocol.NewPool(p.meta, txnPoolConfig(poolCfg))
	}
	acc, err := batching.NewAccumulator(batching.Config{
		Codec:              cfg.codec,
		Level:              cfg.level,
		BatchBytes:         cfg.batchBytes,
		BatchRecords:       cfg.batchRecords,
		Linger:             cfg.linger,
		MaxRecordBytes:     cfg.maxRecordBytes,
		MaxBufferedBytes:   cfg.maxBufferedBytes,
		MaxBufferedRecords: cfg.maxBufferedRecs,
		Workers:            cfg.workers,
		HoldUntilSent:      true,
		Transactional:      cfg.txnID != "",
	}, p.batchReady)
	if err != nil {
		p.closePools()
		p.meta.Close()
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	p.acc = acc
	p.calls = newCallbackQueue(p.recordsDone)
	p.deliverFn = p.deliver
	if cfg.txnID != "" {
		// InitTransactions asks for the producer id (loop_txn.go).
	} else if cfg.idempotent {
		p.loop.initProducerID()
	} else {
		p.loop.step(idempotence.SetIdentity{ProducerID: -1, Epoch: -1})
	}
	p.wg.Add(3)
	go func() { defer p.wg.Done(); p.calls.run() }()
	go func() { defer p.wg.Done(); p.metadataLoop() }()
	go func() { defer p.wg.Done(); p.loop.run() }()
	if watchBuffer {
		p.wg.Add(1)
		go func() { defer p.wg.Done(); p.bufferedLoop() }()
	}
	return p, nil
}

// Produce hands r to the producer; cb (which may be nil) is called once
// with r and nil when r is acknowledged, or with the reason it was not.
// Produce never waits for the cluster: a record for a topic whose metadata
// is not known yet is queued, and its outcome (within UnknownTopicWait and
// the delivery timeout) comes through cb. Produce blocks only while the
// buffer is full, until ctx ends. A nil r (or one without a Topic) fails
// at once with ErrInvalidRecord; cb is then called with r, possibly nil.
// cb is always called.
//
// ctx bounds r until its batch is numbered (given its sequence numbers,
// as it is first sent): a record whose ctx ends before then fails with
// ErrNotWritten and ctx's error, and is never sent. Which records are
// taken back when ctx ends:
//
//   - one not yet accepted (waiting for buffer room): at once;
//   - one held for its topic's metadata: at once;
//   - one in a closed batch that holds no sequence yet (queued behind the
//     MaxInFlight requests in flight, or waiting for a leader): at once;
//     the batch is rebuilt from its other records and keeps its place, so
//     the partition's numbering has no hole;
//   - one in a batch still open: when the batch closes (Linger, a full
//     batch, Flush), before it is numbered.
//
// Once its batch is numbered, ctx no longer matters: the delivery timeout
// bounds r, and its outcome is the cluster's. The callback of a record
// taken back may come before those of records produced earlier to its
// partition. (ProduceSync's records are bounded by its ctx as it says, and
// not taken back.) A ctx that never ends (context.Background) costs
// nothing; one that can end costs a context.AfterFunc per record.
//
// TestCancelQueuedBatch, TestCancelOpenBatch, TestCancelHeldRecord and
// TestCancelAfterNumbering (cancel_test.go) show each case against the
// sim, reading the log back: go test ./client -run TestCancel.
//
// r, and the Key, Value and Headers it points to, belong to the producer
// until cb is called: do not modify or reuse them before (a record waiting
// for its topic's metadata is copied into its batch only then). Callbacks
// run on one goroutine, one at a time, in offset order per partition; a
// slow callback delays the later ones and Flush. A callback may call
// Produce, TryProduce and ProduceSync (a dead-letter produce); Flush and
// Close there return ErrInCallback.
func (p *Producer) Produce(ctx context.Context, r *Record, cb func(*Record, error)) {
	if r != nil {
		r.direct = false
	}
	p.produce(ctx, r, cb, false)
}

// TryProduce is Produce that fails at once with ErrBufferFull (and
// ErrNotWritten) instead of waiting for buffer room.
func (p *Producer) TryProduce(ctx context.Context, r *Record, cb func(*Record, error)) {
	if r != nil {
		r.direct = false
	}
	p.produce(ctx, r, cb, true)
}

// ProduceSync produces the records and waits for every outcome, or until
// ctx ends: a record still unresolved then gets an error matching
// ErrOutcomeUnknown and ctx's error (it may still be written; do not reuse
// it). A nil record's result is ErrInvalidRecord. ProduceSync may be called
// from a record callback (a dead-letter produce): its outcomes do not wait
// behind that callback.
func (p *Producer) ProduceSync(ctx context.Context, rs ...*Record) Results {
	out := make(Results, len(rs))
	if len(rs) == 0 {
		return out
	}
	if ctx == nil {
		ctx = context.Background()
	}
	s := &syncWait{left: len(rs), settled: make([]bool, len(rs)), done: make(chan struct{})}
	for i, r := range rs {
		out[i].Record = r
		if r == nil {
			s.settle(out, i, publicError(notWritten(fmt.Errorf("%w: nil *Record", ErrInvalidRecord))))
			continue
		}
		r.direct = true
		p.produce(ctx, r, func(_ *Record, err error) { s.settle(out, i, err) }, false)
	}
	select {
	case <-s.done:
	case <-ctx.Done():
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.returned = true
	for i := range out {
		if !s.settled[i] {
			out[i].Err = publicError(&wrapped{err: fmt.Errorf("context ended before the outcome was known: %w", ctx.Err()), also: ErrOutcomeUnknown})
		}
	}
	return out
}

// syncWait gathers ProduceSync's outcomes.
type syncWait struct {
	mu       sync.Mutex
	left     int
	settled  []bool
	returned bool // ProduceSync returned: later outcomes are dropped
	done     chan struct{}
}

func (s *syncWait) settle(out Results, i int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.returned || s.settled[i] {
		return
	}
	s.settled[i], out[i].Err = true, err
	if s.left--; s.left == 0 {
		close(s.done)
	}
}

func (p *Producer) produce(ctx context.Context, r *Record, cb func(*Record, error), try bool) {
	if r == nil {
		p.refuse(cb, fmt.Errorf("%w: nil *Record", ErrInvalidRecord))
		return
	}
	r.Offset = -1
	r.cb, r.userCb = nil, cb
	if cb != nil {
		r.cb = p.deliverFn
	}
	p.pending.Add(1)
	if p.closing.Load() {
		p.finish(r, notWritten(ErrClosed))
		return
	}
	if r.Topic == "" {
		p.finish(r, notWritten(fmt.Errorf("%w: empty Topic", ErrInvalidRecord)))
		return
	}
	if p.cfg.txnID != "" {
		if !p.txnGate.enter() {
			p.finish(r, errNoTransaction)
			return
		}
		defer p.txnGate.leave()
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		p.finish(r, contextError(err))
		return
	}
	p.watchContext(ctx, r)
	if r.Timestamp.IsZero() {
		r.Timestamp = time.Now()
	}
	if p.held.n.Load() == 0 {
		// The common case: no topic waits for metadata and r's is known.
		if tp := p.parts.lookup(p.meta, p.acc, r.Topic); tp != nil {
			p.appendTo(ctx, r, tp, try, nil)
			return
		}
	}
	p.produceSlow(ctx, r, try)
}

// appendReserved places r, admitted into the buffer room rv while its
// topic's metadata was not known, in its partition (the metadata is known
// now) and appends it to the accumulator, without waiting.
func (p *Producer) appendReserved(r *Record, rv batching.Reservation) {
	tp := p.parts.lookup(p.meta, p.acc, r.Topic)
	if tp == nil {
		p.acc.Unreserve(rv)
		n, err := p.meta.Partitions(r.Topic)
		if err != nil {
			p.finish(r, notWritten(fmt.Errorf("%w %q: %w", ErrUnknownTopic, r.Topic, err)))
			return
		}
		// Known, with no partitions: no partition can take r.
		p.finish(r, notWritten(fmt.Errorf("%w: %s[%d] (the topic has %d partitions)", ErrUnknownPartition, r.Topic, r.Partition, n)))
		return
	}
	p.appendTo(context.Background(), r, tp, false, &rv)
}

// appendTo places r in one of its topic's partitions tp and appends it to
// the accumulator: into the room rv reserved, if rv is not nil (rv ends
// whatever the outcome), else waiting for room within ctx unless try.
func (p *Producer) appendTo(ctx context.Context, r *Record, tp *topicParts, try bool, rv *batching.Reservation) {
	part := r.Partition
	if !r.HasPartition {
		if bp := p.backupPart; bp != nil {
			part = bp.PartitionByBackup(r, tp.n, tp)
		} else {
			part = p.cfg.partitioner.Partition(r, tp.n)
		}
	}
	if part < 0 || part >= tp.n {
		if rv != nil {
			p.acc.Unreserve(*rv)
		}
		p.finish(r, notWritten(fmt.Errorf("%w: %s[%d] (the topic has %d partitions)", ErrUnknownPartition, r.Topic, part, tp.n)))
		return
	}
	r.Partition = part
	var err error
	switch {
	case rv != nil:
		err = p.acc.AppendReservedTo(tp.refs[part], tokenOf(r), *rv)
	case try:
		err = p.acc.TryAppendSourceTo(tp.refs[part], tokenOf(r))
	default:
		err = p.acc.AppendSourceTo(ctx, tp.refs[part], tokenOf(r))
	}
	if err != nil {
		p.finish(r, notWritten(accError(ctx, err)))
		return
	}
	if tp.backlog != nil {
		tp.addBacklog(part, 1)
	}
}

// refuse reports a nil record to cb, if any.
func (p *Producer) refuse(cb func(*Record, error), err error) {
	err = notWritten(err)
	if cb == nil {
		p.log.Warn("rollsafe: Produce refused a record", "err", err)
		return
	}
	r := &Record{Offset: -1, cb: func(*Record, error) { cb(nil, publicError(err)) }}
	p.pending.Add(1)
	p.finish(r, err)
}

// deliver calls a record's own callback with the error as users see it.
func (p *Producer) deliver(r *Record, err error) {
	cb := r.userCb
	r.userCb = nil
	if cb != nil {
		cb(r, publicError(err))
	}
}

// waitTopic refreshes metadata until topic appears, UnknownTopicWait (or
// the delivery timeout, if shorter) passes, or the producer closes. A
// cluster that could not be reached at all is a *BrokersUnreachableError.
func (p *Producer) waitTopic(topic string) (int32, error) {
	wait := min(p.cfg.unknownTopicWait, p.cfg.deliveryTimeout)
	deadline := time.Now().Add(wait)
	backoff := 25 * time.Millisecond
	var last error
	for {
		p.turn(turnTopic, topic)
		rctx, cancel := context.WithTimeout(p.ctx, p.cfg.requestTimeout)
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
			err = notWritten(fmt.Errorf("client: metadata for topic %q: %w", topic, err))
			p.rememberUnknown(topic, err)
			return 0, err
		}
		if p.ctx.Err() != nil {
			return 0, notWritten(ErrClosed)
		}
		if time.Now().Add(backoff).After(deadline) {
			if errors.Is(last, protocol.ErrNoBroker) {
				return 0, &BrokersUnreachableError{Topic: topic, Tried: p.cfg.brokers, Err: last}
			}
			err := notWritten(fmt.Errorf("%w %q after %v: %w", ErrUnknownTopic, topic, wait, last))
			p.rememberUnknown(topic, err)
			return 0, err
		}
		select {
		case <-p.ctx.Done():
			return 0, notWritten(ErrClosed)
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, time.Second)
	}
}

func (p *Producer) rememberUnknown(topic string, err error) {
	p.unknownMu.Lock()
	p.unknown[topic] = unknownTopic{at: time.Now(), err: err}
	p.unknownMu.Unlock()
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
//
// Inside an open transaction (TransactionalID) it waits until every
// record of the transaction produced so far is acknowledged by its leader
// or failed — written, not yet committed, as Kafka's producer flushes —
// and returns without their callbacks, which come with CommitTransaction
// or AbortTransaction (a failure shows there: ErrTxnAbortable).
func (p *Producer) Flush(ctx context.Context) error {
	if p.calls.inCallback() {
		return fmt.Errorf("%w: Flush would wait for the callback it runs in", ErrInCallback)
	}
	if p.cfg.txnID != "" && p.txnGate.isOpen() {
		return p.txnFlush(ctx)
	}
	p.flushing.Add(1)
	defer p.flushing.Add(-1)
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
// A transactional producer does not wait for an open transaction: its
// records fail ErrAborted (or ErrClosed and ErrNotWritten if they never
// reached a batch), and the coordinator aborts it on its timeout.
// No goroutine of the producer outlives Close.
func (p *Producer) Close(ctx context.Context) error {
	if p.calls.inCallback() {
		return fmt.Errorf("%w: Close would wait for the callback it runs in", ErrInCallback)
	}
	if p.closing.Swap(true) {
		return ErrClosed
	}
	var ferr error
	if p.cfg.txnID == "" {
		ferr = p.Flush(ctx)
	}
	// A transactional producer does not wait for an open transaction,
	// which cannot commit now: its records fail ErrAborted (the
	// coordinator aborts it on its timeout).
	p.closeHeld()
	// The accumulator hands its last batches to the loop, then the machine
	// finishes every batch it holds (not written, or outcome unknown) and
	// the loop stops the senders and exits.
	p.acc.Close()
	p.loop.in.post(closeIn{})
	<-p.loop.exited
	p.cancel()
	p.closePools()
	p.meta.Close()
	p.calls.close()
	p.wg.Wait()
	if ferr != nil {
		return fmt.Errorf("%w: %w", ErrClosed, ferr)
	}
	return nil
}

// closePools closes every produce lane's connections and the read pool's.
func (p *Producer) closePools() {
	for _, pool := range p.pools {
		pool.Close()
	}
	p.readPool.Close()
	if p.txnPool != nil {
		p.txnPool.Close()
	}
}
