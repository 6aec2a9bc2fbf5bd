package protocol

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/sim"
)

// oauthCluster starts a one-broker sim with OAUTHBEARER (Kafka's unsecured
// JWS validator), optionally over TLS.
func oauthCluster(t *testing.T, useTLS bool, opts ...sim.Option) (string, *ConnConfig) {
	t.Helper()
	opts = append([]sim.Option{sim.Brokers(1), sim.Topic("t", 1, 1), sim.SASLOAuthBearer()}, opts...)
	cfg := &ConnConfig{}
	if useTLS {
		ca, err := sim.NewTestCA()
		require.NoError(t, err)
		opts = append(opts, sim.TLS(ca.ServerConfig()))
		cfg.TLS = ca.ClientConfig()
	}
	c, err := sim.NewCluster(opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c.Addrs()[0], cfg
}

// staticToken provides a token for sub valid for d, counting calls.
type tokenSource struct {
	mu    sync.Mutex
	calls int
	make  func(n int) (OAuthBearerToken, error)
}

func (s *tokenSource) provide(ctx context.Context) (OAuthBearerToken, error) {
	s.mu.Lock()
	s.calls++
	n := s.calls
	s.mu.Unlock()
	return s.make(n)
}

func (s *tokenSource) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

func jwt(sub string, d time.Duration) OAuthBearerToken {
	now := time.Now()
	return OAuthBearerToken{Value: sim.UnsecuredJWT(sub, now, now.Add(d), nil), Principal: sub, Expiry: now.Add(d)}
}

func TestOAuthBearerAgainstSim(t *testing.T) {
	base := runtime.NumGoroutine()
	for _, useTLS := range []bool{false, true} {
		t.Run(fmt.Sprintf("tls=%v", useTLS), func(t *testing.T) {
			addr, cfg := oauthCluster(t, useTLS)
			src := &tokenSource{make: func(int) (OAuthBearerToken, error) {
				tok := jwt("alice", time.Hour)
				tok.Extensions = map[string]string{"traceId": "abc 123", "logicalCluster": "lkc-1"}
				return tok, nil
			}}
			m := SASLOAuthBearer(src.provide)
			logs := newCapture()
			cfg.Authenticate, cfg.Logger = SASL(m), slog.New(logs)
			for range 3 {
				c, err := Dial(context.Background(), addr, *cfg)
				require.NoError(t, err)
				metadataOK(t, c)
				// The session ends when the token expires (Kafka sends
				// its remaining lifetime).
				require.InDelta(t, time.Hour.Seconds(), c.SessionLifetime().Seconds(), 5)
				require.NoError(t, c.Close())
			}
			require.Equal(t, 1, src.count(), "a young token is reused by new connections")
			require.Contains(t, logs.String(), "principal=alice")
		})
	}
	checkNoLeak(t, base)
}

func TestOAuthBearerFirstMessage(t *testing.T) {
	ex := &oauthExchange{m: &oauthMechanism{now: time.Now}, tok: OAuthBearerToken{Value: "a.b.", Extensions: map[string]string{"zz": "1", "aa": "x y"}}}
	msg, done, err := ex.Step(nil)
	require.NoError(t, err)
	require.False(t, done)
	require.Equal(t, "n,,\x01auth=Bearer a.b.\x01aa=x y\x01zz=1\x01\x01", string(msg))
	_, done, err = ex.Step(nil)
	require.NoError(t, err)
	require.True(t, done, "an empty server answer completes the exchange")
}

// TestOAuthBearerRejectedToken: each token Kafka's unsecured validator
// refuses gives a one-line error matching ErrTokenRejected and
// ErrAuthentication, naming the broker's status and never the token.
func TestOAuthBearerRejectedToken(t *testing.T) {
	addr, cfg := oauthCluster(t, false)
	now := time.Now()
	unsigned := func(claims string) string {
		return b64url(`{"alg":"none"}`) + "." + b64url(claims) + "."
	}
	t.Run("expired", func(t *testing.T) {
		// The client reads the JWT's "exp" claim (its Expiry is zero
		// here) and never presents a token past it: a provider failure,
		// not final, and the broker is not asked.
		tok := OAuthBearerToken{Value: sim.UnsecuredJWT("alice", now.Add(-time.Hour), now.Add(-time.Minute), nil), Principal: "alice"}
		cfg := *cfg
		cfg.Authenticate = SASL(SASLOAuthBearer(func(context.Context) (OAuthBearerToken, error) { return tok, nil }))
		_, err := Dial(context.Background(), addr, cfg)
		require.ErrorIs(t, err, ErrTokenProvider)
		require.NotErrorIs(t, err, ErrAuthentication)
		require.Contains(t, err.Error(), "the token expired at")
		require.NotContains(t, err.Error(), tok.Value)
	})
	for name, tc := range map[string]struct {
		tok     string
		expired bool
	}{
		"no sub":           {tok: sim.UnsecuredJWT("", now, now.Add(time.Hour), nil)},
		"no exp":           {tok: sim.UnsecuredJWT("alice", now, time.Time{}, nil)},
		"issued in future": {tok: sim.UnsecuredJWT("alice", now.Add(time.Hour), now.Add(2*time.Hour), nil)},
		"signed":           {tok: sim.UnsecuredJWT("alice", now, now.Add(time.Hour), nil) + "c2ln"},
		"alg HS256":        {tok: b64url(`{"alg":"HS256"}`) + "." + b64url(fmt.Sprintf(`{"sub":"a","exp":%d}`, now.Add(time.Hour).Unix())) + "."},
		"sub not a string": {tok: unsigned(fmt.Sprintf(`{"sub":7,"exp":%d}`, now.Add(time.Hour).Unix()))},
		"not JSON":         {tok: b64url("{") + "." + b64url("{") + "."},
		"two parts":        {tok: "abc.def"},
	} {
		t.Run(name, func(t *testing.T) {
			tok := OAuthBearerToken{Value: tc.tok}
			if tc.expired {
				// Expiry unknown to the client (zero), so it is sent and
				// the broker judges it.
				tok.Principal = "alice"
			}
			cfg := *cfg
			cfg.Authenticate = SASL(SASLOAuthBearer(func(context.Context) (OAuthBearerToken, error) { return tok, nil }))
			began := time.Now()
			_, err := Dial(context.Background(), addr, cfg)
			require.Less(t, time.Since(began), 5*time.Second)
			require.ErrorIs(t, err, ErrTokenRejected)
			require.ErrorIs(t, err, ErrAuthentication)
			require.ErrorIs(t, err, ErrSaslAuthenticationFailed)
			require.NotErrorIs(t, err, ErrTokenProvider)
			require.Contains(t, err.Error(), `status "invalid_token"`)
			require.NotContains(t, err.Error(), "\n")
			require.NotContains(t, err.Error(), tc.tok)
		})
	}
}

func b64url(s string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(s))
}

// TestOAuthBearerProviderFailure: a failing provider is not the broker's
// refusal: ErrTokenProvider, not ErrAuthentication (the dial may be
// retried), unless the provider says its failure is final.
func TestOAuthBearerProviderFailure(t *testing.T) {
	addr, cfg := oauthCluster(t, false)
	idpDown := errors.New("identity provider unreachable")
	dial := func(p OAuthBearerTokenProvider) error {
		cfg := *cfg
		cfg.Authenticate = SASL(SASLOAuthBearer(p))
		c, err := Dial(context.Background(), addr, cfg)
		if err == nil {
			_ = c.Close()
		}
		return err
	}
	err := dial(func(context.Context) (OAuthBearerToken, error) { return OAuthBearerToken{}, idpDown })
	require.ErrorIs(t, err, ErrTokenProvider)
	require.ErrorIs(t, err, idpDown)
	require.NotErrorIs(t, err, ErrAuthentication)
	require.Contains(t, err.Error(), "identity provider unreachable")

	final := fmt.Errorf("%w: client secret revoked", ErrAuthentication)
	err = dial(func(context.Context) (OAuthBearerToken, error) { return OAuthBearerToken{}, final })
	require.ErrorIs(t, err, ErrTokenProvider)
	require.ErrorIs(t, err, ErrAuthentication)

	err = dial(nil)
	require.ErrorIs(t, err, ErrTokenProvider)

	for name, tok := range map[string]OAuthBearerToken{
		"empty":             {},
		"spaces":            {Value: "a b"},
		"expired":           {Value: "abc", Expiry: time.Now().Add(-time.Second)},
		"reserved ext":      {Value: "abc", Extensions: map[string]string{"auth": "x"}},
		"bad ext name":      {Value: "abc", Extensions: map[string]string{"a1": "x"}},
		"control ext value": {Value: "abc", Extensions: map[string]string{"a": "\x01"}},
	} {
		err := dial(func(context.Context) (OAuthBearerToken, error) { return tok, nil })
		require.ErrorIs(t, err, ErrTokenProvider, name)
		require.NotErrorIs(t, err, ErrAuthentication, name)
	}

	// The provider is bounded by the dial's context.
	cfg2 := *cfg
	cfg2.DialTimeout = 200 * time.Millisecond
	cfg2.Authenticate = SASL(SASLOAuthBearer(func(ctx context.Context) (OAuthBearerToken, error) {
		<-ctx.Done()
		return OAuthBearerToken{}, ctx.Err()
	}))
	began := time.Now()
	_, err = Dial(context.Background(), addr, cfg2)
	require.ErrorIs(t, err, ErrTokenProvider)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Less(t, time.Since(began), 5*time.Second)
}

// TestOAuthBearerRefreshesAgedToken: a token past 80% of its lifetime is
// replaced for the next connection; a rejected one is never reused.
func TestOAuthBearerRefreshesAgedToken(t *testing.T) {
	addr, cfg := oauthCluster(t, false)
	var clock atomic.Int64
	clock.Store(time.Now().UnixNano())
	src := &tokenSource{make: func(int) (OAuthBearerToken, error) { return jwt("alice", time.Hour), nil }}
	m := SASLOAuthBearer(src.provide).(*oauthMechanism)
	m.now = func() time.Time { return time.Unix(0, clock.Load()) }
	cfg.Authenticate = SASL(m)
	dial := func() {
		c, err := Dial(context.Background(), addr, *cfg)
		require.NoError(t, err)
		require.NoError(t, c.Close())
	}
	dial()
	clock.Add(int64(47 * time.Minute))
	dial()
	require.Equal(t, 1, src.count())
	clock.Add(int64(2 * time.Minute)) // 49 of 60 minutes: past 80%
	dial()
	require.Equal(t, 2, src.count())

	// A token the broker refuses is dropped from the cache. (The fake
	// clock runs ahead of the sim's: tokens valid by it are valid there.)
	bad := true
	src.make = func(int) (OAuthBearerToken, error) {
		now := m.now()
		if bad {
			return OAuthBearerToken{Value: "x.y.", Expiry: now.Add(time.Hour)}, nil
		}
		return OAuthBearerToken{Value: sim.UnsecuredJWT("alice", time.Now(), now.Add(time.Hour), nil), Expiry: now.Add(time.Hour)}, nil
	}
	clock.Add(int64(time.Hour))
	_, err := Dial(context.Background(), addr, *cfg)
	require.ErrorIs(t, err, ErrTokenRejected)
	bad = false
	dial()
	require.Equal(t, 4, src.count())
}

// TestOAuthBearerReauthenticatesWithNewToken: the broker ends the session
// when the token expires; the connection re-authenticates before that
// with a new token from the provider and keeps serving.
func TestOAuthBearerReauthenticatesWithNewToken(t *testing.T) {
	addr, cfg := oauthCluster(t, false)
	const life = 2 * time.Second
	src := &tokenSource{make: func(int) (OAuthBearerToken, error) { return jwt("alice", life), nil }}
	logs := newCapture()
	cfg.Authenticate, cfg.Logger = SASL(SASLOAuthBearer(src.provide)), slog.New(logs)
	c, err := Dial(context.Background(), addr, *cfg)
	require.NoError(t, err)
	defer c.Close()
	require.LessOrEqual(t, c.SessionLifetime(), life)
	deadline := time.Now().Add(life * 22 / 10)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := c.Request(ctx, kmsg.NewPtrMetadataRequest())
		cancel()
		require.NoError(t, err)
		time.Sleep(20 * time.Millisecond)
	}
	require.GreaterOrEqual(t, c.Reauthentications(), 2)
	require.GreaterOrEqual(t, src.count(), 3, "every re-authentication asks for a new token")
	require.Contains(t, logs.String(), "SASL re-authenticated")
}

// TestOAuthBearerReauthChangingPrincipalFails: Kafka refuses a
// re-authentication under another principal; the connection closes with a
// *SASLError.
func TestOAuthBearerReauthChangingPrincipalFails(t *testing.T) {
	addr, cfg := oauthCluster(t, false)
	src := &tokenSource{make: func(n int) (OAuthBearerToken, error) {
		return jwt(fmt.Sprintf("user-%d", n), 400*time.Millisecond), nil
	}}
	cfg.Authenticate = SASL(SASLOAuthBearer(src.provide))
	c, err := Dial(context.Background(), addr, *cfg)
	require.NoError(t, err)
	defer c.Close()
	select {
	case <-c.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the connection survived a re-authentication under another principal")
	}
	var se *SASLError
	require.ErrorAs(t, c.Err(), &se)
	require.True(t, se.Reauthentication)
}

func TestOAuthBearerFormattingHidesToken(t *testing.T) {
	m := SASLOAuthBearer(func(context.Context) (OAuthBearerToken, error) { return jwt("alice", time.Hour), nil })
	require.Equal(t, "OAUTHBEARER", fmt.Sprint(m))
	require.NotContains(t, fmt.Sprintf("%#v", m), "ey")
}

// TestOAuthBearerReauthNeedsFresherToken: a provider that keeps returning
// the token a session was opened with (its "exp" claim whole seconds)
// never makes the connection re-authenticate with it — which would open
// ever shorter sessions, in a burst, until the token expired and the
// broker refused it. The re-authentication is postponed, and before the
// session ends the connection is closed once idle with a non-final error
// (ErrNoFresherToken, not ErrAuthentication), so its requests go on a new
// connection.
func TestOAuthBearerReauthNeedsFresherToken(t *testing.T) {
	addr, cfg := oauthCluster(t, false)
	exp := time.Unix(time.Now().Add(2500*time.Millisecond).Unix(), 0) // 1.5-2.5 s away
	tok := OAuthBearerToken{Value: sim.UnsecuredJWT("alice", time.Now(), exp, nil), Principal: "alice", Expiry: exp.Add(900 * time.Millisecond)}
	var calls atomic.Int32
	cfg.Authenticate = SASL(SASLOAuthBearer(func(ctx context.Context) (OAuthBearerToken, error) {
		calls.Add(1)
		return tok, nil
	}))
	c, err := Dial(context.Background(), addr, *cfg)
	require.NoError(t, err)
	defer c.Close()
	require.Positive(t, c.SessionLifetime())
	<-c.Done()
	require.False(t, time.Now().After(exp), "closed before the token's exp claim")
	require.Zero(t, c.Reauthentications(), "never re-authenticated with the same token")
	require.ErrorIs(t, c.Err(), ErrNoFresherToken)
	require.NotErrorIs(t, c.Err(), ErrAuthentication)
	require.LessOrEqual(t, calls.Load(), int32(8), "the provider asked a few times, halving the time left")
}

// TestTokenExpiry: a JWT's "exp" claim bounds a token's Expiry.
func TestTokenExpiry(t *testing.T) {
	now := time.Now()
	claim := time.Unix(now.Add(time.Hour).Unix(), 0)
	jwt := sim.UnsecuredJWT("a", now, claim, nil)
	require.Equal(t, claim, TokenExpiry(OAuthBearerToken{Value: jwt}).Local())
	require.Equal(t, claim, TokenExpiry(OAuthBearerToken{Value: jwt, Expiry: claim.Add(time.Second)}).Local())
	require.Equal(t, claim.Add(-time.Second), TokenExpiry(OAuthBearerToken{Value: jwt, Expiry: claim.Add(-time.Second)}))
	require.True(t, TokenExpiry(OAuthBearerToken{Value: "opaque"}).IsZero())
	_, ok := TokenNeededAfter(context.Background())
	require.False(t, ok)
}
