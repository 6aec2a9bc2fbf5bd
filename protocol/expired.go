package protocol

import (
	"context"
	"time"
)

// expired reports whether ctx is done or its deadline has passed. A
// context's deadline is signalled by a timer of its own: read right after
// another timer due at the same moment fired (an attempt's, within the
// whole call's), ctx.Err() may not say so yet. The clock does, whichever
// timer ran first, so a loop that gives up once its deadline has passed
// gives up at the same moment on every run of a simulation.
func expired(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	dl, ok := ctx.Deadline()
	return ok && !time.Now().Before(dl)
}
