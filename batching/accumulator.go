package batching

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rollsafe/rollsafe/compress"
)

// Accumulator collects records into one open batch per partition and closes
// batches on size, linger or Flush. Closed batches are compressed by worker
// goroutines, in parallel across and within partitions, and handed to the
// ready callback in closing order per partition. All methods are safe for
// concurrent use.
type Accumulator struct {
	cfg   Config
	comp  *compress.Compressor
	ready func(*Batch)
	pool  batchPool
	bufs  bufPool

	// unsent is the bytes of batches encoded (and compressed) by a worker
	// and not handed out (Bytes) yet; from eagerUnsent on, workers deliver
	// closed batches unencoded and encode them later, as room frees, unless
	// Bytes does it first (see Accumulator.worker).
	unsent      atomic.Int64
	eagerUnsent int64
	// scratches are the buffers of batches encoded by Bytes.
	scratches sync.Pool

	mu         sync.Mutex
	parts      map[TopicPartition]*partition
	bufRecords int
	bufBytes   int64
	// openRecords and openBytes are the part of the above in open batches.
	openRecords int
	openBytes   int64
	waiters     int           // Appends waiting for room
	room        chan struct{} // closed when room frees, if waiters > 0
	closed      bool
	nextID      uint64
	linger      lingerQueue
	holds       lingerQueue // open batches past their linger, held for an earlier one to be sent

	work workQueue

	lingerKick chan struct{}
	done       chan struct{}
	closeOnce  sync.Once
	wg         sync.WaitGroup
}

// eagerUnsentBatches is how many full batches' worth of encoded bytes may
// wait to be sent before the workers deliver further batches unencoded
// (see Accumulator.worker).
const eagerUnsentBatches = 8

// eagerUnsentFor is the accumulator's eagerUnsent. Uncompressed: eight
// batches' worth (at most half of MaxBufferedBytes) — copying records into
// a batch costs little when it is sent. Compressed: at least a quarter of
// MaxBufferedBytes of compressed bytes, so that records a stalled broker
// leaves buffered are compressed while it is away (and go out at the
// network's pace when it is back) while their compressed copies add at
// most a quarter to the bound, even when the values do not compress.
func eagerUnsentFor(cfg Config) int64 {
	n := min(eagerUnsentBatches*int64(cfg.BatchBytes), cfg.MaxBufferedBytes/2)
	if cfg.Codec != compress.None {
		n = max(n, cfg.MaxBufferedBytes/4)
	}
	return n
}

// partition is the per-partition state.
type partition struct {
	tp      TopicPartition
	open    *Batch // guarded by Accumulator.mu
	nextSeq uint64 // guarded by Accumulator.mu
	// waiting counts its closed batches not yet Sent nor released
	// (HoldUntilSent). Guarded by Accumulator.mu.
	waiting int
	// lastRecords is how many records its last closed batch held: a new
	// batch reserves room for that many at once (reserve) rather than
	// growing record by record. Guarded by Accumulator.mu.
	lastRecords int

	dmu         sync.Mutex // guards the delivery fields below
	nextDeliver uint64
	pending     []*Batch // compressed, waiting for an earlier batch
	delivering  bool
}

// NewAccumulator starts an accumulator. ready receives every closed,
// compressed batch, in closing order per partition, from worker goroutines;
// it must eventually lead to Release of the batch. ready may call Append,
// TryAppend, Flush, Release and Buffered, but not Drain or Close.
func NewAccumulator(cfg Config, ready func(*Batch)) (*Accumulator, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	comp, err := compress.NewCompressor(cfg.Codec, cfg.Level)
	if err != nil {
		return nil, err
	}
	a := &Accumulator{
		cfg:        cfg,
		comp:       comp,
		ready:      ready,
		parts:      make(map[TopicPartition]*partition),
		lingerKick: make(chan struct{}, 1),
		done:       make(chan struct{}),
	}
	a.pool.maxBytes = cfg.MaxBufferedBytes
	a.bufs.maxBytes = 2 * cfg.MaxBufferedBytes
	a.eagerUnsent = eagerUnsentFor(cfg)
	a.scratches.New = func() any { return new(scratch) }
	a.work.init(func() bool { return a.unsent.Load() < a.eagerUnsent })
	a.wg.Add(cfg.Workers)
	for range cfg.Workers {
		go a.worker()
	}
	if cfg.Linger > 0 {
		a.wg.Add(1)
		go a.lingerLoop()
	}
	return a, nil
}

// PartitionRef names one partition of one Accumulator: appending through it
// skips looking the partition up by name. Refs stay valid for the
// accumulator's life (its partitions are never forgotten). The zero
// PartitionRef is invalid.
type PartitionRef struct {
	a *Accumulator
	p *partition
}

// Ref returns the ref of tp, creating its state if it has none.
func (a *Accumulator) Ref(tp TopicPartition) PartitionRef {
	a.mu.Lock()
	defer a.mu.Unlock()
	return PartitionRef{a: a, p: a.partLocked(tp)}
}

// TopicPartition returns the partition ref names (zero for the zero ref).
func (ref PartitionRef) TopicPartition() TopicPartition {
	if ref.p == nil {
		return TopicPartition{}
	}
	return ref.p.tp
}

func (a *Accumulator) partLocked(tp TopicPartition) *partition {
	p := a.parts[tp]
	if p == nil {
		p = &partition{tp: tp}
		a.parts[tp] = p
	}
	return p
}

// Append adds r to the open batch of tp, waiting for buffer room until
// ctx ends. r's Key, Value and Headers are referenced, not copied: they
// are encoded when the batch closes (on a worker) and stay referenced until
// the batch is released, so they must not be modified until then. token
// is returned with the batch (Batch.Token), in record order. A record that
// cannot fit MaxRecordBytes fails at once with a *RecordTooLargeError.
func (a *Accumulator) Append(ctx context.Context, tp TopicPartition, r *Record, token any) error {
	return a.AppendTo(ctx, a.Ref(tp), r, token)
}

// AppendTo is Append to the partition ref names; a ref of another
// accumulator (or the zero ref) fails with ErrBadRef.
func (a *Accumulator) AppendTo(ctx context.Context, ref PartitionRef, r *Record, token any) error {
	return a.AppendSourceTo(ctx, ref, heldOf(r, token))
}

// heldOf is the Source of r as Append sees it: its fields now, its
// timestamp or, if zero, the time of the call, and its token.
func heldOf(r *Record, token any) Source {
	h := holdRecord(r, timestampMillis(r, time.Now), token)
	return &h
}

// AppendSourceTo is AppendTo of a Source: the batch keeps src itself (16
// bytes per record, where AppendTo keeps a copy of the record's fields),
// reads its fields again when the batch is encoded and by Split, so they
// must not change until the batch is released, and returns it as the
// record's token (Batch.Sources, Batch.Token).
func (a *Accumulator) AppendSourceTo(ctx context.Context, ref PartitionRef, src Source) error {
	for {
		ch, err := a.tryAppend(ref, src, true, nil)
		if ch == nil {
			return err
		}
		if err := a.awaitRoom(ctx, ch); err != nil {
			return err
		}
	}
}

// awaitRoom waits, as one of the waiters tryAppend or tryReserve counted,
// for ch (room freed) or the end of ctx (its error).
func (a *Accumulator) awaitRoom(ctx context.Context, ch <-chan struct{}) error {
	var err error
	select {
	case <-ch:
	case <-ctx.Done():
		err = ctx.Err()
	}
	a.mu.Lock()
	a.waiters--
	a.mu.Unlock()
	return err
}

// TryAppend is Append without waiting: it fails with ErrBufferFull when
// there is no room.
func (a *Accumulator) TryAppend(tp TopicPartition, r *Record, token any) error {
	return a.TryAppendTo(a.Ref(tp), r, token)
}

// TryAppendTo is TryAppend to the partition ref names.
func (a *Accumulator) TryAppendTo(ref PartitionRef, r *Record, token any) error {
	return a.TryAppendSourceTo(ref, heldOf(r, token))
}

// TryAppendSourceTo is TryAppendTo of a Source (see AppendSourceTo).
func (a *Accumulator) TryAppendSourceTo(ref PartitionRef, src Source) error {
	_, err := a.tryAppend(ref, src, false, nil)
	return err
}

// tryAppend appends src, or, without room and if wait, registers a waiter
// and returns the channel to wait on. With rv, src takes the room rv
// reserved (it was admitted then) and rv ends, whatever the outcome.
func (a *Accumulator) tryAppend(ref PartitionRef, src Source, wait bool, rv *Reservation) (<-chan struct{}, error) {
	if ref.a != a || ref.p == nil {
		a.endReservation(rv)
		return nil, ErrBadRef
	}
	key, value, headers, ts := src.BatchRecord()
	fields := fieldsLen(key, value, headers)
	// size is the record's encoded length in the open batch, or as the first
	// record of a new one (its batch of one's length, plus the header,
	// is what MaxRecordBytes bounds).
	size := encodedLen(bodyLenOf(fields, 0, 0))
	if n := batchHeaderLen + size; n > a.cfg.MaxRecordBytes {
		a.endReservation(rv)
		return nil, &RecordTooLargeError{Size: n, Max: a.cfg.MaxRecordBytes}
	}
	first := size
	a.mu.Lock()
	defer a.mu.Unlock()
	if rv != nil {
		a.unreserveLocked(*rv)
	}
	if a.closed {
		return nil, ErrClosed
	}
	p := ref.p
	if b := p.open; b != nil {
		size = encodedLen(bodyLenOf(fields, ts-b.firstTS, int32(b.Records)))
		if b.rawLen+size > a.cfg.BatchBytes {
			a.closeLocked(p)
			size = first
		}
	}
	if rv == nil && (a.bufRecords+1 > a.cfg.MaxBufferedRecords || a.bufBytes+int64(size) > a.cfg.MaxBufferedBytes) {
		// If open batches hold most of the buffer, close them so that
		// their release can make room; otherwise wait for closed ones.
		if a.openBytes*2 >= a.bufBytes || a.openRecords*2 >= a.bufRecords {
			a.flushLocked()
		}
		if !wait {
			return nil, ErrBufferFull
		}
		if a.room == nil {
			a.room = make(chan struct{})
		}
		a.waiters++
		return a.room, nil
	}
	b := p.open
	if b == nil {
		b = a.pool.get()
		a.nextID++
		b.reset(a, p, p.tp, a.nextID)
		b.reserve(p.lastRecords)
		p.open = b
		if a.cfg.Linger > 0 {
			a.linger.push(lingerEntry{p: p, id: b.id, deadline: time.Now().Add(a.cfg.Linger)}, a.lingerKick)
		}
	}
	b.add(src, ts, size)
	a.bufRecords++
	a.bufBytes += int64(size)
	a.openRecords++
	a.openBytes += int64(size)
	if b.rawLen >= a.cfg.BatchBytes || (a.cfg.BatchRecords > 0 && b.Records >= a.cfg.BatchRecords) {
		a.closeLocked(p)
	}
	return nil, nil
}

// Flush closes every open batch now; they go to ready once compressed.
func (a *Accumulator) Flush() {
	a.mu.Lock()
	a.flushLocked()
	a.mu.Unlock()
}

func (a *Accumulator) flushLocked() {
	for _, p := range a.parts {
		if p.open != nil {
			a.closeLocked(p)
		}
	}
}

// closeLocked closes p's open batch and queues it for compression.
func (a *Accumulator) closeLocked(p *partition) {
	b := p.open
	p.open = nil
	b.holding = false
	if a.cfg.HoldUntilSent {
		b.waitSend = true
		p.waiting++
	}
	a.openRecords -= b.chargeRecords
	a.openBytes -= b.chargeBytes
	b.seq = p.nextSeq
	p.nextSeq++
	p.lastRecords = b.Records
	a.work.push(b)
}

// Drain waits until every batch closed before the call has been handed to
// ready and ready has returned, or ctx ends. Pair it with Flush.
func (a *Accumulator) Drain(ctx context.Context) error {
	return a.work.drain(ctx)
}

// Release ends a batch (acknowledged or failed for good): its records leave
// the buffer accounting and its memory returns to the pool. The batch must
// not be used afterwards.
func (a *Accumulator) Release(b *Batch) {
	if b == nil || b.acc != a {
		return
	}
	a.mu.Lock()
	a.sentLocked(b)
	a.bufRecords -= b.chargeRecords
	a.bufBytes -= b.chargeBytes
	if a.waiters > 0 && a.room != nil && (b.chargeRecords > 0 || b.chargeBytes > 0) {
		close(a.room)
		a.room = nil
	}
	a.mu.Unlock()
	b.encMu.Lock() // a worker catching up on b finishes first
	if b.unsentBytes != 0 {
		a.uncountUnsent(b)
	}
	b.acc = nil
	b.part = nil
	clear(b.srcs)
	b.srcs = b.srcs[:0]
	b.wire = nil
	a.bufs.put(b.raw)
	b.raw = nil
	a.bufs.put(b.comp)
	b.comp = nil
	b.encMu.Unlock()
	a.pool.put(b)
}

// Buffered returns the records and uncompressed record bytes appended and
// not yet released.
func (a *Accumulator) Buffered() (records int, bytes int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.bufRecords, a.bufBytes
}

// Close closes the open batches, waits until the workers have handed every
// closed batch to ready, and stops the linger timer and the workers.
// Appends waiting for room, and later calls, fail with ErrClosed. Batches
// already handed out may still be used and released.
func (a *Accumulator) Close() {
	a.closeOnce.Do(func() {
		a.mu.Lock()
		a.closed = true
		a.flushLocked()
		if a.room != nil {
			close(a.room)
			a.room = nil
		}
		a.mu.Unlock()
		close(a.done)
		a.work.close()
		a.wg.Wait()
	})
}
