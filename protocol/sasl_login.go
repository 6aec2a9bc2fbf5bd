package protocol

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// saslMaxRounds bounds the SaslAuthenticate round trips of one exchange
// (SCRAM needs two), so a server cannot keep a client talking forever.
const saslMaxRounds = 8

// saslLogin runs SaslHandshake and the SaslAuthenticate rounds of m on c.
// While reauth is set the requests bypass the re-authentication gate
// (which holds every other request back). On success with a session
// lifetime it schedules the next re-authentication.
func (c *Conn) saslLogin(ctx context.Context, m SASLMechanism, reauth bool) error {
	ex, err := c.saslStart(ctx, m, reauth)
	if err != nil {
		return err
	}
	return c.saslRun(ctx, m, ex, reauth)
}

// saslStart checks the broker's SASL versions and starts an exchange of m
// (obtaining a token, for OAUTHBEARER) before the broker is involved: a
// local failure leaves the connection unused.
func (c *Conn) saslStart(ctx context.Context, m SASLMechanism, reauth bool) (SASLExchange, error) {
	fail := func(err error) error {
		return &SASLError{Addr: c.addr, Mechanism: m.Name(), Reauthentication: reauth, Err: err}
	}
	hv, err := c.VersionFor(17)
	if err != nil {
		return nil, fail(err)
	}
	if hv < 1 {
		return nil, fail(fmt.Errorf("%w: the broker speaks only SaslHandshake v0, without SaslAuthenticate", ErrUnsupportedVersion))
	}
	if _, err := c.VersionFor(36); err != nil {
		return nil, fail(err)
	}
	var ex SASLExchange
	if cm, ok := m.(SASLContextMechanism); ok {
		ex, err = cm.StartContext(ctx)
	} else {
		ex, err = m.Start()
	}
	if err != nil {
		if tpe := (*tokenProviderError)(nil); errors.As(err, &tpe) {
			// The provider's failure, not the broker's: not final.
			return nil, fmt.Errorf("protocol: SASL %s with %s: %w", m.Name(), c.addr, redactErr(m, err))
		}
		return nil, fail(redactErr(m, err))
	}
	return ex, nil
}

// saslRun runs the handshake and the exchange ex of m.
func (c *Conn) saslRun(ctx context.Context, m SASLMechanism, ex SASLExchange, reauth bool) error {
	fail := func(err error) error {
		return &SASLError{Addr: c.addr, Mechanism: m.Name(), Reauthentication: reauth, Err: err}
	}
	hv, err := c.VersionFor(17)
	if err != nil {
		return fail(err)
	}
	av, err := c.VersionFor(36)
	if err != nil {
		return fail(err)
	}
	hs := kmsg.NewPtrSASLHandshakeRequest()
	hs.SetVersion(hv)
	hs.Mechanism = m.Name()
	resp, err := c.saslRequest(ctx, hs, reauth)
	if err != nil {
		return fmt.Errorf("protocol: SaslHandshake with %s: %w", c.addr, err)
	}
	hsResp := resp.(*kmsg.SASLHandshakeResponse)
	if kerr := ErrorForCode(hsResp.ErrorCode); kerr != nil {
		return fail(fmt.Errorf("%w (the broker offers %v)", kerr, hsResp.SupportedMechanisms))
	}

	msg, done, err := ex.Step(nil)
	var lifetime time.Duration
	var sentAt time.Time
	for round := 0; !done; round++ {
		if err != nil {
			return fail(redactErr(m, err))
		}
		if round == saslMaxRounds {
			return fail(fmt.Errorf("the exchange did not end within %d rounds", saslMaxRounds))
		}
		req := kmsg.NewPtrSASLAuthenticateRequest()
		req.SetVersion(av)
		req.SASLAuthBytes = msg
		sentAt = time.Now()
		resp, rerr := c.saslRequest(ctx, req, reauth)
		if rerr != nil {
			return fmt.Errorf("protocol: SaslAuthenticate with %s: %w", c.addr, rerr)
		}
		ar := resp.(*kmsg.SASLAuthenticateResponse)
		if ar.ErrorCode != 0 {
			var kerr error = newKafkaError(ar.ErrorCode, "", -1, redact(m, saslString(ar.ErrorMessage)))
			if r, ok := ex.(interface{ rejected(error) error }); ok {
				kerr = r.rejected(kerr)
			}
			if e, ok := ex.(interface{ expiredInTransit() bool }); ok && e.expiredInTransit() {
				// The token expired between its check and the broker's:
				// a fresh one will do, so this is not final.
				return fmt.Errorf("protocol: SASL %s with %s: %w", m.Name(), c.addr, &tokenExpiredError{err: kerr})
			}
			return fail(kerr)
		}
		lifetime = time.Duration(ar.SessionLifetimeMillis) * time.Millisecond
		msg, done, err = ex.Step(ar.SASLAuthBytes)
	}
	if err != nil {
		return fail(redactErr(m, err))
	}
	if d, ok := ex.(interface{ describe() []any }); ok {
		c.log.Debug("SASL credential accepted", d.describe()...)
	}
	c.saslDone(m, reauth, sentAt, lifetime)
	return nil
}

// saslRequest sends one SASL request and waits for its response.
func (c *Conn) saslRequest(ctx context.Context, req kmsg.Request, reauth bool) (kmsg.Response, error) {
	type result struct {
		resp kmsg.Response
		err  error
	}
	ch := make(chan result, 1)
	err := c.write(ctx, req, nil, func(r kmsg.Response, err error) { ch <- result{r, err} }, reauth)
	if err != nil {
		return nil, err
	}
	select {
	case r := <-ch:
		return r.resp, r.err
	case <-ctx.Done():
		// The exchange is half done: the connection cannot be used.
		c.fail(fmt.Errorf("SASL %s abandoned: %w", kmsg.NameForKey(req.Key()), ctx.Err()))
		return nil, fmt.Errorf("%w: %w", ErrConnLostAfterWrite, ctx.Err())
	}
}

func saslString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// redactedError keeps err's identity for errors.Is/As with a redacted text.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

func redactErr(m SASLMechanism, err error) error {
	msg := err.Error()
	if r := redact(m, msg); r != msg {
		return &redactedError{msg: r, err: err}
	}
	return err
}
