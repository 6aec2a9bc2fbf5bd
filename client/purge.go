package client

import (
	"context"
	"fmt"
)

// purgeIn: Purge was called; the loop steps idempotence.Purge and closes
// done once the purged batches' callbacks are queued.
type purgeIn struct {
	what PurgeFlags
	done chan struct{}
}

// PurgeFlags says what Purge fails.
type PurgeFlags uint8

const (
	// PurgeQueued: records not sent yet — waiting for a topic's metadata,
	// in open batches, or in batches not yet written.
	PurgeQueued PurgeFlags = 1 << iota
	// PurgeInFlight: records sent and not yet acknowledged.
	PurgeInFlight
)

// Purge fails records the producer holds, without waiting for the cluster.
// With PurgeQueued, every record not sent yet is called back with
// ErrPurged and ErrNotWritten: it is not in the log, and producing it again
// cannot duplicate it. With PurgeInFlight, every record sent and not yet
// acknowledged is called back with ErrPurged and ErrOutcomeUnknown when it
// may be in the log (its request in flight, or an attempt's outcome
// unknown: rollsafe never sends it again, and a later acknowledgement is
// not reported) or with ErrPurged and ErrNotWritten when every attempt was
// refused. A batch being split after MESSAGE_TOO_LARGE is left.
//
// Purge returns once every purged record's callback is queued (callbacks
// run in order on the producer's callback goroutine), or with ctx's error
// when ctx ends first. Records produced while it runs may or may not be
// purged; records produced after it returns are not. The producer goes on:
// partitions resume where they were, and a sequence a purged batch left
// open is closed by a new epoch, as after a delivery timeout. After Close
// it returns ErrClosed.
func (p *Producer) Purge(ctx context.Context, what PurgeFlags) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if p.closing.Load() {
		return ErrClosed
	}
	if what&PurgeQueued == 0 {
		return p.purgeMachine(ctx, what)
	}
	if err := p.purgeHeld(ctx); err != nil {
		return err
	}
	p.acc.Flush()
	if err := p.acc.Drain(ctx); err != nil {
		return publicError(fmt.Errorf("client: purge: %w", err))
	}
	return p.purgeMachine(ctx, what)
}

// purgeMachine has the loop step idempotence.Purge and waits until it has
// acted on the outcome.
func (p *Producer) purgeMachine(ctx context.Context, what PurgeFlags) error {
	done := make(chan struct{})
	p.loop.in.post(purgeIn{what: what, done: done})
	select {
	case <-done:
		return nil
	case <-p.loop.exited:
		return ErrClosed
	case <-ctx.Done():
		return publicError(fmt.Errorf("client: purge: %w", ctx.Err()))
	}
}

// errPurgedHeld is the error of a record purged while it waited for its
// topic's metadata.
var errPurgedHeld = fmt.Errorf("%w: %w", ErrPurged, ErrNotWritten)

// purgeHeld has the loop fail every record waiting for its topic's
// metadata, and waits until their callbacks are queued.
func (p *Producer) purgeHeld(ctx context.Context) error {
	if p.held.n.Load() == 0 {
		return nil // no topic held: no held record, not even on its way to the loop
	}
	done := make(chan struct{})
	p.loop.in.post(purgeHeldIn{done: done})
	select {
	case <-done:
		return nil
	case <-p.loop.exited:
		return ErrClosed
	case <-ctx.Done():
		return publicError(fmt.Errorf("client: purge: %w", ctx.Err()))
	}
}
