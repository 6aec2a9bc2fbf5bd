package client

import "time"

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
// The loop owns it: senders say what each request's end showed of its
// broker (answersIn.heard), and the loop answers the metadata loop's
// question after each refresh (metadataIn.suspect). While any broker is
// suspect, metadata is refreshed every suspectRefresh, and a partition
// whose leader moves away from a suspect broker has that broker's
// connection dropped, so the batches still in flight there are answered
// (outcome unknown) at once and go to the new leader, instead of each
// waiting out another request timeout.
type suspectSet struct {
	m map[int32]time.Time // when its request timed out
}

// liveness is what the end of a produce request says of its broker.
type liveness int8

const (
	livenessUnknown liveness = iota // nothing (not written, or failed otherwise)
	brokerAnswered                  // it answered: not suspect
	brokerTimedOut                  // no answer within the request timeout: suspect
)

// heard notes what a request's end said of broker id.
func (s *suspectSet) heard(id int32, l liveness) {
	switch l {
	case brokerTimedOut:
		s.set(id, true)
	case brokerAnswered:
		s.set(id, false)
	}
}

// set marks broker id suspect (on), or answering again.
func (s *suspectSet) set(id int32, on bool) {
	if on {
		if s.m == nil {
			s.m = map[int32]time.Time{}
		}
		s.m[id] = time.Now()
	} else if len(s.m) > 0 {
		delete(s.m, id)
	}
}

// has reports whether broker id is suspect.
func (s *suspectSet) has(id int32) bool {
	at, ok := s.m[id]
	return ok && time.Since(at) < suspectWindow
}

// any reports whether some broker is suspect, forgetting those whose
// window has passed.
func (s *suspectSet) any() bool {
	for id, at := range s.m {
		if time.Since(at) >= suspectWindow {
			delete(s.m, id)
		}
	}
	return len(s.m) > 0
}
