package sim

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
)

// ErrAuthentication: a client's SASL exchange failed (bad message, unknown
// user, wrong password). The broker answers SASL_AUTHENTICATION_FAILED and
// closes the connection; the error, logged, never holds credentials.
var ErrAuthentication = errors.New("sim: SASL authentication failed")

// saslExchange is the server side of one SASL authentication.
type saslExchange interface {
	// step takes the client's next message and returns the server's
	// answer; done reports a completed, successful authentication. An
	// error wraps ErrAuthentication.
	step(in []byte) (out []byte, done bool, err error)
	// principal is the authenticated user, once done.
	principal() string
}

// plainExchange is RFC 4616 PLAIN: one message
// "authzid NUL authcid NUL password".
type plainExchange struct {
	users map[string][32]byte
	user  string
	done  bool
}

func (p *plainExchange) step(in []byte) ([]byte, bool, error) {
	if p.done {
		return nil, false, fmt.Errorf("%w: PLAIN: message after completion", ErrAuthentication)
	}
	parts := bytes.Split(in, []byte{0})
	if len(parts) != 3 {
		return nil, false, fmt.Errorf("%w: PLAIN: malformed message (%d fields)", ErrAuthentication, len(parts))
	}
	authz, user, pass := parts[0], parts[1], parts[2]
	if len(user) == 0 {
		return nil, false, fmt.Errorf("%w: PLAIN: empty user name", ErrAuthentication)
	}
	if len(authz) > 0 && !bytes.Equal(authz, user) {
		return nil, false, fmt.Errorf("%w: PLAIN: authorization id differs from the user", ErrAuthentication)
	}
	want, known := p.users[string(user)]
	got := sha256.Sum256(pass)
	// Compare even for an unknown user, so timing tells nothing.
	ok := subtle.ConstantTimeCompare(got[:], want[:]) == 1
	if !known || !ok {
		return nil, false, fmt.Errorf("%w: PLAIN: invalid credentials", ErrAuthentication)
	}
	p.user, p.done = string(user), true
	return nil, true, nil
}

func (p *plainExchange) principal() string { return p.user }
