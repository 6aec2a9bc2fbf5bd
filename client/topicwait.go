package client

import (
	"context"
	"sync"
	"sync/atomic"
)

// heldRecords holds the records of topics whose metadata is not known yet,
// so that Produce never waits for the cluster. One goroutine per such topic
// waits for its metadata, then appends its records in the order Produce
// accepted them; records produced to the topic meanwhile queue behind
// them, so no record overtakes an earlier one. Held records count against
// MaxBuffered.
type heldRecords struct {
	topicsN atomic.Int32 // len(topics): 0 lets Produce skip mu
	mu      sync.Mutex
	topics  map[string][]*Record
	records int
	bytes   int64
	room    chan struct{} // closed when records leave; replaced then
	closed  bool          // Close began: no new waiting goroutine
}

// recordBytes is what a held record counts against MaxBuffered's bytes.
func recordBytes(r *Record) int64 {
	n := len(r.Key) + len(r.Value)
	for _, h := range r.Headers {
		n += len(h.Key) + len(h.Value)
	}
	return int64(n)
}

// holdForMetadata takes r if its topic's metadata is unknown or records of
// the topic are already held, and reports whether it did. A topic found
// missing moments ago fails r at once. Without room, Produce waits for it
// (within ctx) and TryProduce fails with ErrBufferFull.
func (p *Producer) holdForMetadata(ctx context.Context, r *Record, try bool) bool {
	h := &p.held
	if h.topicsN.Load() == 0 {
		// The common case, without a lock: nothing held, metadata known.
		if _, err := p.meta.Partitions(r.Topic); err == nil {
			return false
		}
	}
	size := recordBytes(r)
	for {
		h.mu.Lock()
		q, waiting := h.topics[r.Topic]
		if !waiting {
			if _, err := p.meta.Partitions(r.Topic); err == nil {
				h.mu.Unlock()
				return false
			}
			if err := p.recentlyUnknown(r.Topic); err != nil {
				h.mu.Unlock()
				p.finish(r, err)
				return true
			}
			if h.closed {
				h.mu.Unlock()
				p.finish(r, notWritten(ErrClosed))
				return true
			}
		}
		if h.records+1 > p.cfg.maxBufferedRecs || h.bytes+size > p.cfg.maxBufferedBytes {
			if try {
				h.mu.Unlock()
				p.finish(r, notWritten(ErrBufferFull))
				return true
			}
			if h.room == nil {
				h.room = make(chan struct{})
			}
			room := h.room
			h.mu.Unlock()
			select {
			case <-room:
				continue
			case <-ctx.Done():
				p.finish(r, contextError(ctx.Err()))
				return true
			}
		}
		if h.topics == nil {
			h.topics = map[string][]*Record{}
		}
		h.topics[r.Topic] = append(q, r)
		h.records++
		h.bytes += size
		if !waiting {
			h.topicsN.Add(1)
			p.wg.Add(1)
			go func() { defer p.wg.Done(); p.releaseHeld(r.Topic) }()
		}
		h.mu.Unlock()
		return true
	}
}

// releaseHeld waits for topic's metadata, then appends its held records
// in order, or fails them all with the reason the metadata is missing.
func (p *Producer) releaseHeld(topic string) {
	h := &p.held
	_, err := p.waitTopic(topic)
	for {
		h.mu.Lock()
		q := h.topics[topic]
		if len(q) == 0 {
			delete(h.topics, topic)
			h.topicsN.Add(-1)
			h.mu.Unlock()
			return
		}
		take := q
		if err == nil {
			take = q[:1] // one at a time: Append may wait for buffer room
		}
		h.topics[topic] = q[len(take):]
		h.records -= len(take)
		for _, r := range take {
			h.bytes -= recordBytes(r)
		}
		if h.room != nil {
			close(h.room)
			h.room = nil
		}
		h.mu.Unlock()
		for _, r := range take {
			if err != nil {
				p.finish(r, err)
				continue
			}
			// Accepted already: the delivery timeout, not the
			// caller's context, bounds the wait for buffer room.
			ctx, cancel := context.WithTimeout(p.ctx, p.cfg.deliveryTimeout)
			p.appendRecord(ctx, r, false)
			cancel()
		}
	}
}

// closeHeld stops new waiting goroutines; Close calls it before it waits
// for the producer's goroutines.
func (p *Producer) closeHeld() {
	p.held.mu.Lock()
	p.held.closed = true
	p.held.mu.Unlock()
}

// heldCount returns the records and bytes held for metadata.
func (p *Producer) heldCount() (int, int64) {
	p.held.mu.Lock()
	defer p.held.mu.Unlock()
	return p.held.records, p.held.bytes
}
