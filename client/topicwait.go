package client

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/rollsafe/rollsafe/batching"
)

// heldTopics is Produce's side of the records held for their topic's
// metadata, so that Produce never waits for the cluster: it names the
// topics whose records go to the loop (loop_held.go), which keeps them,
// in the order Produce accepted them, until the topic's metadata is known
// and then appends them in one go. A topic stays here until the loop has
// had every record posted for it: until then its later records follow the
// earlier ones to the loop, so that none overtakes an earlier one. Held
// records count against MaxBuffered through accumulator reservations.
type heldTopics struct {
	n      atomic.Int32 // len(topics): 0 lets Produce skip mu
	mu     sync.Mutex
	topics map[string]*heldTopic
	closed bool // Close began: nothing more is held
}

// heldTopic is one held topic: the records posted to the loop for it and,
// once the wait for its metadata has ended, a channel closed when the loop
// has placed them all (nothing more is posted then).
type heldTopic struct {
	posted  int
	drained chan struct{}
}

// holdIn: Produce held r for its topic's metadata, with the buffer room rv.
type holdIn struct {
	r  *Record
	rv batching.Reservation
}

// topicIn: the wait for a topic's metadata ended; err says why it failed.
type topicIn struct {
	topic string
	err   error
}

// produceSlow is Produce when some topic is held or r's topic is not known:
// r goes to its partition if its topic is known and not held, else to the
// loop to wait for the topic's metadata, behind the topic's held records.
// Once the wait has ended, r waits for the loop to place the records posted
// before it (one pass of the loop; not the cluster), then goes its way.
func (p *Producer) produceSlow(ctx context.Context, r *Record, try bool) {
	for {
		drained := p.hold(ctx, r, try)
		if drained == nil {
			return
		}
		select {
		case <-drained:
		case <-ctx.Done():
			p.finish(r, contextError(ctx.Err()))
			return
		case <-p.loop.exited:
			p.finish(r, notWritten(ErrClosed))
			return
		}
	}
}

// hold appends r, holds it (posts it to the loop) or fails it, and returns
// nil; or, if the wait for r's topic has ended and the loop has yet to
// place the records posted before, it returns the channel closed then.
func (p *Producer) hold(ctx context.Context, r *Record, try bool) <-chan struct{} {
	h := &p.held
	h.mu.Lock()
	e := h.topics[r.Topic]
	h.mu.Unlock()
	if e == nil {
		if tp := p.parts.lookup(p.meta, p.acc, r.Topic); tp != nil {
			p.appendTo(ctx, r, tp, try, nil)
			return nil
		}
		if err := p.recentlyUnknown(r.Topic); err != nil {
			p.finish(r, err)
			return nil
		}
	}
	rv, err := p.reserve(ctx, r, try)
	if err != nil {
		p.finish(r, notWritten(err))
		return nil
	}
	h.mu.Lock()
	e = h.topics[r.Topic]
	switch {
	case e == nil:
		if err := p.startHolding(r.Topic); err != nil {
			h.mu.Unlock()
			if errors.Is(err, errTopicKnown) {
				p.appendReserved(r, rv)
				return nil
			}
			p.acc.Unreserve(rv)
			p.finish(r, err)
			return nil
		}
		e = h.topics[r.Topic]
	case h.closed:
		h.mu.Unlock()
		p.acc.Unreserve(rv)
		p.finish(r, notWritten(ErrClosed))
		return nil
	case e.drained != nil:
		h.mu.Unlock()
		p.acc.Unreserve(rv)
		return e.drained
	}
	e.posted++
	p.loop.in.post(holdIn{r: r, rv: rv})
	h.mu.Unlock()
	return nil
}

// errTopicKnown: startHolding found the topic's metadata known.
var errTopicKnown = errors.New("topic known")

// startHolding registers topic as held and starts the wait for its
// metadata, unless the metadata is known now (errTopicKnown), the topic
// was found missing moments ago (that error) or Close began. h.mu is held.
func (p *Producer) startHolding(topic string) error {
	h := &p.held
	if _, err := p.meta.Partitions(topic); err == nil {
		return errTopicKnown
	}
	if err := p.recentlyUnknown(topic); err != nil {
		return err
	}
	if h.closed {
		return notWritten(ErrClosed)
	}
	if h.topics == nil {
		h.topics = map[string]*heldTopic{}
	}
	h.topics[topic] = &heldTopic{}
	h.n.Add(1)
	p.wg.Add(1)
	go p.awaitTopic(topic)
	return nil
}

// awaitTopic waits for topic's metadata and tells the loop the outcome.
// It holds no records: the loop does.
func (p *Producer) awaitTopic(topic string) {
	defer p.wg.Done()
	_, err := p.waitTopic(topic)
	p.loop.in.post(topicIn{topic: topic, err: err})
}

// reserve takes buffer room for r before its partition is known, waiting
// for it within ctx unless try.
func (p *Producer) reserve(ctx context.Context, r *Record, try bool) (batching.Reservation, error) {
	var rv batching.Reservation
	var err error
	if try {
		rv, err = p.acc.TryReserve(tokenOf(r))
	} else {
		rv, err = p.acc.Reserve(ctx, tokenOf(r))
	}
	return rv, accError(ctx, err)
}

// accError is the accumulator's err as a record's error.
func accError(ctx context.Context, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, batching.ErrClosed):
		return ErrClosed
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return contextError(err)
	}
	return err
}

// heldDone tells Produce's side that the loop has had received records of
// topic, whose wait has ended. If that is every record posted, the topic
// is no longer held, and heldDone reports so; else Produce posts no more
// records for it (they wait for drained).
func (p *Producer) heldDone(topic string, received int) bool {
	h := &p.held
	h.mu.Lock()
	defer h.mu.Unlock()
	e := h.topics[topic]
	if e == nil {
		return true
	}
	if e.posted != received {
		if e.drained == nil {
			e.drained = make(chan struct{})
		}
		return false
	}
	delete(h.topics, topic)
	h.n.Add(-1)
	if e.drained != nil {
		close(e.drained)
	}
	return true
}

// closeHeld stops holding records; Close calls it before it has the loop
// fail what is still held.
func (p *Producer) closeHeld() {
	p.held.mu.Lock()
	p.held.closed = true
	p.held.mu.Unlock()
}
