package client

import (
	"fmt"

	"github.com/rollsafe/rollsafe/protocol"
)

// The sender's fence: a request the loop built before it heard of one of
// the sender's failures is never written on a later connection.

// queued is a request the loop handed over, with how many of the
// sender's failures the loop had heard of then. A request that failed on
// the way fails every request queued behind it, as one connection's
// pipeline would: a request the loop built before it heard of a failure
// is answered never written instead of going out on a new connection. It
// may hold a later batch of a partition whose earlier batch failed, and a
// broker that lost its state of the producer (a power cut, an expiry)
// would take it and leave the earlier one to land after it, out of order.
type queued struct {
	round []outgoing
	seen  uint64
}

// stale reports whether q was built before the loop heard of the
// sender's latest failure.
func (s *sender) stale(q queued) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return q.seen < s.fence
}

// failed counts one more failure; its last answer to the loop carries
// failure (answersIn), so that the loop counts the failures the machine
// has had.
func (s *sender) failed() {
	s.mu.Lock()
	s.fence++
	s.mu.Unlock()
}

// behind answers q, built before the loop heard of a failure of this
// sender, never written.
func (s *sender) behind(q queued) {
	s.answerAll(q.round, neverWritten, fmt.Errorf("produce to broker %d: %w", s.broker, errBehindFailure), false)
}

// connect returns the route's connection (dial). When it is not the one
// the sender wrote on before, it first waits until that one has failed
// every request it carried: each failure moves the fence (respond), and a
// request the loop built before it heard of them must not be written on
// the new connection (queued). The pool replaces only a connection that
// is failing, whose requests are failed as soon as its reader sees it
// closed.
func (s *sender) connect() (*protocol.Conn, error) {
	conn, err := s.dial()
	if err != nil {
		return nil, err
	}
	if old := s.last; old != nil && old != conn {
		select {
		case <-old.Done():
		case <-s.p.ctx.Done():
			return nil, fmt.Errorf("produce to broker %d: %w", s.broker, s.p.ctx.Err())
		}
	}
	s.last = conn
	return conn, nil
}
