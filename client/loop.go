package client

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rollsafe/rollsafe/batching"
	"github.com/rollsafe/rollsafe/idempotence"
	"github.com/rollsafe/rollsafe/protocol"
)

// loop is the one goroutine that owns the idempotence machine and every
// batch the producer holds (the shape of etcd raft's node.run). Everything
// that happens — a batch closed, a response, a log read, new metadata, a
// producer id, a timer, Close — arrives as an input on its inbox, carrying
// its data; the loop steps the machine with it and carries out what the
// machine made ready: writes go to the senders (one per broker
// connection), outcomes to the callback queue. No lock guards the machine,
// the metadata the loop routes by (view) or the suspect brokers: only this
// goroutine touches them.
type loop struct {
	p    *Producer
	idem *idempotence.Producer

	in inbox

	batches map[idempotence.BatchID]*batchState
	// pinned holds finished batches (reported at their deadline or at
	// Close) still in an outbox or at a sender: their bytes are released
	// once the attempt is answered, never while they may still be written.
	pinned map[idempotence.BatchID]*batchState
	nextID idempotence.BatchID
	// view is the newest metadata the loop has had (metadataIn): it
	// routes by it alone, never by the shared view senders dial through.
	view *protocol.Snapshot
	// suspects are the brokers that stopped answering produce requests.
	suspects suspectSet
	known    map[idempotence.TopicPartition]bool  // partitions the machine has heard of
	told     map[idempotence.TopicPartition]int32 // the leader the machine was last told
	// awaitMeta: partitions whose RefreshMetadata the next metadata
	// answer must settle, not a leader hint (it may check that the topic
	// was not deleted and created again).
	awaitMeta map[idempotence.TopicPartition]bool
	senders   map[route]*sender
	outboxes  map[route]*outbox // batches not yet handed to a sender, per connection
	outboxIDs []route           // the keys of outboxes, ascending
	lanes     map[laneKey]int32 // each partition's lane at each broker (laneOf)
	laneLoad  map[int32][]int   // per broker, the partitions given each lane
	initing   bool              // an InitProducerId is under way
	closed    bool
	failing   map[idempotence.TopicPartition]*failStreak // partitions whose attempts fail, until one is acknowledged
	held      map[string]*heldQueue                      // records waiting for their topic's metadata (loop_held.go)
	// placedHeld: a held record was placed in this pass (flushPlaced).
	placedHeld bool
	// cancelled: records whose Produce context ended, until taken back
	// or called back (loop_cancel.go).
	cancelled map[*Record]*cancelReg

	later  []idempotence.Input // follow-up inputs produced while acting on Ready
	purged []chan struct{}     // Purge calls to answer once the machine's answer is acted on
	turns  []turnIn            // background goroutines to let go after this pass (loop_turns.go)
	timer  *time.Timer
	exited chan struct{}

	trace bool // log every input and output at LevelTrace

	idemCfg idempotence.Config // the machine's configuration (loop_txn.go may start it over)
	txn     txnLoop            // a transactional producer's calls (loop_txn.go)
}

// batchState is one closed batch the loop owns until it is resolved.
type batchState struct {
	b           *batching.Batch
	sent        bool      // dispatched at least once (for the BatchSent hook's retry flag)
	outstanding bool      // dispatched, and that attempt not yet answered
	born        time.Time // when the loop received it (its parts inherit it), for BatchDone
}

// inbox is the loop's unbounded input queue: posting never blocks, so no
// goroutine (a connection's reader, a batching worker) ever waits on the
// loop.
type inbox struct {
	mu     sync.Mutex
	items  []any
	spare  []any
	signal chan struct{}
}

func (q *inbox) post(x any) {
	q.mu.Lock()
	q.items = append(q.items, x)
	q.mu.Unlock()
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

// put queues x without waking the loop: it is taken with the next input
// that does.
func (q *inbox) put(x any) {
	q.mu.Lock()
	q.items = append(q.items, x)
	q.mu.Unlock()
}

func (q *inbox) take() []any {
	q.mu.Lock()
	defer q.mu.Unlock()
	items := q.items
	q.items = q.spare[:0]
	q.spare = nil
	return items
}

func (q *inbox) recycle(items []any) {
	clear(items)
	q.mu.Lock()
	if q.spare == nil {
		q.spare = items[:0]
	}
	q.mu.Unlock()
}

// The loop's inputs besides idempotence.Input values, which are stepped as
// they are.
type (
	// batchIn: the accumulator closed a batch.
	batchIn struct{ b *batching.Batch }
	// answersIn: a produce request was answered (or failed), one response
	// per batch of the request.
	answersIn struct {
		route route // the request's connection
		round []outgoing
		resps []idempotence.Response
		hints []leaderHint // KIP-951: leaders the broker named
		errs  []error      // nil, or what failed each attempt (nil where it did not)
		// failure: the last answer of one of the sender's failures
		// (sender.fence).
		failure bool
		// heard: what the request's end says of its broker (suspects.go).
		heard liveness
	}
	// metadataIn: the metadata view as of a refresh (Metadata.Watch tells
	// each one, from whichever goroutine refreshed); the loop keeps the
	// newest it has had. From the metadata loop (suspect not nil), every
	// partition also looks up its leader in it, and the loop answers on
	// suspect whether a broker is suspect.
	metadataIn struct {
		view    *protocol.Snapshot
		suspect chan<- bool
	}
	// closeIn: Close was called and the accumulator is closed.
	closeIn struct{}
)

func newLoop(p *Producer, cfg idempotence.Config) *loop {
	return &loop{
		p:         p,
		idem:      idempotence.New(cfg),
		idemCfg:   cfg,
		in:        inbox{signal: make(chan struct{}, 1)},
		batches:   make(map[idempotence.BatchID]*batchState),
		pinned:    make(map[idempotence.BatchID]*batchState),
		known:     make(map[idempotence.TopicPartition]bool),
		told:      make(map[idempotence.TopicPartition]int32),
		awaitMeta: make(map[idempotence.TopicPartition]bool),
		senders:   make(map[route]*sender),
		outboxes:  make(map[route]*outbox),
		lanes:     make(map[laneKey]int32),
		laneLoad:  make(map[int32][]int),
		failing:   make(map[idempotence.TopicPartition]*failStreak),
		held:      make(map[string]*heldQueue),
		exited:    make(chan struct{}),
		trace:     p.log.Enabled(context.Background(), LevelTrace),
	}
}

// run is the loop. It returns after Close has been applied.
func (l *loop) run() {
	defer close(l.exited)
	l.timer = time.NewTimer(time.Hour)
	l.timer.Stop()
	defer l.timer.Stop()
	for {
		tick := false
		select {
		case <-l.in.signal:
		case <-l.timer.C:
			tick = true
		}
		l.settle()
		// The pass takes every input posted by now and, whichever of the
		// two woke it, a deadline due by now: inputs and the timer ready
		// at one instant make one pass, not two in an order the select
		// picked.
		select {
		case <-l.in.signal:
		default:
		}
		if !tick {
			select {
			case <-l.timer.C:
				tick = true
			default:
			}
		}
		items := l.in.take()
		if l.p.cfg.settle != nil {
			canonical(items)
		}
		l.newestView(items)
		l.noteCancels(items)
		if tick {
			l.apply(idempotence.Tick{})
		}
		for _, x := range items {
			l.apply(x)
		}
		l.in.recycle(items)
		if len(l.cancelled) > 0 {
			l.pruneCancelled()
		}
		l.flushPlaced()
		l.act()
		l.txnReplies()
		for _, done := range l.purged {
			close(done)
		}
		l.purged = l.purged[:0]
		l.pumpAll()
		if l.closed {
			l.shutdown()
			return
		}
		l.letGo()
		l.arm()
	}
}

// apply feeds one input to the machine.
func (l *loop) apply(x any) {
	switch v := x.(type) {
	case batchIn:
		l.newBatch(v.b)
	case answersIn:
		l.answers(v)
	case metadataIn:
		if v.suspect != nil {
			l.leaders(nil)
			clear(l.awaitMeta)
			v.suspect <- l.suspects.any()
		}
	case identityIn:
		l.identity(v)
	case purgeIn:
		l.step(idempotence.Purge{Queued: v.what&PurgeQueued != 0, InFlight: v.what&PurgeInFlight != 0})
		l.purged = append(l.purged, v.done)
	case holdIn:
		l.hold(v)
	case topicIn:
		l.topicEnded(v)
	case purgeHeldIn:
		l.failHeld(errPurgedHeld)
		close(v.done)
	case turnIn:
		l.turns = append(l.turns, v)
	case txnCallIn:
		l.txnCall(v)
	case heldQueryIn:
		l.txn.heldWait = append(l.txn.heldWait, v.reply)
	case ackedQueryIn:
		l.txn.ackedWait = append(l.txn.ackedWait, v.reply)
	case closeIn:
		l.closed = true
		l.failHeld(notWritten(ErrClosed))
		l.step(idempotence.Close{})
	case idempotence.Input:
		l.step(v)
	}
}

func (l *loop) step(in idempotence.Input) {
	now := time.Now()
	if l.trace {
		l.p.log.Log(context.Background(), LevelTrace, "in", "at", now.UnixNano(), "input", fmt.Sprintf("%T%+v", in, in))
	}
	l.idem.Step(in, now)
}

// newBatch hands a closed batch to the machine, telling it the partition's
// leader the first time the partition is seen.
func (l *loop) newBatch(b *batching.Batch) {
	if b = l.withdrawArriving(b); b == nil {
		return
	}
	tp := idempotence.TopicPartition{Topic: b.TP.Topic, Partition: b.TP.Partition}
	if !l.known[tp] {
		l.known[tp] = true
		l.p.topicSeen(tp.Topic)
		l.leaders([]idempotence.TopicPartition{tp})
	}
	l.nextID++
	l.batches[l.nextID] = &batchState{b: b, born: time.Now()}
	l.step(idempotence.NewBatch{TP: tp, ID: l.nextID, Records: int32(b.Records), Deadline: time.Now().Add(l.p.cfg.deliveryTimeout),
		Stamp: time.UnixMilli(b.MaxTimestamp())})
}

// newestView takes the newest metadata among the inputs of a pass before
// any of them is stepped: every input of the pass is acted on with what
// was known of the cluster when the pass began.
func (l *loop) newestView(items []any) {
	for _, x := range items {
		if m, ok := x.(metadataIn); ok && m.view.Seq() > l.view.Seq() {
			l.view = m.view
		}
	}
}

// leaders tells the machine the leaders the loop's view knows for tps (nil: every
// known partition). A partition whose leader is not known yet is told -1:
// it holds and asks for metadata.
func (l *loop) leaders(tps []idempotence.TopicPartition) {
	if tps == nil {
		for tp := range l.known {
			tps = append(tps, tp)
		}
		slices.SortFunc(tps, compareTP)
	}
	var drop []int32
	for _, tp := range tps {
		// The topic's incarnation comes with the leader: a topic deleted
		// and created again is a new one, whose leader epochs start over
		// (the machine ends what the old one held).
		leader, epoch, inc, err := l.view.LeaderIn(tp.Topic, tp.Partition)
		if err != nil {
			leader, epoch = -1, -1
		}
		if leader >= 0 {
			l.unqueue(tp, leader)
			if was, ok := l.told[tp]; ok && was != leader && l.suspects.has(was) && !slices.Contains(drop, was) {
				drop = append(drop, was)
			}
			l.told[tp] = leader
		}
		l.step(idempotence.LeaderChanged{TP: tp, Broker: leader, LeaderEpoch: epoch, Incarnation: inc})
	}
	for _, b := range drop {
		// The partition left a broker that stopped answering: what is in
		// flight there is answered now (outcome unknown, resent to the new
		// leader) rather than at its request timeout (suspects.go); so are
		// the reads of a partition's state that wait on it.
		for _, pool := range l.p.pools {
			pool.Drop(b)
		}
		l.p.readPool.Drop(b)
		// It stays suspect (its other partitions may move later) until it
		// answers or suspectWindow passes.
	}
}

func compareTP(a, b idempotence.TopicPartition) int {
	if a.Topic != b.Topic {
		if a.Topic < b.Topic {
			return -1
		}
		return 1
	}
	return int(a.Partition) - int(b.Partition)
}

// answers feeds a request's responses to the machine, then moves partitions
// to the leaders the broker named (KIP-951) without waiting for metadata.
func (l *loop) answers(a answersIn) {
	l.suspects.heard(a.route.broker, a.heard)
	l.requestAnswered(a.route)
	if a.failure {
		// Counted once every answer is stepped: a request built before
		// may hold a later batch of a partition whose failed batch the
		// machine had not had yet (see sender's queued).
		defer l.failureHeard(a.route)
	}
	for i, o := range a.round {
		l.answered(o.id)
		if a.errs != nil && a.errs[i] != nil {
			l.attemptFailed(o, a.route.broker, a.errs[i])
		}
		l.step(idempotence.Answer{TP: o.tp, ID: o.id, Response: a.resps[i]})
	}
	if len(a.hints) > 0 {
		l.applyHints(a.hints)
	}
	for _, h := range a.hints {
		if _, known := l.view.Broker(h.leader); !known || l.awaitMeta[h.tp] {
			continue
		}
		// The view the hints were applied to keeps the newest leader of
		// the topic's current incarnation: a hint about a deleted topic
		// must not reach the machine as news of the new one.
		leader, epoch, inc, err := l.view.LeaderIn(h.tp.Topic, h.tp.Partition)
		if err != nil || leader != h.leader || epoch != h.epoch {
			continue
		}
		l.unqueue(h.tp, h.leader)
		l.step(idempotence.LeaderChanged{TP: h.tp, Broker: h.leader, LeaderEpoch: h.epoch, Incarnation: inc})
	}
}

// applyHints applies the leaders a broker named to the metadata view
// (which keeps each partition's newest leader epoch, and gives the
// connection pools a leader's new address) and takes the view's new state.
func (l *loop) applyHints(hints []leaderHint) {
	hs := make([]protocol.LeaderHint, len(hints))
	for i, h := range hints {
		hs[i] = protocol.LeaderHint{Topic: h.tp.Topic, Partition: h.tp.Partition, Leader: h.leader, LeaderEpoch: h.epoch, Addr: h.addr}
	}
	if v := l.p.meta.ApplyLeaderHints(hs...); v.Seq() > l.view.Seq() {
		l.view = v
	}
}

// answered notes that batch id's attempt was answered; a finished batch
// pinned until then is released.
func (l *loop) answered(id idempotence.BatchID) {
	if bs := l.batches[id]; bs != nil {
		bs.outstanding = false
		return
	}
	if bs := l.pinned[id]; bs != nil {
		delete(l.pinned, id)
		l.p.acc.Release(bs.b)
	}
}

// act carries out everything the machine made ready, stepping the follow-up
// inputs (splits) until nothing is left.
func (l *loop) act() {
	for {
		rd := l.idem.Ready()
		if rd.Empty() {
			return
		}
		if l.trace {
			l.p.log.Log(context.Background(), LevelTrace, "out", "sends", fmt.Sprintf("%+v", rd.Sends), "events", traceEvents(rd.Events))
		}
		for _, ev := range rd.Events {
			l.event(ev)
		}
		l.dispatch(rd.Sends)
		l.idem.Advance()
		for len(l.later) > 0 {
			in := l.later[0]
			l.later = l.later[1:]
			l.step(in)
		}
	}
}

// arm sets the timer to the machine's next deadline or backoff.
func (l *loop) arm() {
	l.timer.Stop()
	if t, ok := l.idem.NextWake(); ok {
		l.timer.Reset(max(time.Until(t), 0))
	}
}

// shutdown stops every sender once Close has been applied (the machine
// has finished every batch by then).
func (l *loop) shutdown() {
	for _, s := range l.senders {
		s.stop()
	}
}

// batchReady receives each closed, compressed batch from the accumulator
// (in order per partition, on a batching worker) and posts it to the loop.
func (p *Producer) batchReady(b *batching.Batch) { p.loop.in.post(batchIn{b}) }

// traceEvents prints events with their types, for the transcript.
func traceEvents(evs []idempotence.Event) string {
	var b strings.Builder
	for i, ev := range evs {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%T%+v", ev, ev)
	}
	return b.String()
}

// canonical orders the inputs taken at one instant by kind and partition
// (stably: one source's inputs keep their order), so that the order in
// which goroutines happened to post them does not matter (SyncTest).
func canonical(items []any) {
	if len(items) < 2 {
		return
	}
	slices.SortStableFunc(items, func(a, b any) int {
		ka, kb := inputKey(a), inputKey(b)
		if ka.rank != kb.rank {
			return ka.rank - kb.rank
		}
		if c := compareTP(ka.tp, kb.tp); c != 0 {
			return c
		}
		if ka.key != kb.key {
			if ka.key < kb.key {
				return -1
			}
			return 1
		}
		return int(ka.id - kb.id)
	})
}

type inKey struct {
	rank int
	tp   idempotence.TopicPartition
	key  string
	id   idempotence.BatchID
}

func inputKey(x any) inKey {
	switch v := x.(type) {
	case batchIn:
		return inKey{rank: 0, tp: idempotence.TopicPartition{Topic: v.b.TP.Topic, Partition: v.b.TP.Partition}}
	case answersIn:
		if len(v.round) > 0 {
			return inKey{rank: 1, tp: v.round[0].tp, id: v.round[0].id}
		}
		return inKey{rank: 1}
	case idempotence.TailRead:
		return inKey{rank: 2, tp: v.TP}
	case metadataIn:
		return inKey{rank: 3}
	case identityIn:
		return inKey{rank: 4}
	case turnIn:
		return inKey{rank: 6 + int(v.kind), key: v.key}
	case purgeIn, purgeHeldIn:
		return inKey{rank: 20}
	case closeIn:
		return inKey{rank: 21}
	}
	return inKey{rank: 5}
}
