package idempotence

import (
	"time"
)

// Input is one thing that happened to the producer, fed to Step. The set is
// closed: SetIdentity, NewBatch, LeaderChanged, Answer, TailRead,
// SplitBatch, Withdraw, Tick, Purge and Close, and for a transactional
// producer (Config.Transactional) those of txn_io.go: InitTransactions,
// BeginTxn, CommitTxn, AbortTxn, CoordinatorFound, InitProducerIDAnswer,
// AddPartitionsAnswer and EndTxnAnswer. Most answer an earlier output: SetIdentity
// answers NeedProducerID, LeaderChanged answers RefreshMetadata, Answer
// answers a Send, TailRead answers ReadTail and SplitBatch answers
// NeedSplit.
type Input interface{ isInput() }

// SetIdentity installs the producer id and epoch returned by InitProducerId,
// at start and after NeedProducerID. A negative producer id means a producer
// without idempotence: Sends then carry producer id, epoch and base sequence
// -1, epochs are never bumped, and a tail read cannot recognise its batches
// (delivery is at least once). Partitions adopt it at their next clean
// boundary (nothing numbered and unacknowledged); a partition waiting for a
// bump adopts it at once.
type SetIdentity struct {
	ProducerID int64
	Epoch      int16
}

// NewBatch adds a batch of records to the end of its partition's queue. A
// batch whose Deadline passes before it is delivered fails with
// ErrDeliveryTimeout (a zero deadline never passes). The caller assigns ID
// and keeps it unique for the lifetime of the Producer.
type NewBatch struct {
	TP       TopicPartition
	ID       BatchID
	Records  int32
	Deadline time.Time
	// Stamp is the batch's largest record timestamp (its CreateTime), zero
	// if unknown. Kafka expires a producer's state by it (see
	// Config.ProducerIDExpiration).
	Stamp time.Time
}

// LeaderChanged records the partition's leader. After RefreshMetadata it
// must be fed (even with an unchanged leader) before the partition resends.
// A leader epoch older than one already known is ignored — within one
// incarnation of the topic: a topic deleted and created again starts its
// leader epochs over. When the leader
// moves while batches are in flight to the old one, the partition sends
// nothing more until they are answered: batches of one partition are never in
// flight to two leaders at once. Broker -1 means the partition has no leader
// now: it holds, and RefreshMetadata is asked again.
type LeaderChanged struct {
	TP          TopicPartition
	Broker      int32
	LeaderEpoch int32
	// Incarnation tells the topic's incarnations apart: 0 means unknown;
	// a number higher than the partition knew means its topic was deleted
	// and created again (a new topic id; on brokers without ids, what the
	// caller takes for a re-creation): the partition ends what it held
	// for the old topic and starts the new one afresh (README, rules);
	// a lower one is a stale answer about a deleted topic, ignored.
	// Numbers only grow, and one is never given to two incarnations.
	Incarnation uint64
}

// Answer is the outcome of one produce attempt of batch ID (one Send). An
// answer for a batch that is not in flight (stale or repeated) is ignored.
// Every Send must get exactly one Answer: a failed write or a dropped
// connection is Code kafkaerr.Transport with Class MaybeAppended when the
// request may have reached the broker, NotAppended when it certainly did not.
type Answer struct {
	TP       TopicPartition
	ID       BatchID
	Response Response
}

// TailRead hands over the log read asked for by ReadTail (see Tail).
type TailRead struct {
	TP   TopicPartition
	Tail Tail
}

// SplitBatch answers NeedSplit: it replaces the batch by its parts, in its
// place. The parts are numbered when first sent and inherit the batch's
// deadline. No Parts fails the batch with MESSAGE_TOO_LARGE (not written);
// Err, when set, is the reason it could not be split and is joined to that
// failure.
type SplitBatch struct {
	TP    TopicPartition
	ID    BatchID
	Parts []Part
	Err   error
}

// Withdraw replaces a batch that holds no sequence number (see
// Producer.Withdrawable: it is queued) by its parts, in its place; no Parts
// removes it. It is how a caller takes records out of a batch before it is
// numbered (records whose sender gave up on them) without leaving a hole
// in the partition's sequence: the parts are numbered when first sent and
// inherit the batch's deadline. Nothing is reported for the batch; the
// caller settles the records it took out. A batch that is not Withdrawable
// is left as it is.
type Withdraw struct {
	TP    TopicPartition
	ID    BatchID
	Parts []Part
}

// Tick passes the time: deadlines expire, backoffs end, failed tail reads are
// asked again. Feed it at NextWake.
type Tick struct{}

// Purge fails batches at once. Queued: every batch never sent under its
// numbering (it holds no sequence), with ErrPurged and ErrNotWritten.
// InFlight: every batch sent and unfinished — one every attempt of which
// was refused with ErrPurged and ErrNotWritten (its sequence's place is
// closed by an epoch bump, as for a delivery timeout), one that may be in
// the log or land there (in flight, or an attempt's outcome unknown) with
// ErrPurged and ErrOutcomeUnknown: such a batch is never sent again and
// stays, unseen by the caller, until its answer or a log read settles its
// sequence. Batches waiting to be split (NeedSplit) are left: their parts
// belong to the caller's split. The producer goes on taking batches.
type Purge struct{ Queued, InFlight bool }

// Close finishes every unfinished batch: one never written (or only ever
// refused) fails with ErrClosed and ErrNotWritten, one that may be in the
// log with ErrClosed and ErrOutcomeUnknown. Nothing is sent afterwards and
// every later NewBatch fails at once.
type Close struct{}

func (SetIdentity) isInput()   {}
func (NewBatch) isInput()      {}
func (LeaderChanged) isInput() {}
func (Answer) isInput()        {}
func (TailRead) isInput()      {}
func (SplitBatch) isInput()    {}
func (Withdraw) isInput()      {}
func (Tick) isInput()          {}
func (Purge) isInput()         {}
func (Close) isInput()         {}

// Ready is what the Producer asks the caller to do, accumulated over the
// Steps since the last Advance.
type Ready struct {
	// Sends are the batches to write now, in order per partition: each
	// partition's Sends go to Send.Broker on one connection, in this order.
	Sends []Send
	// Events are the decisions taken, in order.
	Events []Event
}

// Empty reports whether there is nothing to do.
func (r Ready) Empty() bool { return len(r.Sends) == 0 && len(r.Events) == 0 }

// Step applies one input at time now. Afterwards, Ready says what to do.
func (pr *Producer) Step(in Input, now time.Time) {
	pr.observe(now)
	if pr.txnInput(in) {
		pr.txnAdvance()
		pr.collectSends(now)
		return
	}
	switch x := in.(type) {
	case SetIdentity:
		if pr.txn == nil { // a transactional producer's identity comes from InitTransactions
			pr.setIdentity(x.ProducerID, x.Epoch)
		}
	case NewBatch:
		pr.enqueue(x.TP, x.ID, x.Records, x.Deadline, x.Stamp)
		if p := pr.parts[x.TP]; p != nil {
			pr.wake(p)
			if !p.hasLeader && p.looked && len(p.batches) == 1 {
				// Its leader was lost while it was idle, or it had none
				// when its metadata was first read: look it up again.
				pr.emit(RefreshMetadata{TP: x.TP})
			}
		}
	case LeaderChanged:
		pr.leaderChangedIn(x.TP, x.Broker, x.LeaderEpoch, x.Incarnation)
	case Answer:
		pr.respond(x.TP, x.ID, x.Response, now)
	case TailRead:
		pr.tailRead(x.TP, x.Tail)
	case SplitBatch:
		pr.splitWith(x.TP, x.ID, x.Parts, x.Err)
	case Withdraw:
		pr.withdraw(x.TP, x.ID, x.Parts)
	case Tick:
		pr.tick(now)
	case Purge:
		pr.purge(x.Queued, x.InFlight)
	case Close:
		pr.close()
	}
	// Whatever the input, the partitions it concerns are looked at for
	// something to send: an answer may free a slot, end a drain, or finish
	// a resolution.
	switch x := in.(type) {
	case Answer:
		pr.wakeTP(x.TP)
	case TailRead:
		pr.wakeTP(x.TP)
	case SetIdentity, Tick, Purge:
		for _, p := range pr.order {
			pr.wake(p)
		}
	}
	pr.txnAdvance()
	pr.collectSends(now)
}

func (pr *Producer) wakeTP(tp TopicPartition) {
	if p := pr.parts[tp]; p != nil {
		pr.wake(p)
	}
}

// collectSends turns the partitions woken by the last input into Sends.
func (pr *Producer) collectSends(now time.Time) {
	if len(pr.woken) == 0 {
		return
	}
	for _, p := range pr.order {
		if !pr.woken[p.tp] {
			continue
		}
		delete(pr.woken, p.tp)
		pr.sends = append(pr.sends, pr.sendable(p.tp, now)...)
	}
	// sendable may settle partitions and wake others (it does not today),
	// so a second pass is not needed; any partition woken by it stays
	// marked and is collected at the next Step.
}

// Ready returns what to do since the last Advance. It changes nothing.
func (pr *Producer) Ready() Ready {
	return Ready{Sends: pr.sends, Events: pr.events}
}

// Advance confirms that everything Ready returned has been acted on.
func (pr *Producer) Advance() {
	clear(pr.sends)
	pr.sends = pr.sends[:0]
	clear(pr.events)
	pr.events = pr.events[:0]
}
