package client

import (
	"context"

	"github.com/rollsafe/rollsafe/protocol"
)

// ErrAuthentication: a broker refused the SASL credentials or mechanism
// (or its messages failed verification). It is final: retrying with the
// same configuration cannot succeed. It is protocol.ErrAuthentication, so
// errors from either package match it; the error names the broker and the
// mechanism, never the user or password.
var ErrAuthentication = protocol.ErrAuthentication

// SASLPlain authenticates every broker connection with SASL PLAIN. The
// password crosses the network as is: combine it with WithTLS.
func SASLPlain(user, password string) Option {
	return WithSASL(protocol.SASLPlain(user, password))
}

// SASLScram256 authenticates every broker connection with
// SCRAM-SHA-256.
func SASLScram256(user, password string) Option {
	return WithSASL(protocol.SASLScramSHA256(user, password))
}

// SASLScram512 authenticates every broker connection with
// SCRAM-SHA-512.
func SASLScram512(user, password string) Option {
	return WithSASL(protocol.SASLScramSHA512(user, password))
}

// WithSASL authenticates every broker connection with m (see
// protocol.NewSASLMechanism to pick one by name). When brokers announce a
// session lifetime (KIP-368, connections.max.reauth.ms), connections
// re-authenticate before it ends without disturbing production. nil turns
// SASL off.
func WithSASL(m protocol.SASLMechanism) Option {
	return func(c *config) {
		c.auth, c.authProblem = nil, ""
		if m != nil {
			c.auth = protocol.SASL(m)
		}
	}
}

// OAuthBearerToken is what a SASLOAuthBearer provider returns: the token,
// its expiry, the principal (informational) and SASL extensions (KIP-342).
type OAuthBearerToken = protocol.OAuthBearerToken

// OAUTHBEARER errors (they are protocol's, so either package matches).
var (
	// ErrTokenProvider: the SASLOAuthBearer provider failed, or returned
	// an empty, malformed or already expired token. It is not final
	// unless the provider's error matches ErrAuthentication: the
	// connection is retried like an unreachable broker, asking the
	// provider again, until the records' delivery timeout.
	ErrTokenProvider = protocol.ErrTokenProvider
	// ErrTokenRejected: a broker refused the token (its error names the
	// broker's status, e.g. "invalid_token", and whether the token had
	// expired). It comes with ErrAuthentication: final, records fail
	// ErrNotWritten.
	ErrTokenRejected = protocol.ErrTokenRejected
)

// SASLOAuthBearer authenticates every broker connection with SASL
// OAUTHBEARER (RFC 7628, KIP-255), sending a token from provider. The
// provider is called with the connection's dial context when a connection
// (or a KIP-368 re-authentication) needs a token; a token is reused until
// 80% of its remaining lifetime has passed (OAuthBearerToken.Expiry; with
// no expiry the provider is asked every time), so a new connection after
// that, and every re-authentication the broker's session lifetime calls
// for (Kafka ends the session when the token expires), asks for a new one.
// Tokens never appear in errors or logs. Like SASLPlain, combine it with
// WithTLS: a bearer token on the wire is a credential. A nil provider is
// a configuration error.
func SASLOAuthBearer(provider func(ctx context.Context) (OAuthBearerToken, error)) Option {
	return func(c *config) {
		c.auth = nil
		c.authProblem = ""
		if provider == nil {
			c.authProblem = "SASLOAuthBearer: nil token provider"
			return
		}
		c.auth = protocol.SASL(protocol.SASLOAuthBearer(provider))
	}
}
