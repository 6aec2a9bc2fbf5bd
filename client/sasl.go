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

// TokenNeededAfter tells a SASLOAuthBearer provider called for a KIP-368
// re-authentication when the session being renewed ends: a token expiring
// no later is refused (ErrNoFresherToken) since re-authenticating with it
// would only open a shorter session. A provider that refreshes tokens in
// the background should wait, until ctx ends, for one that outlives it.
// ok is false when the provider is called for a new connection.
var TokenNeededAfter = protocol.TokenNeededAfter

// TokenExpiry is when an OAUTHBEARER token stops being valid as rollsafe
// counts it: its Expiry, or the "exp" claim of a JWT value when that comes
// first (brokers go by the claim, whole seconds).
var TokenExpiry = protocol.TokenExpiry

// ErrNoFresherToken: at a re-authentication the provider had no token
// outliving the session being renewed. Not final: the re-authentication is
// tried again later in the session, and if the session is about to end
// with no such token the connection is closed once idle (its requests go
// on a new connection, never failed for it).
var ErrNoFresherToken = protocol.ErrNoFresherToken

// SASLOAuthBearer authenticates every broker connection with SASL
// OAUTHBEARER (RFC 7628, KIP-255), sending a token from provider. The
// provider is called with the connection's dial context when a connection
// (or a KIP-368 re-authentication) needs a token; a token is reused until
// 80% of its remaining lifetime has passed (its expiry is
// OAuthBearerToken.Expiry or, when earlier, the "exp" claim of a JWT
// value: TokenExpiry; with neither the provider is asked every time), so a
// new connection after that, and every re-authentication the broker's
// session lifetime calls for (Kafka ends the session when the token
// expires), asks for a new one. A token past its expiry is never sent
// (ErrTokenProvider, not final). A re-authentication only uses a token
// that outlives the session it renews (TokenNeededAfter): the token the
// session was opened with would open a shorter one, again and again; it
// is obtained before the connection's requests are held, and without one
// the re-authentication is tried again later, the connection closed once
// idle before the session ends (ErrNoFresherToken), never failing records.
// A token the broker refuses because it expired on the way is not final
// either.
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
