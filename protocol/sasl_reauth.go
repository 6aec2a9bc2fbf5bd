package protocol

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"
)

// Re-authentication starts at a random point between these fractions of
// the session lifetime (KIP-368 leaves the choice to the client; Java uses
// 85-95%), counted from when the last SaslAuthenticate was sent.
const (
	reauthMinFraction = 0.80
	reauthMaxFraction = 0.90
)

// reauthState is a Conn's KIP-368 state. gate and timer are guarded by
// Conn.mu.
type reauthState struct {
	// gate is non-nil while a re-authentication runs; it is closed when
	// it ends. Requests other than its own wait for it.
	gate chan struct{}
	// timer starts the next re-authentication; nil when none is due.
	timer *time.Timer
	// bg counts the scheduled or running re-authentication (Close waits).
	bg sync.WaitGroup

	mu       sync.Mutex // guards the fields below
	lifetime time.Duration
	end      time.Time // when the session ends, as the client can tell (sent + lifetime)
	count    int
}

// SessionLifetime returns the SASL session lifetime the broker gave at the
// last (re-)authentication, or 0 when it gave none.
func (c *Conn) SessionLifetime() time.Duration {
	c.reauth.mu.Lock()
	defer c.reauth.mu.Unlock()
	return c.reauth.lifetime
}

// Reauthentications returns how many times the connection re-authenticated
// successfully.
func (c *Conn) Reauthentications() int {
	c.reauth.mu.Lock()
	defer c.reauth.mu.Unlock()
	return c.reauth.count
}

// saslDone records a successful exchange and schedules the next
// re-authentication when the session has a lifetime.
func (c *Conn) saslDone(m SASLMechanism, reauth bool, sentAt time.Time, lifetime time.Duration) {
	c.reauth.mu.Lock()
	c.reauth.lifetime = lifetime
	c.reauth.end = sentAt.Add(lifetime)
	if reauth {
		c.reauth.count++
	}
	c.reauth.mu.Unlock()
	msg := "SASL authenticated"
	if reauth {
		msg = "SASL re-authenticated"
	}
	c.log.Debug(msg, "mechanism", m.Name(), "session_lifetime", lifetime)
	if lifetime <= 0 {
		return
	}
	frac := reauthMinFraction + rand.Float64()*(reauthMaxFraction-reauthMinFraction)
	c.scheduleReauth(m, sentAt.Add(time.Duration(float64(lifetime)*frac)))
}

// scheduleReauth starts a re-authentication at at.
func (c *Conn) scheduleReauth(m SASLMechanism, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.reauth.bg.Add(1)
	c.reauth.timer = time.AfterFunc(time.Until(at), func() {
		defer c.reauth.bg.Done()
		c.reauthenticate(m)
	})
}

// renewSlack is how much longer than the session being renewed a token
// must live to be worth a re-authentication: a tenth of the session's
// lifetime, at least reauthMinSlack. A session ended by its token's expiry
// ends (as the client counts it from when it sent the exchange) a
// network delay before the token expires; re-authenticating with that
// same token would open sessions ever shorter, one after the other.
func renewSlack(lifetime time.Duration) time.Duration {
	return max(lifetime/10, reauthMinSlack)
}

const (
	reauthMinSlack = 10 * time.Millisecond
	// reauthRetryMin: with less of the session left than this and no
	// credential to renew it, the connection is closed (once idle) instead
	// of waiting on.
	reauthRetryMin = 200 * time.Millisecond
)

// stopReauthLocked cancels a scheduled re-authentication; c.mu is held and
// the connection is closed.
func (c *Conn) stopReauthLocked() {
	if t := c.reauth.timer; t != nil {
		c.reauth.timer = nil
		if t.Stop() {
			c.reauth.bg.Done()
		}
	}
}

// reauthenticate holds new requests back, waits until none is in flight,
// repeats the SASL exchange and lets requests go again. Failing, it closes
// the connection.
func (c *Conn) reauthenticate(m SASLMechanism) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.reauth.timer = nil
	c.mu.Unlock()
	c.reauth.mu.Lock()
	end, lifetime := c.reauth.end, c.reauth.lifetime
	c.reauth.mu.Unlock()

	// The credential for the new session is obtained first, while
	// requests still flow: a token provider may take its time. It must
	// outlive the current session, or the re-authentication gains nothing.
	left := time.Until(end)
	sctx, scancel := context.WithTimeout(withTokenNeededAfter(context.Background(), end.Add(renewSlack(lifetime))),
		max(min(c.cfg.DialTimeout, left/2), time.Millisecond))
	ex, err := c.saslStart(sctx, m, true)
	scancel()
	if err != nil {
		if c.Err() != nil {
			return
		}
		var se *SASLError
		if errors.As(err, &se) {
			c.fail(err) // final: the mechanism refused for good
			return
		}
		if left = time.Until(end); left > reauthRetryMin {
			c.log.Debug("SASL re-authentication postponed: no credential to renew the session yet", "session_end", end, "err", err)
			c.scheduleReauth(m, time.Now().Add(left/2))
			return
		}
		c.closeIdle(fmt.Errorf("protocol: SASL session with %s ends at %s and no credential renews it: %w", c.addr, end.Format(time.RFC3339Nano), err))
		return
	}

	release, ok := c.holdRequests()
	if !ok {
		return
	}
	defer release()

	limit := c.cfg.DialTimeout + max(c.cfg.RequestTimeout, 0)
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	if err := c.drain(ctx); err != nil {
		if c.Err() == nil {
			c.fail(fmt.Errorf("SASL re-authentication: requests in flight did not finish within %v: %w", limit, err))
		}
		return
	}
	lctx, lcancel := context.WithTimeout(ctx, c.cfg.DialTimeout)
	defer lcancel()
	if err := c.saslRun(lctx, m, ex, true); err != nil && c.Err() == nil {
		c.fail(err)
	}
}

// closeIdle holds new requests back, waits (until the session would end)
// for those in flight to be answered, then closes the connection with err:
// the requests held back fail unwritten, and are sent on a new connection.
func (c *Conn) closeIdle(err error) {
	release, ok := c.holdRequests()
	if !ok {
		return
	}
	defer release()
	c.reauth.mu.Lock()
	end := c.reauth.end
	c.reauth.mu.Unlock()
	ctx, cancel := context.WithDeadline(context.Background(), end)
	defer cancel()
	_ = c.drain(ctx)
	c.fail(err)
}

// drain waits until every request in flight has been answered, by taking
// every in-flight slot; new requests are held at the gate meanwhile. The
// slots are given back before it returns.
func (c *Conn) drain(ctx context.Context) error {
	n := 0
	defer func() {
		for ; n > 0; n-- {
			<-c.sem
		}
	}()
	for n < cap(c.sem) {
		select {
		case c.sem <- struct{}{}:
			n++
		case <-ctx.Done():
			return ctx.Err()
		case <-c.done:
			return c.Err()
		}
	}
	return nil
}

// waitReauth blocks while a re-authentication runs.
func (c *Conn) waitReauth(ctx context.Context) error {
	c.mu.Lock()
	g := c.reauth.gate
	c.mu.Unlock()
	if g == nil {
		return nil
	}
	select {
	case <-g:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-c.done:
		return c.Err()
	}
}

// awaitReauthVerdict lets a running re-authentication record its failure
// before the reader fails the connection: a broker refusing a
// re-authentication answers and then closes the connection, and the
// reader sees the close while the re-authentication is still reading the
// answer. It waits only when nothing else is in flight, at most a second.
func (c *Conn) awaitReauthVerdict() {
	c.mu.Lock()
	g, idle := c.reauth.gate, len(c.pending) == 0
	c.mu.Unlock()
	if g == nil || !idle {
		return
	}
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case <-g:
	case <-t.C:
	}
}

// holdRequests makes new requests wait (the re-authentication gate) until
// release is called; false if the connection is closed.
func (c *Conn) holdRequests() (release func(), ok bool) {
	gate := make(chan struct{})
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, false
	}
	c.reauth.gate = gate
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		c.reauth.gate = nil
		c.mu.Unlock()
		close(gate)
	}, true
}
