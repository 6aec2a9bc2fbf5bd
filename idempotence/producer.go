package idempotence

import (
	"errors"
	"math"
	"time"
)

// Producer is the idempotence state of one producer: its producer id and
// epoch, and one sequence state machine per partition. It performs no I/O and
// reads no clock: the caller feeds it inputs (Enqueue, Sendable, Response,
// LeaderChanged, TailRead, Split, Tick, SetIdentity) and drains its decisions
// with Events after each one.
//
// A Producer is not safe for concurrent use.
type Producer struct {
	cfg Config

	hasID  bool
	pid    int64
	epoch  int16
	needID bool // NeedProducerID emitted, SetIdentity pending

	parts map[TopicPartition]*partition
	order []*partition // creation order, for deterministic iteration
	now   time.Time    // latest time seen

	closed bool // Close was applied

	txn *txn // the transaction machine; nil unless Config.Transactional

	events []Event
	sends  []Send
	woken  map[TopicPartition]bool // partitions to collect Sends from
}

// New returns a Producer without identity; call SetIdentity before anything
// can be sent.
func New(cfg Config) *Producer {
	if cfg.MaxInFlight <= 0 || cfg.MaxInFlight > DefaultMaxInFlight {
		cfg.MaxInFlight = DefaultMaxInFlight
	}
	if cfg.RetryBackoff == 0 {
		cfg.RetryBackoff = DefaultRetryBackoff
	} else if cfg.RetryBackoff < 0 {
		cfg.RetryBackoff = 0
	}
	if cfg.RetryBackoffMax <= 0 {
		cfg.RetryBackoffMax = DefaultRetryBackoffMax
	}
	cfg.RetryBackoff = min(cfg.RetryBackoff, cfg.RetryBackoffMax) // a static pause, as Kafka's clients do
	pr := &Producer{cfg: cfg, parts: map[TopicPartition]*partition{}, woken: map[TopicPartition]bool{}}
	if cfg.Transactional {
		pr.txn = &txn{bumpOK: !cfg.TxnNoEpochBump, adds: map[TopicPartition]*add{}}
	}
	return pr
}

// SetIdentity installs the producer id and epoch returned by InitProducerId,
// at start and after NeedProducerID. A negative producer id means a producer
// without idempotence: Sends then carry producer id, epoch and base sequence
// -1, epochs are never bumped, and a tail read cannot recognise its batches
// (delivery is at least once). Partitions adopt it at their next clean
// boundary (nothing numbered and unacknowledged); a partition waiting for a
// bump adopts it at once.
func (pr *Producer) setIdentity(producerID int64, epoch int16) {
	pr.hasID, pr.pid, pr.epoch, pr.needID = true, producerID, epoch, false
	for _, p := range pr.order {
		pr.settle(p)
	}
}

// Identity returns the current producer id and epoch, and false before
// SetIdentity.
func (pr *Producer) Identity() (producerID int64, epoch int16, ok bool) {
	return pr.pid, pr.epoch, pr.hasID
}

func (pr *Producer) part(tp TopicPartition) *partition {
	p := pr.parts[tp]
	if p == nil {
		p = newPartition(tp, pr.cfg.history)
		pr.parts[tp] = p
		pr.order = append(pr.order, p)
	}
	return p
}

func (pr *Producer) observe(now time.Time) {
	if now.After(pr.now) {
		pr.now = now
	}
}

// emit records a decision. While a transaction is open, a batch's outcome
// is kept until the transaction ends (txnDivert).
func (pr *Producer) emit(e Event) {
	if pr.txn != nil && pr.txnDivert(e) {
		return
	}
	pr.events = append(pr.events, e)
}

// reject refuses a batch at NewBatch: it never joined the partition.
func (pr *Producer) reject(tp TopicPartition, id BatchID, err error) {
	pr.events = append(pr.events, Failed{TP: tp, ID: id, Err: err})
}

func (pr *Producer) wake(p *partition) { pr.woken[p.tp] = true }

func (pr *Producer) fail(p *partition, b *batch, err error) {
	p.remove(b)
	if !b.reported {
		pr.emit(Failed{TP: p.tp, ID: b.id, Err: err})
	}
}

// report tells the caller, at b's deadline, that b's outcome is unknown;
// b stays in the partition for the sequence accounting.
func (pr *Producer) report(b *batch, p *partition) {
	if b.reported {
		return
	}
	b.reported = true
	var err error = errTimeoutUnknown
	var ce *CodeError
	if errors.As(b.fatal, &ce) {
		err = &CodeError{Code: ce.Code, Err: errTimeoutUnknown}
	}
	pr.emit(Failed{TP: p.tp, ID: b.id, Err: err})
}

// Enqueue adds a batch of records to the end of the partition's queue. A
// batch whose deadline passes before it is delivered fails with
// ErrDeliveryTimeout (a zero deadline never passes).
func (pr *Producer) enqueue(tp TopicPartition, id BatchID, records int32, deadline, stamp time.Time) {
	p := pr.part(tp)
	switch {
	case pr.closed:
		pr.reject(tp, id, errClosed)
		return
	case pr.txn != nil && pr.txnAccepts() != nil:
		pr.reject(tp, id, pr.txnAccepts())
		return
	case p.stopped != nil:
		pr.reject(tp, id, p.stopped)
		return
	case p.byID[id] != nil:
		pr.reject(tp, id, errDuplicateID)
		return
	case records <= 0:
		pr.reject(tp, id, errNoRecords)
		return
	}
	if pr.txn != nil {
		pr.txnWant(tp)
	}
	b := &batch{id: id, records: records, deadline: deadline, stamp: stamp, offset: -1}
	p.batches = append(p.batches, b)
	if !deadline.IsZero() && (p.nextDue.IsZero() || deadline.Before(p.nextDue)) {
		p.nextDue = deadline
	}
	p.byID[id] = b
}

// LeaderChanged records the partition's leader. After RefreshMetadata it must
// be called (even with an unchanged leader) before the partition resends.
// When the leader moves while batches are in flight to the old one, the
// partition sends nothing more until they are answered: batches of one
// partition are never in flight to two leaders at once.
func (pr *Producer) leaderChanged(tp TopicPartition, broker int32, leaderEpoch int32) {
	pr.leaderChangedIn(tp, broker, leaderEpoch, 0)
}

// leaderChangedIn is leaderChanged with the topic's incarnation (0:
// unknown): a newer one is a new topic (recreated), an older one a stale
// answer, ignored.
func (pr *Producer) leaderChangedIn(tp TopicPartition, broker int32, leaderEpoch int32, incarnation uint64) {
	p := pr.part(tp)
	if incarnation != 0 {
		switch {
		case incarnation < p.incarnation:
			return // of a topic deleted since
		case incarnation > p.incarnation:
			if p.incarnation != 0 {
				pr.recreated(p)
			}
			p.incarnation = incarnation
		}
		pr.releaseLoss(p)
	}
	p.looked = true
	if p.knownEpoch && leaderEpoch >= 0 && leaderEpoch < p.leaderEpoch {
		return // older than what is known
	}
	if broker < 0 {
		// No leader now (an election under way): hold, and look again
		// while something waits.
		p.hasLeader = false
		if len(p.batches) > 0 {
			pr.emit(RefreshMetadata{TP: tp})
		}
		return
	}
	// p.leader is where the batches in flight went, even while the leader
	// was unknown in between.
	if p.inFlight > 0 && (p.leader != broker || p.leaderEpoch != leaderEpoch) {
		p.on(evLeaderMoved)
	}
	p.hasLeader, p.leader, p.leaderEpoch = true, broker, leaderEpoch
	p.knownEpoch = p.knownEpoch || leaderEpoch >= 0
	pr.wake(p)
	pr.settle(p)
}

// Pending returns the number of the partition's batches not yet finished
// (neither Delivered nor Failed).
func (pr *Producer) Pending(tp TopicPartition) int {
	if p := pr.parts[tp]; p != nil {
		return len(p.batches)
	}
	return 0
}

// Idle reports whether every batch of every partition is finished.
func (pr *Producer) Idle() bool {
	for _, p := range pr.order {
		if len(p.batches) > 0 {
			return false
		}
	}
	return true
}

// takeEvents returns the decisions taken since the last call, in order, and
// forgets them (the tests' pull-style driver; Step callers use Ready).
func (pr *Producer) takeEvents() []Event {
	ev := pr.events
	pr.events = nil
	return ev
}

// Tick passes the time: deadlines expire, backoffs end (Wake), failed tail
// reads are asked again.
func (pr *Producer) tick(now time.Time) {
	pr.observe(now)
	for _, p := range pr.order {
		if !p.retryAt.IsZero() && !now.Before(p.retryAt) {
			p.retryAt = time.Time{}
			pr.wake(p)
		}
		pr.expire(p, now)
		pr.settle(p)
	}
}

// NextWake returns the earliest time at which Tick has something to do (a
// deadline or a backoff), and false if there is none.
func (pr *Producer) NextWake() (time.Time, bool) {
	var t time.Time
	consider := func(x time.Time) {
		if !x.IsZero() && (t.IsZero() || x.Before(t)) {
			t = x
		}
	}
	if pr.txn != nil && pr.txn.req == reqNone {
		consider(pr.txn.retryAt)
	}
	for _, p := range pr.order {
		consider(p.retryAt)
		// nextDue is a lower bound of the partition's unexpired deadlines
		// (exact after expire): O(partitions), not O(batches), per call.
		consider(p.nextDue)
	}
	return t, !t.IsZero()
}

// expire applies delivery deadlines.
func (pr *Producer) expire(p *partition, now time.Time) {
	if p.nextDue.IsZero() || now.Before(p.nextDue) {
		return
	}
	p.nextDue = time.Time{}
	for i := 0; i < len(p.batches); i++ {
		b := p.batches[i]
		// A batch awaiting Split expires through its parts, which inherit
		// its deadline: the caller has already been asked to split it.
		if b.expired || b.deadline.IsZero() || b.st == stAcked || b.st == stAwaitSplit {
			continue
		}
		if now.Before(b.deadline) {
			if p.nextDue.IsZero() || b.deadline.Before(p.nextDue) {
				p.nextDue = b.deadline
			}
			continue
		}
		b.expired = true
		switch {
		case b.st == stInFlight || b.unknown:
			// It may be in the log, or land there: the caller hears so at
			// the deadline. The batch stays (never sent again) until its
			// answer or a read settles where its sequence leaves the
			// partition.
			pr.report(b, p)
			if b.st != stInFlight {
				p.on(evNeedRead)
			}
		default: // queued or not appended: known not written
			if b.numbered {
				p.on(evNeedBump) // its sequence leaves a hole
			}
			pr.fail(p, b, errTimeoutNotWritten)
			i--
		}
	}
}

// settle moves the partition as far as it can go without new input:
// delivers the acknowledged prefix, and once nothing is in flight, reads the
// tail or moves to a fresh epoch as needed.
func (pr *Producer) settle(p *partition) {
	if p.stopped != nil {
		pr.failStopped(p)
	}
	// While the log is to be read, acknowledged batches wait: the read may
	// report data loss, and a caller that waited for these deliveries (a
	// flush) must have heard of it by then — so they wait, too, while a
	// loss found is held for the metadata to confirm the topic.
	if !p.state.readOwed() && len(p.heldLoss) == 0 {
		pr.deliverAcked(p)
	}
	if p.stopped != nil || p.inFlight > 0 || p.state.reading() {
		return
	}
	pr.settleRest(p)
}

// deliverAcked delivers the acknowledged batches at the head of the queue.
func (pr *Producer) deliverAcked(p *partition) {
	for len(p.batches) > 0 && p.batches[0].st == stAcked {
		b := p.batches[0]
		p.batches[0] = nil
		p.batches = p.batches[1:]
		delete(p.byID, b.id)
		if b.numbered {
			p.nNumbered--
		}
		if b.old {
			// In a deleted topic's log: nothing to find in the new one.
		} else if b.offset >= 0 && b.numbered {
			p.anchor = ackRec{base: b.offset, records: b.records, key: tailKey{b.pid, b.epoch, b.seq}, untold: b.reported, order: b.order, id: b.id}
			p.hasAnchor, p.anchorGap = true, 0
		} else if p.hasAnchor {
			p.anchorGap += int64(b.records)
		}
		if !b.reported {
			pr.emit(Delivered{TP: p.tp, ID: b.id, BaseOffset: b.offset})
		}
	}
	if !p.state.readOwed() {
		p.trimHistory()
	}
}

// settleRest starts the tail read or the move to a fresh epoch a drained
// partition needs.
func (pr *Producer) settleRest(p *partition) {
	if p.state.bumpOwed() && p.hasUnknown() {
		p.on(evNeedRead)
	}
	if p.state.readDue() {
		if pr.now.Before(p.retryAt) {
			return
		}
		// Read from the last delivered batch: finding it where it was
		// proves the log was not truncated below it.
		if p.hasAnchor {
			pr.askTail(p, p.anchor.base)
		} else {
			pr.askWideTail(p)
		}
		return
	}
	behind := !p.hasID || !pr.hasID || p.pid != pr.pid || p.epoch != pr.epoch
	// A partition behind the producer's identity adopts it at its next clean
	// boundary: nothing numbered is unacknowledged and something waits.
	bump := p.state == psBumpDue
	adopt := !bump && behind && !p.hasNumberedUnacked() && p.has(stQueued)
	if !bump && !adopt {
		return
	}
	if bump && p.has(stAwaitSplit) {
		return // the parts must be in place before anything is renumbered
	}
	if !pr.moveEpoch(p) {
		return
	}
	p.renumberAll()
	if bump {
		p.on(evBumped)
	}
	pr.wake(p)
}

// moveEpoch puts the partition under an identity it has never written with:
// the producer's current one if the partition is behind it, else a local
// epoch bump (KIP-360), else (epoch exhausted) a new producer id is needed
// and it reports false.
func (pr *Producer) moveEpoch(p *partition) bool {
	if !pr.hasID {
		return false
	}
	if p.hasID && p.pid == pr.pid && p.epoch >= pr.epoch && pr.pid >= 0 {
		if pr.txn != nil {
			// The coordinator owns a transactional producer's epoch.
			pr.txnWantsBump()
			return false
		}
		if max(pr.epoch, p.epoch) == math.MaxInt16 {
			if !pr.needID {
				pr.needID = true
				pr.emit(NeedProducerID{})
			}
			return false
		}
		pr.epoch = max(pr.epoch, p.epoch) + 1
	}
	changed := p.hasID && (p.pid != pr.pid || p.epoch != pr.epoch)
	p.hasID, p.pid, p.epoch, p.nextSeq = true, pr.pid, pr.epoch, 0
	if !p.hasAckedPID || p.ackedPID != p.pid {
		// The broker may hold no state for this producer id here and then
		// accepts any first sequence: a later batch could land before an
		// earlier refused one. One in flight until the first success.
		p.cautious = true
	}
	if changed {
		pr.emit(EpochBumped{TP: p.tp, ProducerID: p.pid, Epoch: p.epoch})
	}
	return true
}

// failStopped fails, with the partition's stop, every batch of a stopped
// partition known not written (never sent, or every attempt refused and
// none in flight); one in flight or with an unknown outcome ends with its
// answer or its deadline.
func (pr *Producer) failStopped(p *partition) {
	for i := 0; i < len(p.batches); i++ {
		b := p.batches[i]
		if b.st == stQueued || (b.st == stNotAppended && !b.unknown) {
			pr.fail(p, b, p.stopped)
			i--
		}
	}
}
