package client

import (
	"sync"
	"time"
)

// suspectRefresh is how often metadata is refreshed while a broker is
// suspect: how soon a leader moved away from a frozen broker is seen.
const suspectRefresh = 500 * time.Millisecond

// suspectWindow is how long a broker stays suspect without a new timeout:
// a controller moves a frozen broker's partitions within seconds (its
// session timeout), so watching longer would only cost refreshes, for a
// broker that is gone for good or whose partitions moved before.
const suspectWindow = time.Minute

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
	m  map[int32]time.Time // when its request timed out
}

// set marks broker id suspect (on), or answering again.
func (s *suspectSet) set(id int32, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if on {
		if s.m == nil {
			s.m = map[int32]time.Time{}
		}
		s.m[id] = time.Now()
	} else {
		delete(s.m, id)
	}
}

// has reports whether broker id is suspect.
func (s *suspectSet) has(id int32) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	at, ok := s.m[id]
	return ok && time.Since(at) < suspectWindow
}

// any reports whether some broker is suspect, forgetting those whose
// window has passed.
func (s *suspectSet) any() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, at := range s.m {
		if time.Since(at) >= suspectWindow {
			delete(s.m, id)
		}
	}
	return len(s.m) > 0
}
