package client_test

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/protocol"
	"github.com/rollsafe/rollsafe/sim"
)

// oauthCluster is a 3-broker sim over TLS with OAUTHBEARER (Kafka's
// unsecured JWS validator).
func oauthCluster(t *testing.T, opts ...sim.Option) (*sim.Cluster, client.Option, *tls.Config) {
	t.Helper()
	ca, err := sim.NewTestCA()
	require.NoError(t, err)
	opts = append([]sim.Option{sim.SASLOAuthBearer(), sim.TLS(ca.ServerConfig())}, opts...)
	return newCluster(t, 3, opts...), client.WithTLS(ca.ClientConfig()), ca.ClientConfig()
}

// tokens hands out unsecured JWTs for sub valid for life, counting calls.
type tokens struct {
	sub   string
	life  time.Duration
	calls atomic.Int32
}

func (k *tokens) provide(context.Context) (client.OAuthBearerToken, error) {
	k.calls.Add(1)
	now := time.Now()
	return client.OAuthBearerToken{Value: sim.UnsecuredJWT(k.sub, now, now.Add(k.life), nil), Principal: k.sub, Expiry: now.Add(k.life)}, nil
}

// TestOAuthBearerProduceReadBack produces across several token lifetimes:
// every connection re-authenticates with a new token before its session
// (the token) expires, and every record is in the log once.
func TestOAuthBearerProduceReadBack(t *testing.T) {
	c, tlsOpt, tc := oauthCluster(t)
	src := &tokens{sub: "producer-svc", life: 1500 * time.Millisecond}
	logs := newLogCapture()
	p := newProducer(t, c, tlsOpt, client.SASLOAuthBearer(src.provide), client.WithLogger(slog.New(logs)))
	r := newRun()
	ctx := context.Background()
	deadline := time.Now().Add(2 * src.life)
	n := 0
	for time.Now().Before(deadline) {
		r.produce(ctx, t, p, "t", fmt.Sprintf("s%d", n), 20, 10)
		n++
		time.Sleep(5 * time.Millisecond)
	}
	require.NoError(t, p.Flush(ctx))
	reader := &tokens{sub: "reader", life: time.Minute}
	rep := r.verifySecure(t, c, "t", protocol.ConnConfig{TLS: tc, Authenticate: protocol.SASL(protocol.SASLOAuthBearer(reader.provide))})
	require.Equal(t, 20*n, rep.Acked)
	require.Zero(t, rep.Failed)
	require.GreaterOrEqual(t, int(src.calls.Load()), 2, "the token was renewed")
	require.Contains(t, logs.String(), "SASL re-authenticated")
	require.NotContains(t, logs.String(), "eyJ", "no token in the logs")
}

func TestOAuthBearerRejectedTokenFailsRecords(t *testing.T) {
	c, tlsOpt, _ := oauthCluster(t)
	noSubject := func(context.Context) (client.OAuthBearerToken, error) {
		now := time.Now()
		return client.OAuthBearerToken{Value: sim.UnsecuredJWT("", now, now.Add(time.Hour), nil)}, nil
	}
	p := newProducer(t, c, tlsOpt, client.SASLOAuthBearer(noSubject), client.UnknownTopicWait(2*time.Second))
	err, took := produceOne(t, p)
	require.ErrorIs(t, err, client.ErrTokenRejected)
	require.ErrorIs(t, err, client.ErrAuthentication)
	require.ErrorIs(t, err, client.ErrNotWritten)
	require.Less(t, took, 5*time.Second)
	require.NotContains(t, err.Error(), "\n")
	require.Contains(t, err.Error(), `status "invalid_token"`)
}

// TestOAuthBearerExpiredTokenNeverSent: a provider returning a JWT past
// its "exp" claim is a provider failure (not final, ErrTokenProvider):
// the token never reaches the broker, which would refuse it for good.
func TestOAuthBearerExpiredTokenNeverSent(t *testing.T) {
	c, tlsOpt, _ := oauthCluster(t)
	expired := func(context.Context) (client.OAuthBearerToken, error) {
		now := time.Now()
		return client.OAuthBearerToken{Value: sim.UnsecuredJWT("svc", now.Add(-time.Hour), now.Add(-time.Minute), nil)}, nil
	}
	p := newProducer(t, c, tlsOpt, client.SASLOAuthBearer(expired), client.UnknownTopicWait(time.Second))
	err, _ := produceOne(t, p)
	require.ErrorIs(t, err, client.ErrNotWritten)
	require.ErrorIs(t, err, client.ErrTokenProvider)
	require.NotErrorIs(t, err, client.ErrAuthentication)
	require.NotErrorIs(t, err, client.ErrTokenRejected)
	require.Contains(t, err.Error(), "the token expired at")
}

func TestOAuthBearerProviderFailureFailsRecords(t *testing.T) {
	c, tlsOpt, _ := oauthCluster(t)
	idp := errors.New("identity provider unreachable")
	var calls atomic.Int32
	failing := func(context.Context) (client.OAuthBearerToken, error) {
		calls.Add(1)
		return client.OAuthBearerToken{}, idp
	}
	p := newProducer(t, c, tlsOpt, client.SASLOAuthBearer(failing), client.UnknownTopicWait(time.Second))
	err, took := produceOne(t, p)
	require.ErrorIs(t, err, client.ErrNotWritten)
	require.ErrorIs(t, err, client.ErrTokenProvider)
	require.ErrorIs(t, err, idp)
	require.NotErrorIs(t, err, client.ErrAuthentication)
	require.NotContains(t, err.Error(), "\n")
	require.Less(t, took, 10*time.Second)
	require.Greater(t, int(calls.Load()), 1, "the provider was asked again")
}

func TestOAuthBearerNilProviderIsConfigError(t *testing.T) {
	_, err := client.NewProducer(client.Brokers("127.0.0.1:9092"), client.SASLOAuthBearer(nil))
	require.ErrorIs(t, err, client.ErrInvalidConfig)
	require.True(t, strings.Contains(err.Error(), "SASLOAuthBearer: nil token provider"), err.Error())
}
