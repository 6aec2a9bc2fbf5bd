package client

import (
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
		c.auth = nil
		if m != nil {
			c.auth = protocol.SASL(m)
		}
	}
}
