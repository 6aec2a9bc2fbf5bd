package client

import (
	"sync"
	"time"
)

// suspectRefresh is how often metadata is refreshed while a broker is
// suspect: how soon a leader moved away from a frozen broker is seen.
const suspectRefresh = 500 * time.Millisecond

// suspectSet holds the brokers whose produce request went unanswered past
// its timeout with no answer from them since: a broker frozen (a zombie),
// or cut off, whose partitions the controller may be moving elsewhere.
// While any is suspect, metadata is refreshed every suspectRefresh, and a
// partition whose leader moves away from a suspect broker has that
// broker's connection dropped, so the batches still in flight there are
// answered (outcome unknown) at once and go to the new leader, instead of
// each waiting out another request timeout.
type suspectSet struct {
	mu sync.Mutex
	m  map[int32]bool
}

// set marks broker id suspect (on) or answering again.
func (s *suspectSet) set(id int32, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if on {
		if s.m == nil {
			s.m = map[int32]bool{}
		}
		s.m[id] = true
	} else {
		delete(s.m, id)
	}
}

// has reports whether broker id is suspect.
func (s *suspectSet) has(id int32) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[id]
}

// any reports whether some broker is suspect.
func (s *suspectSet) any() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m) > 0
}
