package kafka

import (
	"fmt"

	"github.com/rollsafe/rollsafe/client"
)

// Handle represents a generic client handle containing common parts of
// confluent-kafka-go's clients; here the Producer is the only one. It is
// what a token-refresh handler takes (OAuthBearerTokenRefresh), so that
// it can call SetOAuthBearerToken or SetOAuthBearerTokenFailure. Only this
// package's types implement it.
type Handle interface {
	// SetOAuthBearerToken sets the data to be transmitted to a broker
	// during SASL/OAUTHBEARER authentication (see
	// Producer.SetOAuthBearerToken).
	SetOAuthBearerToken(oauthBearerToken OAuthBearerToken) error
	// SetOAuthBearerTokenFailure sets the error message describing why
	// token retrieval/setting failed (see
	// Producer.SetOAuthBearerTokenFailure).
	SetOAuthBearerTokenFailure(errstr string) error
	// IsClosed returns true once the client is closed.
	IsClosed() bool

	isHandle() // keeps the interface to this package's clients
}

func (p *Producer) isHandle() {}

var _ Handle = (*Producer)(nil)

// librdkafka's version whose behaviour and configuration this package
// follows, as LibraryVersion reports it.
const (
	libraryVersion    = 0x020f00ff // 2.15.0, released (0xff)
	libraryVersionStr = "2.15.0-rollsafe"
)

// LibraryVersion returns the underlying librdkafka library version as a
// (version_int, version_str) tuple. There is no librdkafka here: it is the
// librdkafka release whose producer behaviour and properties this package
// follows — 2.15.0, the one confluent-kafka-go bundles, as 0x020f00ff
// (major, minor, revision, 0xff for a release) — and its version string
// with a "-rollsafe" suffix, so that version checks written for
// confluent-kafka-go (which requires 0x020f00ff or later) keep working.
func LibraryVersion() (int, string) {
	return libraryVersion, libraryVersionStr
}

// TestFatalError triggers a fatal error in the producer, as librdkafka's
// rd_kafka_test_fatal_error does: to be used strictly for testing an
// application's fatal-error handling, since rollsafe's producer never
// raises a fatal error of its own (see GetFatalError).
//
// The producer becomes fatal with code and "test_fatal_error: " + str:
// an Error event with IsFatal() true comes on Events(); GetFatalError
// returns that Error from now on; Produce refuses every new message with
// ErrFatal (the fatal Error is reachable with errors.As); the messages
// still queued (not yet sent to a broker) fail with ErrPurgeQueue — certainly
// not written, their error wrapping the fatal Error — while messages in flight get
// their real outcome. Flush and Close work as before.
//
// It returns ErrNoError when the fatal error was raised, ErrPrevInProgress
// when one was raised before (the first one stays), ErrState after Close.
func (p *Producer) TestFatalError(code ErrorCode, str string) ErrorCode {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return ErrState
	}
	if !p.raiseFatalLocked(&Error{code: code, str: "test_fatal_error: " + str, fatal: true}) {
		return ErrPrevInProgress
	}
	p.wg.Add(1)
	go func() {
		// librdkafka purges the queues (not in-flight requests) of a
		// producer going fatal.
		defer p.wg.Done()
		_ = p.c.Purge(p.ctx, client.PurgeQueued)
	}()
	return ErrNoError
}

// raiseFatal makes the producer fatal with fe (a transactional producer's
// fatal error), as librdkafka's error_cb raises it: an Error event, and
// GetFatalError returning it. The first fatal error stays; nothing after
// Close.
func (p *Producer) raiseFatal(fe *Error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed {
		p.raiseFatalLocked(fe)
	}
}

// raiseFatalLocked sets fe as the fatal error unless one is set already,
// and sends it as an Error event. p.mu is held and the producer is open.
func (p *Producer) raiseFatalLocked(fe *Error) bool {
	if !p.fatal.CompareAndSwap(nil, fe) {
		return false
	}
	// The fatal Error event comes before the purged messages' reports
	// (unless Events() is full: then it follows when there is room).
	select {
	case p.events <- *fe:
	default:
		p.wg.Add(1)
		go func() { defer p.wg.Done(); p.sendEvent(*fe) }()
	}
	return true
}

// fatalProduceError is what Produce returns once the producer is fatal.
func (p *Producer) fatalProduceError(fe *Error) Error {
	return Error{code: ErrFatal, str: fmt.Sprintf("Local: Fatal error: %s", fe.str), err: *fe}
}
