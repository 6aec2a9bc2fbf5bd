package sim

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"fmt"
	"time"
)

// SASL mechanisms the simulator serves, as named in SaslHandshake.
const (
	MechPlain       = "PLAIN"
	MechScramSHA256 = "SCRAM-SHA-256"
	MechScramSHA512 = "SCRAM-SHA-512"
)

// scramIterations is the iteration count every SCRAM credential is salted
// with (Kafka's minimum and kafka-configs' default).
const scramIterations = 4096

// secConfig is the listener security configured with TLS, SASL and
// SessionLifetime.
type secConfig struct {
	tls      *tls.Config
	users    []saslUser
	oauth    bool // SASLOAuthBearer
	lifetime time.Duration
	now      func() time.Time // the clock sessions expire by; tests replace it
}

type saslUser struct {
	mech, user, password string
}

// authenticator holds the credentials of every enabled mechanism.
type authenticator struct {
	mechs    []string                 // enabled, in the order first given
	oauth    bool                     // OAUTHBEARER with the unsecured JWS validator
	plain    map[string][32]byte      // user -> SHA-256 of the password
	scram    map[string]*scramBackend // mechanism -> credentials
	lifetime time.Duration
	now      func() time.Time
}

// newAuthenticator checks sec and derives the credentials; it returns nil
// when SASL is off. Its errors never include user names or passwords.
func newAuthenticator(sec secConfig) (*authenticator, error) {
	if err := validateTLS(sec.tls); err != nil {
		return nil, err
	}
	if sec.lifetime < 0 || (sec.lifetime > 0 && sec.lifetime < time.Millisecond) {
		return nil, fmt.Errorf("%w: SASL session lifetime %s", ErrBadConfig, sec.lifetime)
	}
	if len(sec.users) == 0 && !sec.oauth {
		if sec.lifetime > 0 {
			return nil, fmt.Errorf("%w: a SASL session lifetime without SASL users", ErrBadConfig)
		}
		return nil, nil
	}
	a := &authenticator{
		plain:    map[string][32]byte{},
		scram:    map[string]*scramBackend{},
		lifetime: sec.lifetime,
		now:      sec.now,
		oauth:    sec.oauth,
	}
	if a.now == nil {
		a.now = time.Now
	}
	for i, u := range sec.users {
		if u.user == "" {
			return nil, fmt.Errorf("%w: SASL user %d (%s) has an empty name", ErrBadConfig, i+1, u.mech)
		}
		switch u.mech {
		case MechPlain:
			if _, dup := a.plain[u.user]; dup {
				return nil, fmt.Errorf("%w: SASL user %d (%s) given twice", ErrBadConfig, i+1, u.mech)
			}
			a.plain[u.user] = sha256.Sum256([]byte(u.password))
		case MechScramSHA256, MechScramSHA512:
			sb := a.scram[u.mech]
			if sb == nil {
				sb = newScramBackend(u.mech)
				a.scram[u.mech] = sb
			}
			if _, dup := sb.users[u.user]; dup {
				return nil, fmt.Errorf("%w: SASL user %d (%s) given twice", ErrBadConfig, i+1, u.mech)
			}
			salt := make([]byte, 16)
			if _, err := rand.Read(salt); err != nil {
				return nil, fmt.Errorf("sim: SCRAM salt: %w", err)
			}
			cred, err := sb.derive(u.password, salt, scramIterations)
			if err != nil {
				return nil, fmt.Errorf("sim: SCRAM credential for user %d (%s): %w", i+1, u.mech, err)
			}
			sb.users[u.user] = cred
		case MechOAuthBearer:
			return nil, fmt.Errorf("%w: SASL user %d: OAUTHBEARER has no users (enable it with SASLOAuthBearer)", ErrBadConfig, i+1)
		default:
			return nil, fmt.Errorf("%w: SASL mechanism %q (want %s, %s or %s)", ErrBadConfig, u.mech, MechPlain, MechScramSHA256, MechScramSHA512)
		}
		if !a.enabled(u.mech) {
			a.mechs = append(a.mechs, u.mech)
		}
	}
	if sec.oauth {
		a.mechs = append(a.mechs, MechOAuthBearer)
	}
	return a, nil
}

func (a *authenticator) enabled(mech string) bool {
	for _, m := range a.mechs {
		if m == mech {
			return true
		}
	}
	return false
}

// newExchange starts the server side of one authentication.
func (a *authenticator) newExchange(mech string) (saslExchange, error) {
	switch mech {
	case MechPlain:
		return &plainExchange{users: a.plain}, nil
	case MechScramSHA256, MechScramSHA512:
		return &scramExchange{b: a.scram[mech]}, nil
	case MechOAuthBearer:
		return &oauthExchange{now: a.now}, nil
	}
	return nil, fmt.Errorf("mechanism %q not enabled", mech)
}
