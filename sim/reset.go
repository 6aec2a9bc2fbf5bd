package sim

import (
	"context"
	"net"
	"time"
)

// Reset is how ResetAfterResponse strikes a request.
type Reset struct {
	// Hold: the broker holds the request so long before processing it
	// (a stall, as DelayProcessing), the requests behind it waiting on
	// the connection.
	Hold time.Duration
	// After: the reset reaches the client so long after the answer.
	After time.Duration
	// ExpiryCheck: the broker's periodic producer expiry check
	// (producer.id.expiration.check.interval.ms, whose phase is anyone's)
	// runs as it answers. It forgets, on every replica the broker hosts,
	// the producers whose last batch is stamped ProducerIDExpiration or
	// longer ago — by record timestamp, so a producer writing records
	// stamped long ago loses its state on that broker at that moment,
	// the batch just answered included, as with Kafka's check. Producers
	// with recent stamps keep theirs.
	ExpiryCheck bool
}

// ResetAfterResponse strikes the partition's next n produce requests as
// its leader reads them: each is processed (after r.Hold) and answered as
// usual, then its connection is reset, as a broker or a middlebox
// dropping it at any moment does: the client reads the answer and,
// r.After later, the reset (ECONNRESET). The broker reads nothing more
// from that connection: requests the client pipelined behind the answered
// one (still in the socket buffer) are never processed, and what the
// client writes before the reset reaches it goes nowhere.
func (c *Cluster) ResetAfterResponse(topic string, p int32, n int, r Reset) error {
	r.Hold, r.After = max(r.Hold, 0), max(r.After, 0)
	return c.addFault(topic, p, &fault{kind: faultResetAfterAnswer, n: n, delay: r.Hold, reset: r})
}

// resetter is a connection that can reset itself with the reset reaching
// the peer a delay after the last byte written (memnet's).
type resetter interface{ ResetAfter(d time.Duration) }

// resetConn resets nc, the response just written, so that the client sees
// the reset about d after the response; the caller then returns from
// serveConn (whose Close then does nothing more). Over a socket the reset
// follows the response by d, the two taking one path.
func resetConn(ctx context.Context, nc net.Conn, d time.Duration) {
	if r, ok := nc.(resetter); ok {
		r.ResetAfter(d)
		return
	}
	sleepCtx(ctx, d)
	if tc, ok := nc.(*net.TCPConn); ok {
		_ = tc.SetLinger(0) // a reset, not an orderly close
	}
	_ = nc.Close()
}
