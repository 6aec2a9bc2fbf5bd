package protocol

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/kafkaerr"
	"github.com/rollsafe/rollsafe/sim"
	"github.com/rollsafe/rollsafe/sim/memnet"
)

const (
	testUser = "alice-user"
	testPass = "s3cret-Pa55word"
)

// saslCluster starts a one-broker sim requiring SASL for mech, optionally
// over TLS, and returns its address and the client TLS config (nil
// without TLS).
func saslCluster(t *testing.T, mech string, useTLS bool, opts ...sim.Option) (string, *tls.Config) {
	t.Helper()
	opts = append([]sim.Option{sim.Brokers(1), sim.Topic("t", 1, 1), sim.SASL(mech, testUser, testPass)}, opts...)
	var cli *tls.Config
	if useTLS {
		ca, err := sim.NewTestCA()
		require.NoError(t, err)
		opts = append(opts, sim.TLS(ca.ServerConfig()))
		cli = ca.ClientConfig()
	}
	c, err := sim.NewCluster(opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c.Addrs()[0], cli
}

// capture is a slog handler keeping every formatted record.
type capture struct {
	mu  *sync.Mutex
	buf *bytes.Buffer
	h   slog.Handler
}

func newCapture() *capture {
	c := &capture{mu: &sync.Mutex{}, buf: &bytes.Buffer{}}
	c.h = slog.NewTextHandler(c.buf, &slog.HandlerOptions{Level: slog.LevelDebug})
	return c
}

func (c *capture) Enabled(context.Context, slog.Level) bool { return true }
func (c *capture) Handle(ctx context.Context, r slog.Record) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.h.Handle(ctx, r)
}
func (c *capture) WithAttrs(as []slog.Attr) slog.Handler {
	return &capture{mu: c.mu, buf: c.buf, h: c.h.WithAttrs(as)}
}
func (c *capture) WithGroup(g string) slog.Handler {
	return &capture{mu: c.mu, buf: c.buf, h: c.h.WithGroup(g)}
}
func (c *capture) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}

func metadataOK(t *testing.T, c *Conn) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req := kmsg.NewPtrMetadataRequest()
	resp, err := c.Request(ctx, req)
	require.NoError(t, err)
	require.Len(t, resp.(*kmsg.MetadataResponse).Brokers, 1)
}

func TestSASLMechanismsAgainstSim(t *testing.T) {
	base := runtime.NumGoroutine()
	for _, mech := range []string{MechanismPlain, MechanismScramSHA256, MechanismScramSHA512} {
		for _, useTLS := range []bool{false, true} {
			name := mech + "/tcp"
			if useTLS {
				name = mech + "/tls"
			}
			t.Run(name, func(t *testing.T) {
				addr, tc := saslCluster(t, mech, useTLS)
				m, err := NewSASLMechanism(strings.ToLower(mech), testUser, testPass)
				require.NoError(t, err)
				logs := newCapture()
				c, err := Dial(context.Background(), addr, ConnConfig{TLS: tc, Authenticate: SASL(m), Logger: slog.New(logs)})
				require.NoError(t, err)
				metadataOK(t, c)
				require.Zero(t, c.SessionLifetime())
				require.NoError(t, c.Close())
				require.Contains(t, logs.String(), "SASL authenticated")
				require.NotContains(t, logs.String(), testPass)
				require.NotContains(t, logs.String(), testUser)
			})
		}
	}
	checkNoLeak(t, base)
}

func TestSASLWrongPassword(t *testing.T) {
	for _, mech := range []string{MechanismPlain, MechanismScramSHA256, MechanismScramSHA512} {
		t.Run(mech, func(t *testing.T) {
			addr, _ := saslCluster(t, mech, false)
			m, err := NewSASLMechanism(mech, testUser, "wrong-"+testPass)
			require.NoError(t, err)
			logs := newCapture()
			_, err = Dial(context.Background(), addr, ConnConfig{Authenticate: SASL(m), Logger: slog.New(logs)})
			require.ErrorIs(t, err, ErrAuthentication)
			require.ErrorIs(t, err, ErrSaslAuthenticationFailed)
			var se *SASLError
			require.ErrorAs(t, err, &se)
			require.Equal(t, addr, se.Addr)
			require.Equal(t, mech, se.Mechanism)
			require.False(t, IsRetriable(err))
			for _, s := range []string{err.Error(), logs.String()} {
				require.NotContains(t, s, testPass)
				require.NotContains(t, s, testUser)
			}
			require.Contains(t, err.Error(), addr)
		})
	}
}

func TestSASLUnknownUser(t *testing.T) {
	addr, _ := saslCluster(t, MechanismScramSHA256, false)
	_, err := Dial(context.Background(), addr, ConnConfig{Authenticate: SASL(SASLScramSHA256("bob", testPass))})
	require.ErrorIs(t, err, ErrAuthentication)
}

func TestSASLWrongMechanism(t *testing.T) {
	addr, _ := saslCluster(t, MechanismScramSHA512, false)
	_, err := Dial(context.Background(), addr, ConnConfig{Authenticate: SASL(SASLPlain(testUser, testPass))})
	require.ErrorIs(t, err, ErrAuthentication)
	require.ErrorIs(t, err, ErrUnsupportedSaslMechanism)
	require.Contains(t, err.Error(), MechanismScramSHA512) // what the broker offers
	require.NotContains(t, err.Error(), testPass)
}

func TestSASLWithoutBrokerSASL(t *testing.T) {
	// A broker that does not require SASL answers the handshake with
	// ILLEGAL_SASL_STATE: a configuration mismatch, not retriable.
	c, err := sim.NewCluster(sim.Brokers(1))
	require.NoError(t, err)
	defer c.Close()
	_, err = Dial(context.Background(), c.Addrs()[0], ConnConfig{Authenticate: SASL(SASLPlain(testUser, testPass))})
	require.ErrorIs(t, err, ErrAuthentication)
	require.ErrorIs(t, err, ErrIllegalSaslState)
}

func TestSASLRequiredButNotConfigured(t *testing.T) {
	addr, _ := saslCluster(t, MechanismPlain, false)
	c, err := Dial(context.Background(), addr, ConnConfig{})
	require.NoError(t, err) // ApiVersions is allowed before SASL
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = c.Request(ctx, kmsg.NewPtrMetadataRequest())
	require.Error(t, err) // the broker closes the connection
}

func TestTLSHandshakeFailureNamesBroker(t *testing.T) {
	addr, _ := saslCluster(t, MechanismPlain, true)
	other, err := sim.NewTestCA()
	require.NoError(t, err)
	_, err = Dial(context.Background(), addr, ConnConfig{TLS: other.ClientConfig(), Authenticate: SASL(SASLPlain(testUser, testPass))})
	require.Error(t, err)
	require.Contains(t, err.Error(), addr)
	require.Contains(t, err.Error(), "TLS handshake")
	require.NotErrorIs(t, err, ErrAuthentication)
}

func TestSASLReauthenticatesBeforeExpiry(t *testing.T) {
	for _, mech := range []string{MechanismPlain, MechanismScramSHA256} {
		t.Run(mech, func(t *testing.T) { synctest.Test(t, func(t *testing.T) { reauthBeforeExpiry(t, mech) }) })
	}
}

// reauthBeforeExpiry runs in a synctest bubble over an in-memory network:
// re-authentication starts at 80–90% of a 1 s session, and on virtual time
// the 100–200 ms left are what the protocol has, however loaded the
// machine (on real time a starved timer or SCRAM's key derivation under
// -race could take them all, and the broker then rightly closes the
// connection).
func reauthBeforeExpiry(t *testing.T, mech string) {
	const lifetime = time.Second
	mn := memnet.New(1)
	sc, err := sim.NewCluster(sim.Brokers(1), sim.Topic("t", 1, 1), sim.SASL(mech, testUser, testPass),
		sim.SessionLifetime(lifetime), sim.Network(mn))
	require.NoError(t, err)
	t.Cleanup(func() { _ = sc.Close() })
	addr := sc.Addrs()[0]
	base := runtime.NumGoroutine()
	m, _ := NewSASLMechanism(mech, testUser, testPass)
	logs := newCapture()
	c, err := Dial(context.Background(), addr, ConnConfig{Dial: mn.Dial, Authenticate: SASL(m), Logger: slog.New(logs), MaxInFlight: 8})
	require.NoError(t, err)
	require.Equal(t, lifetime, c.SessionLifetime())
	// Keep requests pipelined across several session lifetimes:
	// the broker closes the connection on the first request after
	// an expiry and on any request inside a handshake.
	deadline := time.Now().Add(3*lifetime + lifetime/2)
	var wg sync.WaitGroup
	errs := make(chan error, 1024)
	sent := 0
	for time.Now().Before(deadline) && c.Err() == nil {
		wg.Add(1)
		err := c.Send(context.Background(), kmsg.NewPtrMetadataRequest(), func(_ kmsg.Response, err error) {
			if err != nil {
				select {
				case errs <- err:
				default:
				}
			}
			wg.Done()
		})
		if err != nil {
			wg.Done()
			require.NoError(t, err)
		}
		sent++
		if sent%50 == 0 {
			time.Sleep(time.Millisecond) // keep the machine responsive
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.NoError(t, c.Err())
	require.GreaterOrEqual(t, c.Reauthentications(), 2, "sent %d", sent)
	require.NoError(t, c.Close())
	require.Contains(t, logs.String(), "SASL re-authenticated")
	require.NotContains(t, logs.String(), testPass)
	checkNoLeak(t, base)
}

func TestSASLReauthFailureClosesConn(t *testing.T) {
	// After the first login the broker refuses re-authentication (a
	// lifetime is announced, then the handshake is refused).
	f := newFakeBroker(t)
	var mu sync.Mutex
	handshakes := 0
	f.handle = func(req kmsg.Request) kmsg.Response {
		switch r := req.(type) {
		case *kmsg.SASLHandshakeRequest:
			resp := r.ResponseKind().(*kmsg.SASLHandshakeResponse)
			mu.Lock()
			handshakes++
			if handshakes > 1 {
				resp.ErrorCode = int16(kafkaerr.IllegalSaslState)
			}
			mu.Unlock()
			return resp
		case *kmsg.SASLAuthenticateRequest:
			resp := r.ResponseKind().(*kmsg.SASLAuthenticateResponse)
			resp.SessionLifetimeMillis = 50
			return resp
		}
		return req.ResponseKind()
	}
	c, err := Dial(context.Background(), f.listen(), ConnConfig{Authenticate: SASL(SASLPlain(testUser, testPass))})
	require.NoError(t, err)
	defer c.Close()
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("connection not closed after the failed re-authentication")
	}
	require.ErrorIs(t, c.Err(), ErrAuthentication)
	require.ErrorIs(t, c.Err(), ErrIllegalSaslState)
	var se *SASLError
	require.ErrorAs(t, c.Err(), &se)
	require.True(t, se.Reauthentication)
	_, err = c.Request(context.Background(), kmsg.NewPtrMetadataRequest())
	require.ErrorIs(t, err, ErrNotWritten)
	require.ErrorIs(t, err, ErrAuthentication)
}

func TestSASLCloseCancelsScheduledReauth(t *testing.T) {
	addr, _ := saslCluster(t, MechanismPlain, false, sim.SessionLifetime(time.Hour))
	base := runtime.NumGoroutine()
	c, err := Dial(context.Background(), addr, ConnConfig{Authenticate: SASL(SASLPlain(testUser, testPass))})
	require.NoError(t, err)
	require.Equal(t, time.Hour, c.SessionLifetime())
	require.NoError(t, c.Close())
	c.mu.Lock()
	require.Nil(t, c.reauth.timer)
	c.mu.Unlock()
	checkNoLeak(t, base)
}

func TestNewSASLMechanismUnknown(t *testing.T) {
	_, err := NewSASLMechanism("GSSAPI", testUser, testPass)
	require.ErrorIs(t, err, ErrUnknownMechanism)
	require.NotContains(t, err.Error(), testPass)
}

func TestSASLMechanismFormattingHidesCredentials(t *testing.T) {
	for _, m := range []SASLMechanism{SASLPlain(testUser, testPass), SASLScramSHA256(testUser, testPass), SASLScramSHA512(testUser, testPass)} {
		var buf bytes.Buffer
		l := slog.New(slog.NewTextHandler(&buf, nil))
		l.Info("m", "mech", m)
		for _, s := range []string{buf.String(), fmtAll(m)} {
			require.NotContains(t, s, testPass)
			require.NotContains(t, s, testUser)
			require.Contains(t, s, m.Name())
		}
	}
}

func TestSASLBrokerMessageRedacted(t *testing.T) {
	f := newFakeBroker(t)
	f.handle = func(req kmsg.Request) kmsg.Response {
		switch r := req.(type) {
		case *kmsg.SASLHandshakeRequest:
			return r.ResponseKind()
		case *kmsg.SASLAuthenticateRequest:
			resp := r.ResponseKind().(*kmsg.SASLAuthenticateResponse)
			resp.ErrorCode = int16(kafkaerr.SaslAuthenticationFailed)
			msg := "bad password " + testPass + " for " + testUser
			resp.ErrorMessage = &msg
			return resp
		}
		return nil
	}
	_, err := Dial(context.Background(), f.listen(), ConnConfig{Authenticate: SASL(SASLPlain(testUser, testPass))})
	require.ErrorIs(t, err, ErrSaslAuthenticationFailed)
	require.NotContains(t, err.Error(), testPass)
	require.NotContains(t, err.Error(), testUser)
	require.Contains(t, err.Error(), "[redacted]")
}

func TestSASLHandshakeV0OnlyBroker(t *testing.T) {
	f := newFakeBroker(t)
	f.versions = map[int16]VersionRange{18: {0, 3}, 17: {0, 0}, 3: {0, 12}}
	_, err := Dial(context.Background(), f.listen(), ConnConfig{Authenticate: SASL(SASLPlain(testUser, testPass))})
	require.ErrorIs(t, err, ErrAuthentication)
	require.ErrorIs(t, err, ErrUnsupportedVersion)
}

func TestSASLConnLostIsNotAuthFailure(t *testing.T) {
	f := newFakeBroker(t)
	f.handle = func(req kmsg.Request) kmsg.Response {
		if _, ok := req.(*kmsg.SASLHandshakeRequest); ok {
			go f.dropConns()
		}
		return nil
	}
	_, err := Dial(context.Background(), f.listen(), ConnConfig{Authenticate: SASL(SASLPlain(testUser, testPass)), DialTimeout: 5 * time.Second})
	require.Error(t, err)
	require.NotErrorIs(t, err, ErrAuthentication)
}

func TestSASLNeverEndingExchange(t *testing.T) {
	f := newFakeBroker(t)
	f.handle = func(req kmsg.Request) kmsg.Response { return req.ResponseKind() }
	_, err := Dial(context.Background(), f.listen(), ConnConfig{Authenticate: SASL(endless{})})
	require.ErrorIs(t, err, ErrAuthentication)
	require.Contains(t, err.Error(), "rounds")
}

// endless is a mechanism that never finishes.
type endless struct{}

func (endless) Name() string                 { return "ENDLESS" }
func (endless) Start() (SASLExchange, error) { return endless{}, nil }
func (endless) Step([]byte) ([]byte, bool, error) {
	return []byte("more"), false, nil
}

func TestSASLMechanismStepError(t *testing.T) {
	f := newFakeBroker(t)
	f.handle = func(req kmsg.Request) kmsg.Response { return req.ResponseKind() }
	_, err := Dial(context.Background(), f.listen(), ConnConfig{Authenticate: SASL(failing{})})
	require.ErrorIs(t, err, ErrAuthentication)
	require.ErrorIs(t, err, errFailing)
}

var errFailing = errors.New("mechanism gives up")

type failing struct{}

func (failing) Name() string                 { return "FAILING" }
func (failing) Start() (SASLExchange, error) { return &failingExchange{}, nil }

type failingExchange struct{ n int }

func (e *failingExchange) Step([]byte) ([]byte, bool, error) {
	e.n++
	if e.n == 1 {
		return []byte("x"), false, nil
	}
	return nil, false, errFailing
}

func fmtAll(m SASLMechanism) string {
	return fmt.Sprintf("%v %+v %#v %s", m, m, m, m)
}

// BenchmarkDialSASL measures a full dial (TCP, ApiVersions, SASL) per
// mechanism against the sim.
func BenchmarkDialSASL(b *testing.B) {
	for _, mech := range []string{MechanismPlain, MechanismScramSHA256, MechanismScramSHA512} {
		b.Run(mech, func(b *testing.B) {
			c, err := sim.NewCluster(sim.Brokers(1), sim.SASL(mech, testUser, testPass))
			require.NoError(b, err)
			defer c.Close()
			m, _ := NewSASLMechanism(mech, testUser, testPass)
			cfg := ConnConfig{Authenticate: SASL(m)}
			for b.Loop() {
				conn, err := Dial(context.Background(), c.Addrs()[0], cfg)
				if err != nil {
					b.Fatal(err)
				}
				_ = conn.Close()
			}
		})
	}
}
