package protocol

import (
	"context"
	"testing"
	"time"
)

// deadlineOnly is a context whose deadline has not been signalled: its
// Err is nil whatever the clock says, as a context's is between its
// deadline and the run of its timer.
type deadlineOnly struct {
	context.Context
	at time.Time
}

func (c deadlineOnly) Deadline() (time.Time, bool) { return c.at, true }

func TestExpiredReadsTheClock(t *testing.T) {
	bg := context.Background()
	if expired(bg) {
		t.Error("a context without a deadline expired")
	}
	if !expired(deadlineOnly{bg, time.Now().Add(-time.Millisecond)}) {
		t.Error("a deadline passed but not yet signalled: not expired")
	}
	if expired(deadlineOnly{bg, time.Now().Add(time.Hour)}) {
		t.Error("a deadline an hour away: expired")
	}
	ctx, cancel := context.WithCancel(bg)
	cancel()
	if !expired(ctx) {
		t.Error("a cancelled context: not expired")
	}
}
