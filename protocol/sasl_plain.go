package protocol

// plainMechanism is SASL PLAIN (RFC 4616): the user name and password in
// one message. Use it only over TLS: the password crosses the wire as is.
type plainMechanism struct{ user, pass string }

// SASLPlain returns the PLAIN mechanism for user and password. The
// password is sent in clear text: combine it with TLS.
func SASLPlain(user, password string) SASLMechanism {
	return &plainMechanism{user: user, pass: password}
}

func (m *plainMechanism) Name() string { return MechanismPlain }

// String names the mechanism without its credentials.
func (m *plainMechanism) String() string { return MechanismPlain }

// GoString keeps the credentials out of %#v.
func (m *plainMechanism) GoString() string { return "protocol.SASLPlain(<redacted>)" }

func (m *plainMechanism) secrets() []string { return []string{m.pass, m.user} }

func (m *plainMechanism) Start() (SASLExchange, error) {
	return &plainExchange{m: m}, nil
}

type plainExchange struct {
	m    *plainMechanism
	sent bool
}

// Step sends "authzid NUL authcid NUL password" with an empty authzid; the
// broker's successful answer ends the exchange.
func (e *plainExchange) Step([]byte) ([]byte, bool, error) {
	if e.sent {
		return nil, true, nil
	}
	e.sent = true
	msg := make([]byte, 0, 2+len(e.m.user)+len(e.m.pass))
	msg = append(msg, 0)
	msg = append(msg, e.m.user...)
	msg = append(msg, 0)
	msg = append(msg, e.m.pass...)
	return msg, false, nil
}
