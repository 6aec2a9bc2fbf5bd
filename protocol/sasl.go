package protocol

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// SASL mechanism names, as sent in SaslHandshake.
const (
	MechanismPlain       = "PLAIN"
	MechanismScramSHA256 = "SCRAM-SHA-256"
	MechanismScramSHA512 = "SCRAM-SHA-512"
)

// SASL errors. A definitive authentication failure is a *SASLError, which
// matches ErrAuthentication; a connection lost during the exchange is not
// (it matches ErrConnLostAfterWrite or ErrNotWritten, and a redial may
// succeed).
var (
	// ErrAuthentication: the broker refused the credentials or the
	// mechanism, or the exchange could not complete (the broker's messages
	// were invalid or did not prove it knows the credentials). Retrying
	// with the same configuration cannot succeed.
	ErrAuthentication = errors.New("protocol: SASL authentication failed")
	// ErrServerSignature: a SCRAM server's final message did not carry the
	// signature only a server knowing the password can compute.
	ErrServerSignature = errors.New("protocol: SCRAM server signature does not verify")
	// ErrUnknownMechanism: NewSASLMechanism was given a mechanism name this
	// package does not implement.
	ErrUnknownMechanism = errors.New("protocol: unknown SASL mechanism")
)

// SASLError is a failed SASL authentication or re-authentication. It
// matches ErrAuthentication and whatever Err matches (a *KafkaError such as
// ErrSaslAuthenticationFailed or ErrUnsupportedSaslMechanism,
// ErrServerSignature, a *VersionError). Its text never holds the user name
// or password.
type SASLError struct {
	// Addr is the broker's address.
	Addr string
	// Mechanism is the SASL mechanism name.
	Mechanism string
	// Reauthentication is true when the failure came while re-authenticating
	// an established connection (KIP-368).
	Reauthentication bool
	// Err is the cause.
	Err error
}

// Error implements error.
func (e *SASLError) Error() string {
	what := "authentication"
	if e.Reauthentication {
		what = "re-authentication"
	}
	return fmt.Sprintf("protocol: SASL %s with %s to %s failed: %v", what, e.Mechanism, e.Addr, e.Err)
}

// Unwrap returns ErrAuthentication and the cause.
func (e *SASLError) Unwrap() []error { return []error{ErrAuthentication, e.Err} }

// SASLMechanism is the client side of a SASL mechanism. Implementations
// must keep credentials out of their String, GoString and error texts.
type SASLMechanism interface {
	// Name is the mechanism name sent in SaslHandshake.
	Name() string
	// Start begins one authentication exchange.
	Start() (SASLExchange, error)
}

// SASLContextMechanism is a SASLMechanism whose exchanges need the
// connection's context to start, e.g. to obtain a token; connections call
// StartContext instead of Start.
type SASLContextMechanism interface {
	SASLMechanism
	// StartContext begins one authentication exchange; ctx bounds the
	// connection's dial (or re-authentication).
	StartContext(ctx context.Context) (SASLExchange, error)
}

// SASLExchange is one authentication exchange of a SASLMechanism.
type SASLExchange interface {
	// Step is called first with a nil challenge and returns the client's
	// first message; then with each server message (the bytes of a
	// successful SaslAuthenticate response). done reports that the server's
	// message completed the exchange successfully: nothing more is sent.
	// An error ends the exchange; it must not hold credentials.
	Step(challenge []byte) (msg []byte, done bool, err error)
}

// secretHolder is implemented by this package's mechanisms: the strings a
// broker's error message must not be allowed to echo into errors.
type secretHolder interface{ secrets() []string }

// NewSASLMechanism returns the mechanism called name (MechanismPlain,
// MechanismScramSHA256 or MechanismScramSHA512, case-insensitive) for user
// and password. An unknown name gives an error matching ErrUnknownMechanism;
// OAUTHBEARER takes a token provider instead (SASLOAuthBearer).
func NewSASLMechanism(name, user, password string) (SASLMechanism, error) {
	switch strings.ToUpper(name) {
	case MechanismPlain:
		return SASLPlain(user, password), nil
	case MechanismScramSHA256:
		return SASLScramSHA256(user, password), nil
	case MechanismScramSHA512:
		return SASLScramSHA512(user, password), nil
	case MechanismOAuthBearer:
		return nil, fmt.Errorf("%w %q: it takes a token provider, not a user and password (SASLOAuthBearer)", ErrUnknownMechanism, name)
	}
	return nil, fmt.Errorf("%w %q (want %s, %s or %s)", ErrUnknownMechanism, name,
		MechanismPlain, MechanismScramSHA256, MechanismScramSHA512)
}

// SASL returns a ConnConfig.Authenticate function that authenticates each
// new connection with m (SaslHandshake v1, then SaslAuthenticate v0-v2).
// When the broker answers a session lifetime (KIP-368), the connection
// re-authenticates itself before the session expires, at 80-90% of the
// lifetime: it stops sending new requests, waits for those in flight,
// repeats the exchange on the same connection and resumes. A failed
// re-authentication closes the connection with a *SASLError.
func SASL(m SASLMechanism) func(ctx context.Context, c *Conn) error {
	return func(ctx context.Context, c *Conn) error {
		return c.saslLogin(ctx, m, false)
	}
}

// redact replaces every occurrence of the mechanism's secrets in s.
func redact(m SASLMechanism, s string) string {
	sh, ok := m.(secretHolder)
	if !ok {
		return s
	}
	for _, sec := range sh.secrets() {
		if sec != "" {
			s = strings.ReplaceAll(s, sec, "[redacted]")
		}
	}
	return s
}
