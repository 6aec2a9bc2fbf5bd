package idempotence

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

// The transaction walk: a transactional Producer against a model
// transaction coordinator (Kafka's v1 rules with KIP-360 and KIP-588) and
// the model broker (model_test.go) with transaction markers, under seeded
// faults: coordinator answers lost (before or after it applied the
// request) or late, CONCURRENT_TRANSACTIONS while markers are written,
// COORDINATOR_LOAD_IN_PROGRESS, the coordinator moving, produce requests
// or answers lost, the coordinator aborting an open transaction on its
// timeout (bumping the epoch), and a newer instance with the same
// transactional id (a zombie's successor) fencing the producer. Some walks
// send a group's offsets in some transactions (SendOffsets): the model
// group coordinator keeps them pending until the transaction's markers,
// drops them on an abort, and may move, be loading, lose answers or
// refuse the generation; these draws come from a stream of their own, so
// walks without offsets play as before.

// coordSt is where the model coordinator's transaction stands.
type coordSt uint8

const (
	cEmpty coordSt = iota
	cOngoing
	cPrepCommit
	cPrepAbort
	cCompCommit
	cCompAbort
)

// modelCoord is the transaction coordinator of one transactional id.
type modelCoord struct {
	pid   int64
	epoch int16
	last  int16 // the epoch InitProducerId with the current identity is also granted for (-1: none)
	// lastFenced: last is the epoch a newer instance fenced (a
	// transaction.version 2 cluster keeps it when the fence aborts an open
	// transaction, and takes InitProducerId naming it as a retry).
	lastFenced bool
	st         coordSt
	parts      []TopicPartition
	txnEpoch   int16 // the epoch the markers of the transaction carry
	broker     int32
	fenced     bool // a newer instance took the transactional id
	group      bool // the group's offsets partition is in the transaction (AddOffsetsToTxn)
	old        bool // before Kafka 2.5: no InitProducerId with an identity (KIP-360), no grant after a timeout (KIP-588)
	timeouts   int  // transactions it aborted on their timeout
	tv2        bool // a transaction.version 2 cluster (Kafka 4.x) answering transactions v1's requests
}

type txnMarker struct {
	at     int // the partition's log length when written: it follows every batch before
	pid    int64
	commit bool
}

type txnWorld struct {
	t       *testing.T
	seed    uint64
	rng     *rand.Rand
	pr      *Producer
	now     time.Time
	m       *modelBroker
	c       *modelCoord
	markers map[TopicPartition][]txnMarker
	tps     []TopicPartition

	faults  bool // faults are drawn (off in the fault-free tail)
	refused bool // the coordinator refused the transactional id for good

	leader    map[TopicPartition][2]int32 // broker, leader epoch
	deadlines bool                        // batches carry delivery deadlines
	purges    bool                        // the application purges now and then

	find     bool    // FindCoordinator asked
	creq     Event   // the coordinator request out, not yet processed
	creqTo   int32   // the broker it went to
	cans     []Input // coordinator answers not yet delivered
	produceQ map[TopicPartition][]Send
	ansQ     map[TopicPartition][]Answer
	reads    map[TopicPartition]int64 // ReadTail asked
	meta     map[TopicPartition]bool  // RefreshMetadata asked

	orng       *rand.Rand // the offsets' draws
	offsets    bool       // this walk sends offsets
	gcoord     int32      // the group's coordinator
	findGroup  bool       // FindCoordinator of the group asked
	offVal     int64      // the offsets the open transaction sent (0: none)
	offSeen    bool       // SendOffsets ended well in the open transaction
	pending    int64      // the group coordinator's pending offsets of the open transaction
	groupOff   int64      // the group's committed offsets
	wantOff    int64      // the offsets of the last transaction the producer saw committed
	committing bool       // CommitTxn stepped, its outcome not seen

	// denied is a partition of a topic the producer may not write (an
	// ACL): the coordinator refuses to add it (TOPIC_AUTHORIZATION_FAILED,
	// the request's other partitions OPERATION_NOT_ATTEMPTED), for the
	// whole walk. Drawn from a stream of its own; Topic "" when none.
	denied TopicPartition
	drng   *rand.Rand // the denials' draws (a denied topic; the transactional id refused at FindCoordinator)

	// Splits (a stream of their own): in walks with them, some batches of
	// two or more records are too large for the broker
	// (MESSAGE_TOO_LARGE); the caller answers each NeedSplit later, with
	// two halves (SplitBatch), as the client does.
	srng   *rand.Rand
	splits bool
	big    map[BatchID]bool
	recs   map[BatchID]int32 // the records of a split's parts
	splitQ []NeedSplit

	nextID   BatchID
	txns     int // transactions begun
	inTxn    int // batches enqueued in the open transaction
	maxTxns  int
	maxBatch int
	batchTP  map[BatchID]TopicPartition
	order    map[TopicPartition][]BatchID // enqueue order (accepted batches)
	outcome  map[BatchID]Event
	rejected map[BatchID]bool
	fatal    error
	trace    []string
	stats    map[string]int
}

func (w *txnWorld) logf(format string, args ...any) {
	w.trace = append(w.trace, fmt.Sprintf(format, args...))
}

func (w *txnWorld) fail(format string, args ...any) {
	w.t.Helper()
	var tail []string
	for _, l := range w.trace {
		if !strings.HasSuffix(l, "Tick {}") {
			tail = append(tail, l)
		}
	}
	if len(tail) > 80 {
		tail = tail[len(tail)-80:]
	}
	for _, p := range w.pr.order {
		tail = append(tail, fmt.Sprintf("partition %v: state %v inflight %d cautious %v leader %v retryAt %v batches:", p.tp, p.state, p.inFlight, p.cautious, p.hasLeader, p.retryAt.Sub(w.now)))
		for _, b := range p.batches {
			tail = append(tail, fmt.Sprintf("  %+v", *b))
		}
	}
	w.t.Fatalf("seed %d: %s\n(replay: ROLLSAFE_WALK_FIRST=%d ROLLSAFE_WALKS=1 go test -run TestTxnRandomWalk ./idempotence)\ntrace:\n%s",
		w.seed, fmt.Sprintf(format, args...), w.seed, strings.Join(tail, "\n"))
}

func (w *txnWorld) chance(p float64) bool { return w.faults && w.rng.Float64() < p }

// step feeds the producer and handles what Ready asks.
func (w *txnWorld) step(in Input) {
	w.logf("in  %T %v", in, in)
	w.pr.Step(in, w.now)
	rd := w.pr.Ready()
	for _, s := range rd.Sends {
		w.logf("send %v", s)
		w.produceQ[s.TP] = append(w.produceQ[s.TP], s)
	}
	for _, e := range rd.Events {
		w.logf("out %T %v", e, e)
		w.event(e)
	}
	w.pr.Advance()
}

func (w *txnWorld) event(e Event) {
	switch x := e.(type) {
	case FindCoordinator:
		if x.Group != "" {
			w.findGroup = true
			return
		}
		w.find = true
	case InitProducerIDRequest, AddPartitionsRequest, EndTxnRequest, AddOffsetsRequest, OffsetsCommitRequest:
		if w.creq != nil || len(w.cans) > 0 {
			w.fail("a second coordinator request %v while %v is out", e, w.creq)
		}
		w.creq = e
		switch r := e.(type) {
		case InitProducerIDRequest:
			w.creqTo = r.Broker
		case AddPartitionsRequest:
			w.creqTo = r.Broker
		case EndTxnRequest:
			w.creqTo = r.Broker
		case AddOffsetsRequest:
			w.creqTo = r.Broker
		case OffsetsCommitRequest:
			w.creqTo = r.Broker
		}
	case Delivered:
		w.outcomeOf(x.ID, e)
	case Failed:
		if _, ok := w.batchTP[x.ID]; !ok {
			w.rejected[x.ID] = true
			if !errors.Is(x.Err, ErrNotWritten) {
				w.fail("batch %d refused at NewBatch with %v", x.ID, x.Err)
			}
			return
		}
		w.outcomeOf(x.ID, e)
	case ReadTail:
		w.stats["read tail"]++
		w.reads[x.TP] = x.FromOffset
	case EpochBumped:
		w.stats["partition adopted a new epoch"]++
	case TxnRefused:
		w.fail("refused: %v", x.Err)
	case RefreshMetadata:
		w.meta[x.TP] = true
	case TxnStateChanged:
		switch {
		case x.State == TxnInTransaction && w.offVal != 0:
			w.offSeen = true
		case x.State == TxnReady && w.committing:
			w.committing = false
			if x.Err == nil && w.offSeen {
				w.wantOff = w.offVal
			}
		case x.State == TxnReady || x.State == TxnFatal || x.State == TxnAbortableError:
			w.committing = false
		}
		if x.State == TxnAbortableError {
			switch {
			case errors.Is(x.Err, ErrTxnAbortable) && strings.Contains(x.Err.Error(), ErrDeliveryTimeout.Error()):
				w.stats["abortable: deadline"]++
			case strings.Contains(x.Err.Error(), ErrPurged.Error()):
				w.stats["abortable: purge"]++
			}
		}
		if x.State == TxnFatal {
			w.fatal = x.Err
			switch {
			case w.c.fenced && errors.Is(x.Err, ErrFenced):
			case w.c.timeouts > 0 && errors.Is(x.Err, ErrFenced):
				// The coordinator refused the epoch its timeout moved: it
				// cannot be told from a newer instance's fence.
				w.stats["fatal after a timeout"]++
			case w.refused && strings.Contains(x.Err.Error(), kafkaerr.TransactionalIDAuthorizationFailed.String()):
			case w.c.old && (errors.Is(x.Err, errNoBump) || (errors.Is(x.Err, errStaleNoBump) && (w.c.fenced || w.c.timeouts > 0))):
				// A coordinator before 2.5 cannot give a fresh epoch, nor
				// tell its own timeout from a newer instance.
				w.stats["fatal on an old coordinator"]++
			default:
				w.fail("fatal without a newer instance: %v", x.Err)
			}
		}
	case NeedSplit:
		if !w.big[x.ID] {
			w.fail("split asked for batch %d, not too large", x.ID)
		}
		w.splitQ = append(w.splitQ, x)
	case DataLoss, NeedProducerID:
		w.fail("unexpected %T %v", e, e)
	}
}

func (w *txnWorld) outcomeOf(id BatchID, e Event) {
	if prev, ok := w.outcome[id]; ok {
		w.fail("batch %d: a second outcome %v after %v", id, e, prev)
	}
	w.outcome[id] = e
}

// processCoord applies the coordinator request out and queues its answer
// (or loses it).
func (w *txnWorld) processCoord() {
	req := w.creq
	w.creq = nil
	lostBefore := w.chance(0.08)
	var ans Input
	switch {
	case lostBefore:
		w.stats["coord lost before"]++
	case w.creqTo != w.coordOf(req):
		ans = w.coordCode(req, kafkaerr.NotCoordinator)
	case w.chance(0.05):
		ans = w.coordCode(req, kafkaerr.CoordinatorLoadInProgress)
	case w.offChance(req, 0.04):
		w.stats["offsets: generation refused"]++
		ans = OffsetsCommitAnswer{Partitions: map[TopicPartition]kafkaerr.Code{{Topic: "in", Partition: 0}: kafkaerr.IllegalGeneration}}
	case w.chance(0.002):
		// Refused for good (an ACL changed): the one fatal code the walk
		// plays besides fencing.
		w.refused = true
		w.stats["refused"]++
		ans = w.coordCode(req, kafkaerr.TransactionalIDAuthorizationFailed)
		if a, ok := ans.(AddPartitionsAnswer); ok {
			a.Code = kafkaerr.None
			a.Partitions = map[TopicPartition]kafkaerr.Code{}
			for _, tp := range req.(AddPartitionsRequest).Partitions {
				a.Partitions[tp] = kafkaerr.TransactionalIDAuthorizationFailed
			}
			ans = a
		}
	default:
		ans = w.coordApply(req)
	}
	if ans == nil || w.chance(0.08) {
		if ans != nil {
			w.stats["coord answer lost"]++
		}
		ans = w.coordCode(req, kafkaerr.Transport)
	}
	w.logf("coord %v -> %v", req, ans)
	w.cans = append(w.cans, ans)
}

// coordOf is the broker that coordinates req's key.
func (w *txnWorld) coordOf(req Event) int32 {
	if _, ok := req.(OffsetsCommitRequest); ok {
		return w.gcoord
	}
	return w.c.broker
}

// offChance draws a fault of the group coordinator from the offsets'
// stream.
func (w *txnWorld) offChance(req Event, p float64) bool {
	_, ok := req.(OffsetsCommitRequest)
	return ok && w.faults && w.orng.Float64() < p
}

func (w *txnWorld) coordCode(req Event, c kafkaerr.Code) Input {
	switch req.(type) {
	case InitProducerIDRequest:
		return InitProducerIDAnswer{Code: c}
	case AddPartitionsRequest:
		return AddPartitionsAnswer{Code: c}
	case AddOffsetsRequest:
		return AddOffsetsAnswer{Code: c}
	case OffsetsCommitRequest:
		return OffsetsCommitAnswer{Code: c}
	}
	return EndTxnAnswer{Code: c}
}

// coordApply is the coordinator's v1 handling of a request.
func (w *txnWorld) coordApply(req Event) Input {
	c := w.c
	prep := c.st == cPrepCommit || c.st == cPrepAbort
	switch r := req.(type) {
	case InitProducerIDRequest:
		if prep {
			w.stats["concurrent"]++
			return InitProducerIDAnswer{Code: kafkaerr.ConcurrentTransactions}
		}
		if r.ProducerID >= 0 && c.old {
			w.fail("InitProducerId with an identity sent to a coordinator before 2.5")
		}
		if r.ProducerID < 0 {
			if c.st == cOngoing {
				w.fence(-1)
				return InitProducerIDAnswer{Code: kafkaerr.ConcurrentTransactions}
			}
			c.epoch++
			c.last, c.lastFenced = -1, false
			return InitProducerIDAnswer{Code: kafkaerr.None, ProducerID: c.pid, Epoch: c.epoch}
		}
		switch {
		case r.ProducerID != c.pid:
			return InitProducerIDAnswer{Code: kafkaerr.InvalidProducerIDMapping}
		case r.Epoch == c.epoch && c.st == cOngoing:
			// An InitProducerId on an open transaction aborts it with a
			// fencing epoch: the asker is fenced from then on.
			w.fence(-1)
			return InitProducerIDAnswer{Code: kafkaerr.ConcurrentTransactions}
		case r.Epoch == c.epoch:
			c.last, c.lastFenced = c.epoch, false
			c.epoch++
		case r.Epoch == c.last && c.last >= 0:
			if c.lastFenced {
				w.fail("InitProducerId(%d, %d) of the fenced instance granted (a transactions v2 coordinator takes the fenced epoch as a retry): the zombie goes on and aborts the newer instance's transactions", r.ProducerID, r.Epoch)
			}
			c.epoch++ // KIP-588 (after its own timeout abort), or a retry of a bump
		default:
			return InitProducerIDAnswer{Code: kafkaerr.ProducerFenced}
		}
		return InitProducerIDAnswer{Code: kafkaerr.None, ProducerID: c.pid, Epoch: c.epoch}
	case AddPartitionsRequest:
		codes := map[TopicPartition]kafkaerr.Code{}
		code := kafkaerr.None
		switch {
		case r.ProducerID != c.pid || r.Epoch != c.epoch:
			code = kafkaerr.ProducerFenced
		case prep:
			code = kafkaerr.ConcurrentTransactions
			w.stats["concurrent"]++
		case w.denied.Topic != "" && slices.Contains(r.Partitions, w.denied):
			// Kafka checks every partition before adding any.
			w.stats["add denied"]++
			for _, tp := range r.Partitions {
				codes[tp] = kafkaerr.OperationNotAttempted
			}
			codes[w.denied] = kafkaerr.TopicAuthorizationFailed
			return AddPartitionsAnswer{Partitions: codes}
		default:
			if c.st != cOngoing {
				c.st, c.parts, c.txnEpoch = cOngoing, nil, c.epoch
			}
			for _, tp := range r.Partitions {
				if !slices.Contains(c.parts, tp) {
					c.parts = append(c.parts, tp)
				}
			}
		}
		for _, tp := range r.Partitions {
			codes[tp] = code
		}
		return AddPartitionsAnswer{Partitions: codes}
	case AddOffsetsRequest:
		switch {
		case r.ProducerID != c.pid || r.Epoch != c.epoch:
			return AddOffsetsAnswer{Code: kafkaerr.ProducerFenced}
		case prep:
			w.stats["concurrent"]++
			return AddOffsetsAnswer{Code: kafkaerr.ConcurrentTransactions}
		}
		if c.st != cOngoing {
			c.st, c.parts, c.txnEpoch = cOngoing, nil, c.epoch
		}
		c.group = true
		return AddOffsetsAnswer{Code: kafkaerr.None}
	case OffsetsCommitRequest:
		// The group coordinator checks the producer's epoch and, as Kafka
		// 3.6+ does, that the transaction holds the group's partition.
		switch {
		case r.ProducerID != c.pid || r.Epoch != c.epoch:
			return OffsetsCommitAnswer{Code: kafkaerr.InvalidProducerEpoch}
		case c.st != cOngoing || !c.group:
			return OffsetsCommitAnswer{Code: kafkaerr.InvalidTxnState}
		}
		w.pending = w.offVal
		w.stats["offsets pending"]++
		return OffsetsCommitAnswer{Partitions: map[TopicPartition]kafkaerr.Code{{Topic: "in", Partition: 0}: kafkaerr.None}}
	case EndTxnRequest:
		if r.ProducerID != c.pid || r.Epoch != c.epoch {
			return EndTxnAnswer{Code: kafkaerr.ProducerFenced}
		}
		switch c.st {
		case cOngoing:
			c.st = cPrepAbort
			if r.Commit {
				c.st = cPrepCommit
			}
			return EndTxnAnswer{Code: kafkaerr.None}
		case cPrepCommit, cPrepAbort:
			if (c.st == cPrepCommit) == r.Commit {
				w.stats["concurrent"]++
				return EndTxnAnswer{Code: kafkaerr.ConcurrentTransactions}
			}
		case cCompCommit, cCompAbort:
			if (c.st == cCompCommit) == r.Commit {
				w.stats["end retried"]++
				return EndTxnAnswer{Code: kafkaerr.None}
			}
		}
		return EndTxnAnswer{Code: kafkaerr.InvalidTxnState}
	}
	panic("unreachable")
}

// fence aborts the open transaction with a bumped epoch; last is the epoch
// then also granted (the timeout's KIP-588 grant), -1 for none (a newer
// instance).
func (w *txnWorld) fence(last int16) {
	c := w.c
	if c.st == cOngoing {
		c.epoch++
		c.st, c.txnEpoch = cPrepAbort, c.epoch
	} else {
		c.epoch++
	}
	c.last, c.lastFenced = last, false
}

// completeTxn writes the markers of a prepared transaction.
func (w *txnWorld) completeTxn() {
	c := w.c
	commit := c.st == cPrepCommit
	for _, tp := range c.parts {
		p := w.m.part(tp)
		w.markers[tp] = append(w.markers[tp], txnMarker{at: len(p.log), pid: c.pid, commit: commit})
		st := p.pids[c.pid]
		switch {
		case st == nil:
			p.pids[c.pid] = &modelPID{epoch: c.txnEpoch}
		case c.txnEpoch > st.epoch:
			st.epoch, st.window = c.txnEpoch, nil
		}
	}
	if c.group && commit && w.pending != 0 {
		w.groupOff = w.pending
		w.stats["offsets committed"]++
	}
	c.group, w.pending = false, 0
	w.logf("markers %v commit=%v epoch %d on %v", c.pid, commit, c.txnEpoch, c.parts)
	c.parts = nil
	c.st = cCompAbort
	if commit {
		c.st = cCompCommit
	}
}

// processProduce applies the first produce request queued for tp.
func (w *txnWorld) processProduce(tp TopicPartition) {
	s := w.produceQ[tp][0]
	w.produceQ[tp] = w.produceQ[tp][1:]
	if w.chance(0.05) {
		w.stats["produce lost before"]++
		w.ansQ[tp] = append(w.ansQ[tp], Answer{TP: tp, ID: s.ID, Response: Response{Code: kafkaerr.Transport, Class: MaybeAppended, LogStartOffset: -1}})
		return
	}
	if w.big[s.ID] {
		w.stats["too large"]++
		w.logf("produce %v -> MESSAGE_TOO_LARGE", s)
		w.ansQ[tp] = append(w.ansQ[tp], Answer{TP: tp, ID: s.ID, Response: Response{Code: kafkaerr.MessageTooLarge, Class: NotAppended, LogStartOffset: -1}})
		return
	}
	p := w.m.part(tp)
	before := len(p.log)
	code, base := w.m.produce(tp, s, w.records(s.ID))
	w.m.commit(tp)
	if len(p.log) > before {
		// Appended: the transaction must hold the partition, its markers
		// not yet written (else the batch would hang the partition's
		// last stable offset); a timeout's markers carry a higher epoch.
		c := w.c
		open := c.st == cOngoing || c.st == cPrepCommit || c.st == cPrepAbort
		if !open || !slices.Contains(c.parts, tp) || s.Epoch > c.txnEpoch {
			w.fail("batch %d appended to %v outside the coordinator's transaction (%v, parts %v, epoch %d)", s.ID, tp, c.st, c.parts, c.txnEpoch)
		}
	}
	r := Response{Code: code, Class: Appended, BaseOffset: base, LogStartOffset: -1}
	if code != kafkaerr.None {
		r.Class = NotAppended
	}
	if w.chance(0.05) {
		w.stats["produce answer lost"]++
		r = Response{Code: kafkaerr.Transport, Class: MaybeAppended, LogStartOffset: -1}
	}
	w.logf("produce %v -> %v %d", s, code, base)
	w.ansQ[tp] = append(w.ansQ[tp], Answer{TP: tp, ID: s.ID, Response: r})
}

func (w *txnWorld) records(id BatchID) int32 {
	if n, ok := w.recs[id]; ok {
		return n
	}
	return int32(1 + id%3)
}

// app plays the application: begin, produce, commit or abort.
func (w *txnWorld) app(tail bool) bool {
	switch w.pr.TxnState() {
	case TxnUninitialized:
		w.step(InitTransactions{})
	case TxnReady:
		if w.txns >= w.maxTxns || tail {
			return false
		}
		w.txns++
		w.inTxn = 0
		w.offVal, w.offSeen = 0, false
		w.step(BeginTxn{})
	case TxnInTransaction:
		switch {
		case !tail && w.offsets && w.offVal == 0 && w.orng.IntN(3) == 0:
			w.offVal = int64(100 * w.txns)
			w.step(SendOffsets{Group: "g"})
		case !tail && w.inTxn < w.maxBatch && w.rng.IntN(4) != 0:
			w.nextID++
			id := w.nextID
			tp := w.tps[w.rng.IntN(len(w.tps))]
			w.batchTP[id] = tp
			w.order[tp] = append(w.order[tp], id)
			w.inTxn++
			nb := NewBatch{TP: tp, ID: id, Records: w.records(id)}
			if w.splits && nb.Records >= 2 && w.srng.IntN(3) == 0 {
				w.big[id] = true
			}
			if w.deadlines {
				nb.Deadline = w.now.Add(time.Duration(200+w.rng.IntN(3000)) * time.Millisecond)
			}
			w.step(nb)
		case !tail && w.rng.IntN(5) == 0:
			w.step(AbortTxn{})
		default:
			w.committing = true
			w.step(CommitTxn{})
		}
	case TxnSendingOffsets:
		return false // the coordinators' answers move it
	case TxnAbortableError:
		w.step(AbortTxn{})
	default:
		return false
	}
	return true
}

// act plays one enabled action, drawn at random (faults on) or the first
// in order (the fault-free tail); it reports false when none is enabled.
func (w *txnWorld) act(tail bool) bool {
	type action func()
	var acts []action
	if w.find {
		acts = append(acts, func() {
			w.find = false
			if w.refused || (w.faults && w.drng.IntN(300) == 0) {
				// The transactional id refused for good (an ACL
				// removed): FindCoordinator says so first.
				w.refused = true
				w.stats["refused at FindCoordinator"]++
				w.step(CoordinatorFound{Broker: -1, Code: kafkaerr.TransactionalIDAuthorizationFailed})
				return
			}
			b := w.c.broker
			if w.chance(0.1) {
				b = -1
			}
			w.step(CoordinatorFound{Broker: b})
		})
	}
	if w.findGroup {
		acts = append(acts, func() {
			w.findGroup = false
			b := w.gcoord
			if w.faults && w.orng.IntN(10) == 0 {
				b = -1
			}
			w.step(CoordinatorFound{Broker: b, Group: "g", Code: kafkaerr.CoordinatorNotAvailable})
		})
	}
	if w.creq != nil {
		acts = append(acts, w.processCoord)
	}
	if len(w.splitQ) > 0 {
		acts = append(acts, w.split)
	}
	if len(w.cans) > 0 {
		acts = append(acts, func() {
			a := w.cans[0]
			w.cans = w.cans[1:]
			w.step(a)
		})
	}
	for _, tp := range w.tps {
		if len(w.produceQ[tp]) > 0 {
			acts = append(acts, func() { w.processProduce(tp) })
		}
		if len(w.ansQ[tp]) > 0 {
			acts = append(acts, func() {
				a := w.ansQ[tp][0]
				w.ansQ[tp] = w.ansQ[tp][1:]
				w.step(a)
			})
		}
		if from, ok := w.reads[tp]; ok && len(w.produceQ[tp]) == 0 && len(w.ansQ[tp]) == 0 {
			acts = append(acts, func() {
				delete(w.reads, tp)
				w.step(TailRead{TP: tp, Tail: w.m.tail(tp, from)})
			})
		}
		if w.meta[tp] {
			acts = append(acts, func() {
				delete(w.meta, tp)
				l := w.leader[tp]
				w.step(LeaderChanged{TP: tp, Broker: l[0], LeaderEpoch: l[1]})
			})
		}
		if !tail && w.rng.IntN(60) == 0 {
			acts = append(acts, func() {
				// A clean leader change: the follower holds the same log
				// and producer state.
				l := w.leader[tp]
				l[0], l[1] = 3-l[0], l[1]+1
				w.leader[tp] = l
				w.stats["leader moved"]++
				w.step(LeaderChanged{TP: tp, Broker: l[0], LeaderEpoch: l[1]})
			})
		}
	}
	if w.c.st == cPrepCommit || w.c.st == cPrepAbort {
		acts = append(acts, w.completeTxn)
	}
	if !tail {
		acts = append(acts, func() { w.app(false) })
		if w.c.st == cOngoing && w.rng.IntN(12) == 0 {
			acts = append(acts, func() {
				w.stats["timeout abort"]++
				w.logf("coordinator: transaction timed out")
				w.c.timeouts++
				if w.c.old {
					w.fence(-1)
				} else {
					w.fence(w.c.epoch)
				}
			})
		}
		if !w.c.fenced && w.rng.IntN(600) == 0 {
			acts = append(acts, func() {
				if w.c.st == cPrepCommit || w.c.st == cPrepAbort {
					return // the newer instance's InitProducerId is retried later
				}
				w.stats["zombie"]++
				w.logf("a newer instance with the same transactional id")
				w.c.fenced = true
				if w.c.tv2 && w.c.st == cOngoing {
					// transaction.version 2: the fence's abort keeps the
					// fenced epoch as the last one.
					w.stats["zombie on a v2 cluster"]++
					w.fence(w.c.epoch)
					w.c.lastFenced = true
				} else {
					w.fence(-1)
				}
			})
		}
		if w.purges && w.rng.IntN(40) == 0 {
			acts = append(acts, func() {
				w.stats["purge"]++
				w.step(Purge{Queued: w.rng.IntN(2) == 0, InFlight: w.rng.IntN(2) == 0})
			})
		}
		if w.rng.IntN(25) == 0 {
			acts = append(acts, func() {
				w.stats["coordinator moved"]++
				w.c.broker = 10 + (w.c.broker+1)%3
				if w.offsets && w.orng.IntN(2) == 0 {
					w.stats["group coordinator moved"]++
					w.gcoord = 20 + (w.gcoord+1)%3
				}
			})
		}
	}
	if len(acts) == 0 {
		if tail && w.app(true) {
			return true
		}
		if t, ok := w.pr.NextWake(); ok {
			w.now = later(w.now, t)
			w.step(Tick{})
			return true
		}
		return false
	}
	if !tail && w.rng.IntN(6) == 0 {
		w.now = w.now.Add(time.Duration(w.rng.IntN(300)) * time.Millisecond)
		w.step(Tick{})
		return true
	}
	i := 0
	if !tail {
		i = w.rng.IntN(len(acts))
	}
	acts[i]()
	return true
}

// check compares every outcome with the logs and their markers.
func (w *txnWorld) check() {
	committed := func(tp TopicPartition, idx int) (bool, bool) {
		for _, mk := range w.markers[tp] {
			if mk.at > idx && mk.pid == w.c.pid {
				return mk.commit, true
			}
		}
		return false, false
	}
	inLog := map[BatchID][]int{}
	for _, tp := range w.tps {
		for i, b := range w.m.part(tp).log {
			inLog[b.id] = append(inLog[b.id], i)
			if len(inLog[b.id]) > 1 {
				w.fail("batch %d written twice to %v", b.id, tp)
			}
		}
	}
	for id, tp := range w.batchTP {
		e, ok := w.outcome[id]
		if !ok {
			w.fail("batch %d has no outcome", id)
		}
		idx := inLog[id]
		switch x := e.(type) {
		case Delivered:
			if len(idx) != 1 {
				w.fail("batch %d delivered, in the log %d times", id, len(idx))
			}
			if c, ok := committed(tp, idx[0]); !ok || !c {
				w.fail("batch %d delivered, not committed (marker found %v)", id, ok)
			}
			if b := w.m.part(tp).log[idx[0]]; b.base != x.BaseOffset {
				w.fail("batch %d delivered at %d, in the log at %d", id, x.BaseOffset, b.base)
			}
		case Failed:
			switch {
			case errors.Is(x.Err, ErrOutcomeUnknown):
				if w.fatal == nil {
					w.fail("batch %d unknown, the producer not fatal: %v", id, x.Err)
				}
				w.stats["unknown (fatal)"]++
			case !errors.Is(x.Err, ErrAborted) && !errors.Is(x.Err, ErrTxnState):
				w.fail("batch %d failed with %v, neither aborted nor unknown", id, x.Err)
			default:
				if errors.Is(x.Err, ErrNotWritten) && len(idx) > 0 {
					w.fail("batch %d reported not written, in the log", id)
				}
				if len(idx) == 1 {
					if c, ok := committed(tp, idx[0]); ok && c {
						w.fail("batch %d reported %v, committed", id, x.Err)
					} else if !ok {
						w.fail("batch %d in the log with no marker after it", id)
					}
				}
			}
		}
	}
	// Per partition, the delivered batches lie in enqueue order.
	for _, tp := range w.tps {
		last := int64(-1)
		for _, id := range w.order[tp] {
			if d, ok := w.outcome[id].(Delivered); ok {
				if d.BaseOffset <= last {
					w.fail("batch %d delivered at %d, behind an earlier batch at %d", id, d.BaseOffset, last)
				}
				last = d.BaseOffset
			}
		}
	}
}

// split answers the first NeedSplit: the batch's records in two parts,
// in its place (it has no outcome of its own from then on).
func (w *txnWorld) split() {
	ns := w.splitQ[0]
	w.splitQ = w.splitQ[1:]
	n := w.records(ns.ID)
	var parts []Part
	var ids []BatchID
	for _, r := range []int32{n / 2, n - n/2} {
		w.nextID++
		w.recs[w.nextID] = r
		w.batchTP[w.nextID] = ns.TP
		parts = append(parts, Part{ID: w.nextID, Records: r})
		ids = append(ids, w.nextID)
	}
	delete(w.batchTP, ns.ID)
	i := slices.Index(w.order[ns.TP], ns.ID)
	w.order[ns.TP] = slices.Replace(w.order[ns.TP], i, i+1, ids...)
	w.stats["split"]++
	w.step(SplitBatch{TP: ns.TP, ID: ns.ID, Parts: parts})
}

func (w *txnWorld) quiet() bool {
	if w.find || w.findGroup || w.creq != nil || len(w.cans) > 0 || len(w.reads) > 0 || len(w.meta) > 0 || len(w.splitQ) > 0 {
		return false
	}
	for _, tp := range w.tps {
		if len(w.produceQ[tp]) > 0 || len(w.ansQ[tp]) > 0 {
			return false
		}
	}
	return w.c.st != cPrepCommit && w.c.st != cPrepAbort
}

func playTxnWalk(t *testing.T, seed uint64, stats map[string]int) {
	rng := rand.New(rand.NewPCG(seed, 0x7a11))
	w := &txnWorld{
		t: t, seed: seed, rng: rng, now: time.Unix(10000, 0), m: newModelBroker(false),
		c:       &modelCoord{pid: 1000, epoch: -1, last: -1, broker: 10, old: rng.IntN(4) == 0},
		markers: map[TopicPartition][]txnMarker{}, faults: true,
		produceQ: map[TopicPartition][]Send{}, ansQ: map[TopicPartition][]Answer{},
		reads: map[TopicPartition]int64{}, meta: map[TopicPartition]bool{}, leader: map[TopicPartition][2]int32{},
		maxTxns: 2 + rng.IntN(5), maxBatch: 1 + rng.IntN(6),
		batchTP: map[BatchID]TopicPartition{}, order: map[TopicPartition][]BatchID{},
		outcome: map[BatchID]Event{}, rejected: map[BatchID]bool{}, stats: stats,
	}
	w.deadlines, w.purges = rng.IntN(3) == 0, rng.IntN(5) == 0
	w.orng = rand.New(rand.NewPCG(seed, 0x0ff5e7))
	w.offsets, w.gcoord = w.orng.IntN(2) == 0, 20
	w.pr = New(Config{Transactional: true, TxnNoEpochBump: w.c.old})
	for i := range 1 + rng.IntN(3) {
		w.tps = append(w.tps, TopicPartition{Topic: "t", Partition: int32(i)})
	}
	// A transaction.version 2 cluster, from a stream of its own.
	w.c.tv2 = !w.c.old && rand.New(rand.NewPCG(seed, 0x7e2)).IntN(2) == 0
	w.srng = rand.New(rand.NewPCG(seed, 0x5b117))
	w.splits, w.big, w.recs = w.srng.IntN(5) == 0, map[BatchID]bool{}, map[BatchID]int32{}
	w.drng = rand.New(rand.NewPCG(seed, 0xde41ed))
	if w.drng.IntN(8) == 0 {
		w.denied = TopicPartition{Topic: "denied", Partition: 0}
		w.tps = append(w.tps, w.denied)
		w.stats["walks with a denied topic"]++
	}
	for _, tp := range w.tps {
		w.leader[tp] = [2]int32{1, 7}
		w.step(LeaderChanged{TP: tp, Broker: 1, LeaderEpoch: 7})
	}
	for range 400 {
		if !w.act(false) {
			break
		}
		if w.pr.TxnState() == TxnFatal {
			break
		}
	}
	// The fault-free tail: every transaction ends, nothing is left.
	w.faults = false
	w.logf("-- fault-free tail")
	for i := 0; ; i++ {
		if i > 5000 {
			w.fail("no progress in the fault-free tail: state %v, quiet %v, idle %v", w.pr.TxnState(), w.quiet(), w.pr.Idle())
		}
		st := w.pr.TxnState()
		if st == TxnFatal && w.c.st == cOngoing {
			w.fence(-1) // the coordinator times the orphan out
		}
		if w.quiet() && (st == TxnReady || st == TxnFatal) && w.pr.Idle() {
			break
		}
		if !w.act(true) {
			w.fail("stuck in the fault-free tail: state %v", st)
		}
	}
	w.check()
	if w.fatal == nil && w.groupOff != w.wantOff {
		w.fail("the group's committed offsets are %d, the last transaction committed with offsets sent %d", w.groupOff, w.wantOff)
	}
	stats["walks"]++
	stats["transactions"] += w.txns
	if w.fatal != nil {
		stats["fatal"]++
	}
	for _, e := range w.outcome {
		switch x := e.(type) {
		case Delivered:
			stats["delivered"]++
		case Failed:
			if errors.Is(x.Err, ErrAborted) {
				stats["aborted"]++
			}

		}
	}
}

// TestTxnRandomWalk plays seeded transaction walks (ROLLSAFE_WALKS and
// ROLLSAFE_WALK_FIRST as TestRandomWalk).
func TestTxnRandomWalk(t *testing.T) {
	walks := 1000
	if testing.Short() {
		walks = 50
	}
	if n, err := strconv.Atoi(os.Getenv("ROLLSAFE_WALKS")); err == nil && n > 0 {
		walks = n
	}
	first := uint64(1)
	if n, err := strconv.ParseUint(os.Getenv("ROLLSAFE_WALK_FIRST"), 10, 64); err == nil && n > 0 {
		first = n
	}
	stats := map[string]int{}
	for seed := first; seed < first+uint64(walks); seed++ {
		playTxnWalk(t, seed, stats)
	}
	t.Logf("%v", stats)
}
