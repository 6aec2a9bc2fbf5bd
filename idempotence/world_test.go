package idempotence

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

// world drives a Producer against the model broker, answering its events the
// way a client would and checking the invariants after every input.

type fault uint8

const (
	fOK               fault = iota // the broker processes the request and answers
	fNotAppended                   // NOT_LEADER_OR_FOLLOWER, not processed
	fUnknownProcessed              // processed, answer lost (connection dropped)
	fUnknownDropped                // not processed, connection dropped after write
	fHeadOOO                       // OUT_OF_ORDER_SEQUENCE_NUMBER, not processed
	fUnknownPID                    // UNKNOWN_PRODUCER_ID, not processed
	fStaleEpoch                    // INVALID_PRODUCER_EPOCH, not processed
	fTimedOut                      // processed, REQUEST_TIMED_OUT
	fRestart                       // the leader restarts from a snapshot (window shrinks to one batch), then answers
	numFaults
	fTruncate   // unclean leader election drops the last batch, then answers (random walk only)
	fFatal      // TOPIC_AUTHORIZATION_FAILED, not processed (random walk only)
	fTooLarge   // MESSAGE_TOO_LARGE, not processed (random walk only)
	fMove       // a clean leader move announced by metadata, then answers (random walk only)
	fLeaderless // metadata shows no leader, then a new one, then the old leader answers (random walk only)
	fLate       // the connection drops once the broker read the request; the broker processes it at the next step, after the client may have resent it
	fCompact    // the cleaner removes the oldest committed batch that is not its producer's last (log start unchanged), then the broker answers
	fForget     // the broker appends (uncommitted), its expiry check then forgets every producer (records stamped long ago), and it answers REQUEST_TIMED_OUT
)

var faultNames = [...]string{"ok", "not-appended", "unknown-processed", "unknown-dropped", "head-ooo", "unknown-pid", "stale-epoch", "timed-out", "restart", "", "truncate", "fatal", "too-large", "leader-move", "leaderless", "late", "compact", "forget"}

func (f fault) String() string { return faultNames[f] }

type req struct {
	send Send
	at   time.Time // when the machine handed it out
}

type numbering struct {
	pid   int64
	epoch int16
	seq   int32
}

// wbatch is the harness's view of one batch.
type wbatch struct {
	tp        TopicPartition
	idx       float64 // position within its partition; split parts share their batch's slot
	width     float64 // the slot's width
	replaced  bool    // split into parts
	records   int32
	num       numbering
	numbered  bool
	delivered int
	offset    int64
	failed    error
	mayRenum  bool // an error answer on its partition came after its numbering
	truncated bool // removed from the log by an unclean leader election
	deleted   bool // truncated, then its topic was deleted: a loss the producer may no longer tell
	compacted bool // removed from the log by the cleaner
}

type epochKey struct {
	tp  TopicPartition
	pid int64
}

type world struct {
	fatalf func(format string, args ...any)
	pr     *Producer
	m      *modelBroker
	now    time.Time
	tps    []TopicPartition
	net    map[TopicPartition][]req
	wb     map[BatchID]*wbatch
	ids    []BatchID // in enqueue order

	nextSeq   map[numbering]int32 // fresh numbering expected next, keyed by (pid, epoch) per tp below
	seqKey    map[TopicPartition]map[numbering]int32
	lastEpoch map[epochKey]int16      // highest epoch used per tp and pid
	errSince  map[TopicPartition]bool // an error answer since the last success
	lastDeliv map[TopicPartition]float64
	nextPID   int64
	tailErrs  int // tail reads to fail
	// forgetful: the batches are stamped two days before the world's
	// clock, and the leader forgets every producer's state before each
	// step, as Kafka's periodic expiry does to producers writing records
	// stamped longer ago than producer.id.expiration.ms.
	forgetful   bool
	stamp       time.Time // the batches' record timestamp (zero: unknown)
	sawTailErr  bool
	sawFatal    bool
	sawPurge    bool // a batch failed with ErrPurged
	leaderEpoch map[TopicPartition]int32
	nextID      BatchID
	trace       []string
	late        []lateReq // read by the broker, processed at the next step
	// deep, when set, draws how many batches an unclean election takes
	// from the end of the log (1 to 6); nil: one.
	deep *rand.Rand
	// noEndOffset: the broker predates OffsetForLeaderEpoch v3 (Kafka
	// 2.3): a read comes without the leader's log end (-1).
	noEndOffset bool
	// noDescribe: the broker predates DescribeProducers (Kafka 2.8): a
	// read does not describe the partition's producers.
	noDescribe bool
	// losses are the DataLoss events reported, per partition.
	losses map[TopicPartition][]DataLoss
	// recreated counts each partition's topic re-creations (recreate);
	// crossing are the batches in flight at one: a request the broker
	// processes after it writes to the new log, wherever an earlier
	// attempt landed (its outcome is unknown to the caller, and it is
	// never sent again).
	recreated map[TopicPartition]int
	crossing  map[BatchID]bool
	// tx, when set, receives the machine's outputs (every event and send,
	// in order): the walk's transcript, to compare two builds.
	tx io.Writer
}

// lateReq is a request the broker read before its connection dropped. The
// broker processes it within Config.AnswerTimeout of reading it (by: sent
// + AnswerTimeout, the earliest bound), as a broker not stalled longer than
// a request timeout does: at the next step, or before the clock passes by.
type lateReq struct {
	tp      TopicPartition
	send    Send
	records int32
	by      time.Time
}

// processLate has the broker process the requests it read before their
// connections dropped: appended, or refused by the producer state of now;
// the answers go nowhere.
func (w *world) processLate() {
	for _, l := range w.late {
		code, base := w.m.produce(l.tp, l.send, l.records)
		w.logf("late p%d id=%d %d/%d processed -> code %d at %d", l.tp.Partition, l.send.ID, l.send.Epoch, l.send.BaseSequence, code, base)
	}
	w.late = nil
}

func newWorld(fatalf func(string, ...any), cfg Config, epochPerPID bool, perTP []int, startEpoch int16) *world {
	w := &world{
		fatalf: fatalf, pr: New(cfg), m: newModelBroker(epochPerPID), now: time.Unix(1000, 0),
		net: map[TopicPartition][]req{}, wb: map[BatchID]*wbatch{},
		seqKey: map[TopicPartition]map[numbering]int32{}, lastEpoch: map[epochKey]int16{},
		errSince:  map[TopicPartition]bool{},
		lastDeliv: map[TopicPartition]float64{}, nextPID: 8, nextID: 10000, leaderEpoch: map[TopicPartition]int32{},
	}
	w.pr.setIdentity(7, startEpoch)
	id := BatchID(1)
	for i, n := range perTP {
		tp := TopicPartition{Topic: "t", Partition: int32(i)}
		w.tps = append(w.tps, tp)
		w.seqKey[tp] = map[numbering]int32{}
		w.lastDeliv[tp] = -1
		w.pr.leaderChangedIn(tp, 1, 0, 1)
		for j := 0; j < n; j++ {
			recs := int32(1 + (j+i)%3)
			w.wb[id] = &wbatch{tp: tp, idx: float64(j), width: 1, records: recs, offset: -2}
			w.ids = append(w.ids, id)
			w.pr.enqueue(tp, id, recs, time.Time{}, time.Time{})
			id++
		}
	}
	w.pump()
	return w
}

func (w *world) logf(format string, args ...any) {
	w.trace = append(w.trace, fmt.Sprintf(format, args...))
}

func (w *world) fail(format string, args ...any) {
	w.fatalf("%s\ntrace:\n  %s", fmt.Sprintf(format, args...), strings.Join(w.trace, "\n  "))
}

// choices lists the (partition, fault) pairs possible now.
func (w *world) busy() []int {
	var out []int
	for i, tp := range w.tps {
		if len(w.net[tp]) > 0 {
			out = append(out, i)
		}
	}
	return out
}

// step answers the oldest request of partition i with fault f.
func (w *world) step(i int, f fault) {
	w.processLate()
	tp := w.tps[i]
	if w.forgetful {
		w.m.forget()
		w.logf("expired every producer")
	}
	q := w.net[tp]
	r := q[0]
	w.net[tp] = q[1:]
	w.now = w.now.Add(time.Second)
	b := w.wb[r.send.ID]
	var resp Response
	if f == fRestart {
		w.m.restart(tp)
	}
	if f == fMove || f == fLeaderless {
		if f == fLeaderless {
			w.pr.leaderChanged(tp, -1, -1)
			w.pump()
		}
		w.leaderEpoch[tp]++
		w.pr.leaderChanged(tp, 1+w.leaderEpoch[tp]%3, w.leaderEpoch[tp])
		w.pump()
	}
	if f == fTruncate {
		depth := 1
		if w.deep != nil {
			depth = 1 + w.deep.IntN(6)
		}
		ids := w.m.truncateN(tp, depth)
		for _, id := range ids {
			w.wb[id].truncated = true
			w.logf("truncated %d", id)
		}
		if len(ids) > 0 {
			// A batch acknowledged but not yet delivered that the
			// truncation took is written again, under a new number.
			for _, x := range w.wb {
				if x.tp == tp && x.numbered {
					x.mayRenum = true
				}
			}
		}
	}
	if f == fCompact {
		if id, ok := w.m.compact(tp); ok {
			w.wb[id].compacted = true
			w.logf("compacted %d", id)
		}
	}
	switch f {
	case fOK, fUnknownProcessed, fTimedOut, fRestart, fTruncate, fMove, fLeaderless, fCompact, fForget:
		code, base := w.m.produce(tp, r.send, b.records)
		resp = Response{Code: code, BaseOffset: base, LogStartOffset: 0}
		if code == kafkaerr.None {
			resp.Class = Appended
			if f != fUnknownProcessed && f != fTimedOut && f != fForget {
				w.m.commit(tp) // acks=all: answered once replicated
			}
		}
		if f == fForget {
			w.m.forget()
			w.logf("expired every producer")
		}
		if f == fUnknownProcessed {
			resp = Response{Code: kafkaerr.Transport, Class: MaybeAppended, LogStartOffset: -1}
		} else if f == fTimedOut || f == fForget {
			resp = Response{Code: kafkaerr.RequestTimedOut, Class: MaybeAppended, LogStartOffset: -1}
		}
	case fNotAppended:
		resp = Response{Code: kafkaerr.NotLeaderOrFollower, Class: NotAppended, LogStartOffset: -1}
	case fUnknownDropped:
		resp = Response{Code: kafkaerr.Transport, Class: MaybeAppended, LogStartOffset: -1}
	case fLate:
		l := lateReq{tp: tp, send: r.send, records: b.records, by: r.at.Add(w.pr.answerTimeout())}
		w.late = append(w.late, l)
		if !w.now.Before(l.by) {
			// Answered after the client's timeout: the broker is done with
			// it before the client hears of the failure.
			w.processLate()
		}
		resp = Response{Code: kafkaerr.Transport, Class: MaybeAppended, LogStartOffset: -1}
	case fHeadOOO:
		resp = Response{Code: kafkaerr.OutOfOrderSequenceNumber, LogStartOffset: -1}
	case fUnknownPID:
		resp = Response{Code: kafkaerr.UnknownProducerID, LogStartOffset: -1}
	case fStaleEpoch:
		resp = Response{Code: kafkaerr.InvalidProducerEpoch, LogStartOffset: -1}
	case fFatal:
		resp = Response{Code: kafkaerr.TopicAuthorizationFailed, Class: NotAppendedFatal, LogStartOffset: -1}
		w.sawFatal = true
	case fTooLarge:
		resp = Response{Code: kafkaerr.MessageTooLarge, Class: NotAppendedFatal, LogStartOffset: -1}
	}
	w.logf("p%d id=%d %v/%d/%d %s -> code %d", i, r.send.ID, r.send.Epoch, r.send.BaseSequence, b.records, f, resp.Code)
	if resp.Code == kafkaerr.None || resp.Code == kafkaerr.DuplicateSequenceNumber {
		w.errSince[tp] = false
	} else {
		w.errSince[tp] = true
		for _, x := range w.wb {
			if x.tp == tp && x.numbered {
				x.mayRenum = true
			}
		}
	}
	w.pr.respond(tp, r.send.ID, resp, w.now)
	w.pump()
	w.checkCounters()
}

// checkCounters compares the partitions' incremental counters with a scan.
func (w *world) checkCounters() {
	for _, p := range w.pr.order {
		n := 0
		for _, b := range p.batches {
			if b.numbered {
				n++
			}
			if !b.expired && !b.deadline.IsZero() && b.st != stAcked && b.st != stAwaitSplit &&
				(p.nextDue.IsZero() || b.deadline.Before(p.nextDue)) {
				w.fail("batch %d due %v before the partition's next due %v", b.id, b.deadline, p.nextDue)
			}
			if b.st == stAwaitSplit && p.state.sendingOK() {
				w.fail("batch %d awaits a split without a pending bump", b.id)
			}
		}
		if n != p.nNumbered {
			w.fail("%v: %d numbered batches, counter says %d", p.tp, n, p.nNumbered)
		}
		// The state (every change of which the table allowed: state.go,
		// checkTransitions) agrees with the batches.
		if p.state.reading() && p.inFlight > 0 {
			w.fail("%v: %v with %d in flight", p.tp, p.state, p.inFlight)
		}
	}
}

// pump answers events and collects sends until nothing changes.
func (w *world) pump() {
	for round := 0; ; round++ {
		if round > 1000 {
			w.fail("pump does not settle")
		}
		w.pr.tick(w.now)
		ev := w.pr.takeEvents()
		for _, e := range ev {
			if w.tx != nil {
				fmt.Fprintf(w.tx, "%v %T %+v\n", w.now.UnixNano(), e, e)
			}
			w.event(e)
		}
		sent := 0
		for _, tp := range w.tps {
			for _, s := range w.pr.sendable(tp, w.now) {
				if w.tx != nil {
					fmt.Fprintf(w.tx, "%v %+v\n", w.now.UnixNano(), s)
				}
				w.sent(tp, s)
				sent++
			}
		}
		if len(ev) == 0 && sent == 0 && len(w.pr.events) == 0 {
			// Backoffs end before any pending answer arrives.
			var next time.Time
			for _, p := range w.pr.order {
				if !p.retryAt.IsZero() && p.retryAt.After(w.now) && (next.IsZero() || p.retryAt.Before(next)) {
					next = p.retryAt
				}
			}
			if next.IsZero() {
				return
			}
			for _, l := range w.late {
				if !next.Before(l.by) {
					w.processLate() // the clock would pass a late request's bound
					break
				}
			}
			w.now = next
		}
	}
}

func (w *world) event(e Event) {
	switch e := e.(type) {
	case Delivered:
		b := w.wb[e.ID]
		w.logf("delivered %d at %d", e.ID, e.BaseOffset)
		if b.delivered > 0 || b.failed != nil {
			w.fail("batch %d completed twice", e.ID)
		}
		b.delivered++
		b.offset = e.BaseOffset
		n, off := w.m.count(e.TP, e.ID)
		if n == 0 && (b.truncated || b.compacted) {
			break // acknowledged, then lost with the truncation or cleaned
		}
		if n != 1 {
			w.fail("batch %d delivered but %d times in the log", e.ID, n)
		}
		if e.BaseOffset >= 0 && e.BaseOffset != off {
			w.fail("batch %d delivered at %d, log has it at %d", e.ID, e.BaseOffset, off)
		}
		if b.idx <= w.lastDeliv[e.TP] {
			w.fail("batch %d delivered out of order", e.ID)
		}
		w.lastDeliv[e.TP] = b.idx
	case Failed:
		b := w.wb[e.ID]
		w.logf("failed %d: %v", e.ID, e.Err)
		if b.delivered > 0 || b.failed != nil {
			w.fail("batch %d completed twice", e.ID)
		}
		b.failed = e.Err
		if errors.Is(e.Err, ErrPurged) {
			w.sawPurge = true
			w.logf("purged %d", e.ID)
		}
		switch {
		case errors.Is(e.Err, ErrNotWritten):
			if n, _ := w.m.count(e.TP, e.ID); n != 0 {
				w.fail("batch %d failed as not written but is in the log", e.ID)
			}
			for _, r := range w.net[e.TP] {
				if r.send.ID == e.ID {
					w.fail("batch %d failed as not written while in flight", e.ID)
				}
			}
		case errors.Is(e.Err, ErrOutcomeUnknown):
		default:
			w.fail("batch %d failed with an unclassified error %v", e.ID, e.Err)
		}
	case ReadTail:
		if len(w.net[e.TP]) != 0 {
			w.fail("tail read of %v asked with requests in flight", e.TP)
		}
		w.logf("read tail %v from %d", e.TP, e.FromOffset)
		if w.tailErrs > 0 {
			w.tailErrs--
			w.sawTailErr = true
			w.pr.tailRead(e.TP, Tail{Err: errors.New("fetch failed")})
			return
		}
		t := w.m.tail(e.TP, e.FromOffset)
		if w.noEndOffset {
			t.LogEndOffset = -1
		}
		if w.noDescribe {
			t.Described, t.Producers = false, nil
		}
		w.logf("  tail hw=%d end=%d described=%v batches=%v producers=%v", t.HighWatermark, t.LogEndOffset, t.Described, t.Batches, t.Producers)
		w.pr.tailRead(e.TP, t)
		// The followers catch up after the read: a batch the leader held
		// above the high watermark is visible to the next one.
		w.m.commit(e.TP)
	case RefreshMetadata:
		w.tellLeader(e.TP)
	case NeedProducerID:
		w.logf("new producer id %d", w.nextPID)
		w.pr.setIdentity(w.nextPID, 0)
		w.nextPID++
	case EpochBumped:
		w.logf("bumped %v to %d/%d", e.TP, e.ProducerID, e.Epoch)
	case DataLoss:
		w.logf("data loss %+v", e)
		if w.losses == nil {
			w.losses = map[TopicPartition][]DataLoss{}
		}
		w.losses[e.TP] = append(w.losses[e.TP], e)
		lost := false
		for _, b := range w.wb {
			lost = lost || (b.tp == e.TP && b.truncated)
		}
		if !lost {
			w.fail("data loss reported on %v where nothing was lost", e.TP)
		}
	case NeedSplit:
		b := w.wb[e.ID]
		w.logf("split %d", e.ID)
		if b.records < 2 {
			w.sawFatal = true // fails as too large
			w.pr.split(e.TP, e.ID, nil)
			return
		}
		b.replaced = true
		half := b.records / 2
		var parts []Part
		for k, n := range []int32{half, b.records - half} {
			w.nextID++
			w.wb[w.nextID] = &wbatch{tp: e.TP, idx: b.idx + float64(k)*b.width/2, width: b.width / 2, records: n, offset: -2}
			w.ids = append(w.ids, w.nextID)
			parts = append(parts, Part{ID: w.nextID, Records: n})
		}
		if !w.pr.split(e.TP, e.ID, parts) {
			w.fail("split of %d refused: %s", e.ID, w.dump())
		}
	default:
		w.fail("unexpected event %T", e)
	}
}

// sent checks one Send against the invariants and puts it on the wire.
func (w *world) sent(tp TopicPartition, s Send) {
	b := w.wb[s.ID]
	n := numbering{s.ProducerID, s.Epoch, s.BaseSequence}
	w.logf("send p%d id=%d %d/%d/%d", tp.Partition, s.ID, s.Epoch, s.BaseSequence, b.records)
	if b.delivered > 0 || b.failed != nil {
		w.fail("batch %d sent after completion", s.ID)
	}
	if w.errSince[tp] && len(w.net[tp]) > 0 {
		w.fail("more than one in flight on %v after an error", tp)
	}
	if len(w.net[tp]) >= w.pr.cfg.MaxInFlight {
		w.fail("more than %d in flight on %v", w.pr.cfg.MaxInFlight, tp)
	}
	for _, r := range w.net[tp] {
		if r.send.ID == s.ID {
			w.fail("batch %d sent twice at once", s.ID)
		}
	}
	if !b.numbered || b.num != n {
		// A new numbering: the batch must not be, or be about to be, in the log.
		if b.numbered {
			if c, _ := w.m.count(tp, s.ID); c != 0 {
				w.fail("batch %d renumbered although it is in the log", s.ID)
			}
			if !b.mayRenum {
				w.fail("batch %d renumbered without an error on its partition", s.ID)
			}
		}
		key := epochKey{tp, s.ProducerID}
		seqs := w.seqKey[tp]
		k := numbering{s.ProducerID, s.Epoch, 0}
		if next, ok := seqs[k]; ok {
			if s.BaseSequence != next {
				w.fail("sequence gap on %v: sent %d, expected %d", tp, s.BaseSequence, next)
			}
		} else {
			if s.BaseSequence != 0 {
				w.fail("new epoch %d on %v starts at sequence %d", s.Epoch, tp, s.BaseSequence)
			}
			if last, ok := w.lastEpoch[key]; ok && s.Epoch <= last {
				w.fail("epoch %d reused on %v (last %d)", s.Epoch, tp, last)
			}
			w.lastEpoch[key] = s.Epoch
		}
		seqs[k] = addSeq(s.BaseSequence, b.records)
		b.num, b.numbered, b.mayRenum = n, true, false
	}
	for _, r := range w.net[tp] {
		if r.send.Broker != s.Broker || r.send.LeaderEpoch != s.LeaderEpoch {
			w.fail("batch %d sent to %d/%d while %d is in flight to %d/%d", s.ID, s.Broker, s.LeaderEpoch, r.send.ID, r.send.Broker, r.send.LeaderEpoch)
		}
	}
	w.net[tp] = append(w.net[tp], req{send: s, at: w.now})
}

// quiesce checks the end state once nothing is in flight.
func (w *world) quiesce(allDelivered bool) {
	if len(w.busy()) != 0 {
		return
	}
	if !w.pr.Idle() {
		w.fail("stuck: nothing in flight but the producer is not idle: %s", w.dump())
	}
	for _, id := range w.ids {
		b := w.wb[id]
		if b.replaced {
			continue
		}
		if b.delivered == 0 && b.failed == nil {
			w.fail("batch %d never completed", id)
		}
		if errors.Is(b.failed, ErrNotWritten) {
			if n, _ := w.m.count(b.tp, id); n != 0 {
				w.fail("batch %d failed as not written but is in the log", id)
			}
		}
		if b.delivered > 0 {
			if n, _ := w.m.count(b.tp, id); n != 1 && !(n == 0 && (b.truncated || b.compacted)) {
				w.fail("delivered batch %d is %d times in the log", id, n)
			}
		}
		if n, _ := w.m.count(b.tp, id); n > 1 && !w.crossing[id] {
			w.fail("batch %d written %d times (over its topic's re-creations)", id, n)
		}
		if allDelivered && b.delivered == 0 && !errors.Is(b.failed, ErrTopicRecreated) &&
			!(errors.Is(b.failed, ErrOutcomeUnknown) && (b.compacted || w.truncatedIn(b.tp))) &&
			!(errors.Is(b.failed, errUnknownUnproven) && w.noDescribe) {
			// (A batch the cleaner removed before a read could see it —
			// a late copy, say — cannot be proven either way; nor one
			// whose partition an unclean election truncated. A batch of
			// a deleted topic ends as it stood there. Nor one a broker
			// before 2.3 cannot settle: no log end, no DescribeProducers,
			// so an unknown outcome the producer must not resend — after
			// a desync, or opening its epoch's sequence where the broker
			// may have forgotten the producer — stays unknown.)
			w.fail("batch %d failed (%v) with only retriable faults", id, b.failed)
		}
	}
	for _, tp := range w.tps {
		seen := map[BatchID]bool{}
		last := -1.0
		// After an unclean election the broker may hold no state for the
		// producer and accept any sequence: order is not guaranteed then.
		truncated := false
		for _, b := range w.wb {
			truncated = truncated || (b.tp == tp && b.truncated)
		}
		for _, lb := range w.m.part(tp).log {
			if seen[lb.id] {
				w.fail("duplicate of batch %d in the log of %v", lb.id, tp)
			}
			seen[lb.id] = true
			if idx := w.wb[lb.id].idx; idx < last && !truncated {
				w.fail("batch %d out of order in the log of %v", lb.id, tp)
			} else {
				last = idx
			}
		}
	}
}

func (w *world) dump() string {
	var sb strings.Builder
	for _, p := range w.pr.order {
		fmt.Fprintf(&sb, "\n%v id=%v/%d/%d next=%d inflight=%d state=%v cautious=%v desync=%v leader=%v retry=%v",
			p.tp, p.hasID, p.pid, p.epoch, p.nextSeq, p.inFlight, p.state, p.cautious, p.desync, p.hasLeader, p.retryAt)
		for _, b := range p.batches {
			fmt.Fprintf(&sb, "\n  %d %v num=%v %d/%d unknown=%v", b.id, b.st, b.numbered, b.epoch, b.seq, b.unknown)
		}
	}
	return sb.String()
}

// key fingerprints the whole world for the exhaustive search.
func (w *world) key() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "P%v/%d/%d/%v|", w.pr.hasID, w.pr.pid, w.pr.epoch, w.pr.needID)
	for _, p := range w.pr.order {
		// (Draining is folded into Sending: the fingerprint never told a
		// partition draining its old leader from one sending.)
		st := p.state
		if st == psDraining {
			st = psSending
		}
		fmt.Fprintf(&sb, "%d:%v/%d/%d/%d/%v/%v/%v/%d/%v|", p.tp.Partition, p.hasID, p.pid, p.epoch, p.nextSeq,
			p.cautious, st, p.hasLeader, p.anchor.base, p.hasAnchor)
		for _, b := range p.batches {
			fmt.Fprintf(&sb, "%d,%d,%v,%d,%d,%d,%v,%d;", b.id, b.st, b.numbered, b.pid, b.epoch, b.seq, b.unknown, b.offset)
		}
	}
	tps := slices.Clone(w.tps)
	sort.Slice(tps, func(i, j int) bool { return tps[i].Partition < tps[j].Partition })
	for _, tp := range tps {
		mp := w.m.part(tp)
		fmt.Fprintf(&sb, "L%d:", tp.Partition)
		for _, b := range mp.log {
			fmt.Fprintf(&sb, "%d@%d/%d;", b.id, b.epoch, b.seq)
		}
		pids := make([]int64, 0, len(mp.pids))
		for pid := range mp.pids {
			pids = append(pids, pid)
		}
		slices.Sort(pids)
		for _, pid := range pids {
			st := mp.pids[pid]
			fmt.Fprintf(&sb, "S%d/%d/", pid, st.epoch)
			for _, x := range st.window {
				fmt.Fprintf(&sb, "%d,", x.seq)
			}
		}
		fmt.Fprintf(&sb, "N")
		for _, r := range w.net[tp] {
			fmt.Fprintf(&sb, "%d/%d/%d,", r.send.ID, r.send.Epoch, r.send.BaseSequence)
		}
		fmt.Fprintf(&sb, "E%v%v%v%v|", w.errSince[tp], w.lastDeliv[tp], w.seqKey[tp], w.lastEpoch)
	}
	for _, id := range w.ids {
		b := w.wb[id]
		fmt.Fprintf(&sb, "%d%v%v%d%v%v", b.delivered, b.failed != nil, b.numbered, b.num.epoch, b.mayRenum, b.compacted)
	}
	for _, l := range w.late {
		fmt.Fprintf(&sb, "Z%d/%d/%d/%d", l.tp.Partition, l.send.ID, l.send.Epoch, l.send.BaseSequence)
	}
	fmt.Fprintf(&sb, "%v%d", w.m.pidEpoch, w.nextPID)
	return sb.String()
}

// truncatedIn reports an unclean election's truncation of tp's log.
func (w *world) truncatedIn(tp TopicPartition) bool {
	for _, b := range w.wb {
		if b.tp == tp && b.truncated {
			return true
		}
	}
	return false
}

// lostEnd is the offset past the last delivered record of tp no longer at
// its offset (0 if none).
func (w *world) lostEnd(tp TopicPartition) int64 {
	var end int64
	for _, id := range w.ids {
		b := w.wb[id]
		if b.tp == tp && !b.replaced && b.delivered > 0 && b.offset >= 0 && !w.m.at(tp, id, b.offset) {
			end = max(end, b.offset+int64(b.records))
		}
	}
	return end
}

// checkLossExact compares the DataLoss reports with the log: every record
// the caller was told is at an offset (Delivered) and that is no longer
// there must be in exactly one report, and the reports count nothing else
// — except a batch the cleaner removed (compaction) whose later batches of
// the same producer a truncation then took: the log cannot tell it from a
// lost one, so a report may count it (README, known limits).
func (w *world) checkLossExact() {
	for _, tp := range w.tps {
		var lost, maybe int64
		for _, id := range w.ids {
			b := w.wb[id]
			if b.tp != tp || b.replaced || b.delivered == 0 || b.offset < 0 || w.m.at(tp, id, b.offset) {
				continue
			}
			if b.compacted || b.deleted {
				maybe += int64(b.records)
				continue
			}
			lost += int64(b.records)
			covered := false
			for _, l := range w.losses[tp] {
				covered = covered || (l.FromOffset <= b.offset && b.offset+int64(b.records)-1 <= l.ToOffset)
			}
			if !covered {
				w.fail("delivered batch %d at %d..%d lost and not reported (reports %+v): %s", id, b.offset, b.offset+int64(b.records)-1, w.losses[tp], w.dump())
			}
		}
		var told int64
		for _, l := range w.losses[tp] {
			told += l.Records
		}
		if told < lost || told > lost+maybe {
			w.fail("%v: reports count %d lost records, the log lost %d (and %d cleaned) (reports %+v): %s", tp, told, lost, maybe, w.losses[tp], w.dump())
		}
	}
}
