package sim

import (
	"errors"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

// Kafka error codes of SASL, from kafkaerr's table.
const (
	errUnsupportedSaslMechanism = int16(kafkaerr.UnsupportedSaslMechanism)
	errIllegalSaslState         = int16(kafkaerr.IllegalSaslState)
	errSaslAuthenticationFailed = int16(kafkaerr.SaslAuthenticationFailed)
)

// saslAuthFailedMessage is the ErrorMessage of a failed SaslAuthenticate;
// it names the mechanism only, never the user.
const saslAuthFailedMessage = "Authentication failed during authentication due to invalid credentials with SASL mechanism "

type saslStage int

const (
	saslWantHandshake saslStage = iota // ApiVersions or SaslHandshake
	saslWantAuth                       // SaslAuthenticate (after a handshake)
	saslAuthenticated                  // any request, until the session expires
)

// saslConn is one connection's SASL state: it lets requests through only
// after a successful authentication and drives re-authentication.
type saslConn struct {
	a       *authenticator
	b       *broker
	connID  uint64
	stage   saslStage
	reauth  bool // the handshake under way re-authenticates
	raw     bool // SaslHandshake v0: the exchange's tokens follow as raw frames
	mech    string
	user    string // principal of the last successful authentication
	ex      saslExchange
	expires time.Time // zero: never
}

func (b *broker) newSASLConn(connID uint64) *saslConn {
	if b.c.auth == nil {
		return nil
	}
	return &saslConn{a: b.c.auth, b: b, connID: connID}
}

// gate decides a request before the broker's handlers see it: handled
// reports that oc is the answer (SASL requests, refusals); otherwise the
// request goes on to the handlers.
func (s *saslConn) gate(req kmsg.Request) (oc outcome, handled bool) {
	switch s.stage {
	case saslWantHandshake:
		switch r := req.(type) {
		case *kmsg.ApiVersionsRequest:
			return outcome{}, false
		case *kmsg.SASLHandshakeRequest:
			return s.handshake(r), true
		}
		s.warn("request before SASL authentication", req)
		return outcome{act: actClose}, true
	case saslWantAuth:
		if r, ok := req.(*kmsg.SASLAuthenticateRequest); ok {
			return s.authenticate(r), true
		}
		s.warn("request other than SaslAuthenticate during SASL authentication", req)
		return outcome{act: actClose}, true
	}
	switch r := req.(type) {
	case *kmsg.SASLHandshakeRequest:
		if r.Version == 0 {
			// Re-authentication needs SaslAuthenticate (v1 handshakes).
			return outcome{resp: illegalSASLState(r)}, true
		}
		if s.a.lifetime > 0 || !s.expires.IsZero() {
			s.reauth = true
			return s.handshake(r), true
		}
		// Without session lifetimes there is no re-authentication:
		// answered as on a connection that needs no SASL.
		return outcome{resp: illegalSASLState(r)}, true
	case *kmsg.SASLAuthenticateRequest:
		return outcome{resp: illegalSASLState(r)}, true
	}
	if !s.expires.IsZero() && !s.a.now().Before(s.expires) {
		s.warn("SASL session expired", req)
		return outcome{act: actClose}, true
	}
	return outcome{}, false
}

func (s *saslConn) warn(msg string, req kmsg.Request) {
	s.b.c.log.Warn("closing connection: "+msg, "broker", s.b.id, "conn", s.connID,
		"request", kmsg.NameForKey(req.Key()), "version", req.GetVersion())
}

func (s *saslConn) handshake(r *kmsg.SASLHandshakeRequest) outcome {
	resp := r.ResponseKind().(*kmsg.SASLHandshakeResponse)
	resp.SupportedMechanisms = append([]string(nil), s.a.mechs...)
	if !s.a.enabled(r.Mechanism) {
		resp.ErrorCode = errUnsupportedSaslMechanism
		s.b.c.log.Warn("unsupported SASL mechanism", "broker", s.b.id, "conn", s.connID, "mechanism", r.Mechanism)
		return outcome{resp: resp, act: actRespondClose}
	}
	if s.reauth && r.Mechanism != s.mech {
		resp.ErrorCode = errIllegalSaslState
		s.b.c.log.Warn("re-authentication changes the SASL mechanism", "broker", s.b.id, "conn", s.connID,
			"from", s.mech, "to", r.Mechanism)
		return outcome{resp: resp, act: actRespondClose}
	}
	ex, err := s.a.newExchange(r.Mechanism)
	if err != nil { // enabled() was checked: cannot happen
		resp.ErrorCode = errUnsupportedSaslMechanism
		return outcome{resp: resp, act: actRespondClose}
	}
	s.ex, s.mech, s.stage = ex, r.Mechanism, saslWantAuth
	s.raw = r.Version == 0
	return outcome{resp: resp}
}

// rawNext reports that the next frame is a raw SASL token (after a v0
// SaslHandshake), not a Kafka request.
func (s *saslConn) rawNext() bool { return s != nil && s.stage == saslWantAuth && s.raw }

// rawStep answers a raw SASL token as Kafka does after a v0 handshake: the
// server's token as a size-prefixed frame (empty when the mechanism has
// nothing to say, as PLAIN on success), and on failure no answer, the
// connection closed.
func (s *saslConn) rawStep(in []byte) (out []byte, ok bool) {
	out, done, err := s.ex.step(in)
	if err != nil {
		s.b.c.log.Warn("SASL authentication failed (v0, raw tokens)", "broker", s.b.id, "conn", s.connID,
			"mechanism", s.mech, "err", err)
		s.ex = nil
		return nil, false
	}
	if done {
		s.complete()
	}
	return out, true
}

func (s *saslConn) authenticate(r *kmsg.SASLAuthenticateRequest) outcome {
	resp := r.ResponseKind().(*kmsg.SASLAuthenticateResponse)
	out, done, err := s.ex.step(r.SASLAuthBytes)
	if err == nil && done && s.reauth && s.ex.principal() != s.user {
		err = errors.New("re-authentication changes the principal")
	}
	if err != nil {
		resp.ErrorCode = errSaslAuthenticationFailed
		msg := saslAuthFailedMessage + s.mech
		var cm interface{ clientMessage() string }
		if errors.As(err, &cm) {
			msg = cm.clientMessage()
		}
		resp.ErrorMessage = &msg
		s.b.c.log.Warn("SASL authentication failed", "broker", s.b.id, "conn", s.connID,
			"mechanism", s.mech, "reauthentication", s.reauth, "err", err)
		s.ex = nil
		return outcome{resp: resp, act: actRespondClose}
	}
	resp.SASLAuthBytes = out
	if !done {
		return outcome{resp: resp}
	}
	if lifetime := s.complete(); lifetime > 0 {
		resp.SessionLifetimeMillis = max(1, lifetime.Milliseconds())
	}
	return outcome{resp: resp}
}

// complete ends a successful exchange and returns the session's lifetime
// (0: none). The session lasts SessionLifetime, or until the credential
// expires when that comes first (an OAUTHBEARER token), as Kafka's
// SaslServerAuthenticator computes it; after a v0 handshake the client is
// not told, and the session ends all the same.
func (s *saslConn) complete() time.Duration {
	now, lifetime := s.a.now(), s.a.lifetime
	if e, ok := s.ex.(interface{ expiry() time.Time }); ok {
		if left := e.expiry().Sub(now); lifetime <= 0 || left < lifetime {
			lifetime = max(left, time.Millisecond) // expired: at once
		}
	}
	s.user, s.ex, s.stage = s.ex.principal(), nil, saslAuthenticated
	s.expires = time.Time{}
	if lifetime > 0 {
		s.expires = now.Add(lifetime)
	}
	s.b.c.log.Info("SASL authenticated", "broker", s.b.id, "conn", s.connID, "mechanism", s.mech,
		"reauthentication", s.reauth, "raw", s.raw, "session_lifetime", lifetime)
	s.b.c.rec.authentication(Authentication{Time: now, Broker: s.b.id, Conn: s.connID, Mechanism: s.mech,
		Principal: s.user, Reauth: s.reauth, Lifetime: lifetime})
	s.reauth, s.raw = false, false
	return lifetime
}

// illegalSASLState answers a SASL request on a connection where none is
// expected (SASL is off, or the connection is authenticated and cannot
// re-authenticate).
func illegalSASLState(req kmsg.Request) kmsg.Response {
	switch r := req.(type) {
	case *kmsg.SASLHandshakeRequest:
		resp := r.ResponseKind().(*kmsg.SASLHandshakeResponse)
		resp.ErrorCode = errIllegalSaslState
		return resp
	case *kmsg.SASLAuthenticateRequest:
		resp := r.ResponseKind().(*kmsg.SASLAuthenticateResponse)
		resp.ErrorCode = errIllegalSaslState
		msg := "no SASL authentication is expected on this connection"
		resp.ErrorMessage = &msg
		return resp
	}
	return nil
}

// redactSASL returns req and resp as the Recorder keeps them: without the
// SASL bytes, which hold user names, nonces and (PLAIN) passwords.
func redactSASL(req kmsg.Request, resp kmsg.Response) (kmsg.Request, kmsg.Response) {
	if r, ok := req.(*kmsg.SASLAuthenticateRequest); ok && r.SASLAuthBytes != nil {
		c := *r
		c.SASLAuthBytes = nil
		req = &c
	}
	if r, ok := resp.(*kmsg.SASLAuthenticateResponse); ok && r.SASLAuthBytes != nil {
		c := *r
		c.SASLAuthBytes = nil
		resp = &c
	}
	return req, resp
}
