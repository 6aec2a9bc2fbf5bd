package client_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"github.com/rollsafe/rollsafe/sim/memnet"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/protocol"
	"github.com/rollsafe/rollsafe/sim"
)

const (
	saslUser = "producer-svc"
	saslPass = "Tr0ub4dor-and-3"
)

// logCapture is a slog handler keeping every formatted line, so tests can
// check that no credential is ever logged.
type logCapture struct {
	mu  *sync.Mutex
	buf *bytes.Buffer
	h   slog.Handler
}

func newLogCapture() *logCapture {
	c := &logCapture{mu: &sync.Mutex{}, buf: &bytes.Buffer{}}
	c.h = slog.NewTextHandler(c.buf, &slog.HandlerOptions{Level: slog.LevelDebug})
	return c
}

func (c *logCapture) Enabled(context.Context, slog.Level) bool { return true }
func (c *logCapture) Handle(ctx context.Context, r slog.Record) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.h.Handle(ctx, r)
}
func (c *logCapture) WithAttrs(as []slog.Attr) slog.Handler {
	return &logCapture{mu: c.mu, buf: c.buf, h: c.h.WithAttrs(as)}
}
func (c *logCapture) WithGroup(g string) slog.Handler {
	return &logCapture{mu: c.mu, buf: c.buf, h: c.h.WithGroup(g)}
}
func (c *logCapture) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}

// requireNoCredentials fails if s holds the test user or password.
func requireNoCredentials(t *testing.T, s, what string) {
	t.Helper()
	require.NotContains(t, s, saslPass, what)
	require.NotContains(t, s, saslUser, what)
}

// secureCluster starts a 3-broker sim requiring SASL mech, over TLS when
// useTLS; it returns the cluster and the client TLS config (nil: TCP).
func secureCluster(t *testing.T, mech string, useTLS bool, opts ...sim.Option) (*sim.Cluster, *tls.Config) {
	t.Helper()
	var cli *tls.Config
	opts = append([]sim.Option{sim.SASL(mech, saslUser, saslPass)}, opts...)
	if useTLS {
		ca, err := sim.NewTestCA()
		require.NoError(t, err)
		opts = append(opts, sim.TLS(ca.ServerConfig()))
		cli = ca.ClientConfig()
	}
	return newCluster(t, 3, opts...), cli
}

func saslOption(mech, user, pass string) client.Option {
	switch mech {
	case sim.MechPlain:
		return client.SASLPlain(user, pass)
	case sim.MechScramSHA256:
		return client.SASLScram256(user, pass)
	}
	return client.SASLScram512(user, pass)
}

// readSecure reads every record of topic back through a TLS/SASL
// connection configuration.
func readSecure(t *testing.T, addrs []string, topic string, cc protocol.ConnConfig) map[int32][]readback.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	log, err := readback.ReadTopicConn(ctx, addrs, topic, cc)
	require.NoError(t, err)
	return log
}

// verifySecure checks the run against the log read over cc.
func (r *run) verifySecure(t *testing.T, c *sim.Cluster, topic string, cc protocol.ConnConfig) readback.Report {
	t.Helper()
	r.wg.Wait()
	log := readSecure(t, c.Addrs(), topic, cc)
	r.mu.Lock()
	defer r.mu.Unlock()
	rep := readback.Check(log, r.produced, func(rec readback.Record) string { return string(rec.Value) })
	require.True(t, rep.OK(), "%s\n%s", rep, strings.Join(rep.Problems, "\n"))
	return rep
}

func TestSASLProduceReadBack(t *testing.T) {
	for _, mech := range []string{sim.MechPlain, sim.MechScramSHA256, sim.MechScramSHA512} {
		for _, useTLS := range []bool{false, true} {
			name := mech + "/tcp"
			if useTLS {
				name = mech + "/tls"
			}
			t.Run(name, func(t *testing.T) {
				c, tc := secureCluster(t, mech, useTLS)
				logs := newLogCapture()
				opts := []client.Option{saslOption(mech, saslUser, saslPass), client.WithLogger(slog.New(logs))}
				if tc != nil {
					opts = append(opts, client.WithTLS(tc))
				}
				p := newProducer(t, c, opts...)
				r := newRun()
				ctx := context.Background()
				r.produce(ctx, t, p, "t", name, 300, 10)
				require.NoError(t, p.Flush(ctx))
				m, err := protocol.NewSASLMechanism(mech, saslUser, saslPass)
				require.NoError(t, err)
				rep := r.verifySecure(t, c, "t", protocol.ConnConfig{TLS: tc, Authenticate: protocol.SASL(m)})
				require.Equal(t, 300, rep.Acked)
				require.Equal(t, 300, rep.InLog)
				requireNoCredentials(t, logs.String(), "producer logs")
			})
		}
	}
}

// produceOne produces one record and returns its outcome and how long it
// took.
func produceOne(t *testing.T, p *client.Producer) (error, time.Duration) {
	t.Helper()
	start := time.Now()
	done := make(chan error, 1)
	p.Produce(context.Background(), &client.Record{Topic: "t", Value: []byte("v")}, func(_ *client.Record, err error) { done <- err })
	select {
	case err := <-done:
		return err, time.Since(start)
	case <-time.After(20 * time.Second):
		t.Fatal("record not resolved")
		return nil, 0
	}
}

func TestSASLWrongCredentialsFailRecords(t *testing.T) {
	for name, opt := range map[string]client.Option{
		"wrong password":  client.SASLScram256(saslUser, "not-"+saslPass),
		"unknown user":    client.SASLScram256("mallory", saslPass),
		"wrong mechanism": client.SASLPlain(saslUser, saslPass),
	} {
		t.Run(name, func(t *testing.T) {
			c, _ := secureCluster(t, sim.MechScramSHA256, false)
			logs := newLogCapture()
			p := newProducer(t, c, opt, client.WithLogger(slog.New(logs)), client.UnknownTopicWait(2*time.Second))
			err, took := produceOne(t, p)
			require.ErrorIs(t, err, client.ErrAuthentication)
			require.ErrorIs(t, err, protocol.ErrAuthentication)
			// Bounded: no endless retry (the engine gives up on the
			// topic's metadata within UnknownTopicWait at the latest).
			require.Less(t, took, 5*time.Second)
			requireNoCredentials(t, err.Error(), "error text")
			requireNoCredentials(t, logs.String(), "producer logs")
			if name == "wrong mechanism" {
				require.ErrorIs(t, err, protocol.ErrUnsupportedSaslMechanism)
			} else {
				require.ErrorIs(t, err, protocol.ErrSaslAuthenticationFailed)
			}
		})
	}
}

func TestTLSUntrustedBrokerFailsWithAddress(t *testing.T) {
	c, _ := secureCluster(t, sim.MechPlain, true)
	other, err := sim.NewTestCA()
	require.NoError(t, err)
	logs := newLogCapture()
	p := newProducer(t, c, client.WithTLS(other.ClientConfig()), client.SASLPlain(saslUser, saslPass),
		client.WithLogger(slog.New(logs)), client.UnknownTopicWait(time.Second))
	err, _ = produceOne(t, p)
	require.Error(t, err)
	require.NotErrorIs(t, err, client.ErrAuthentication)
	require.Contains(t, err.Error(), "TLS handshake with 127.0.0.1:")
	requireNoCredentials(t, logs.String(), "producer logs")
}

// TestSASLSessionExpiryReauthenticates produces across several session
// lifetimes: connections re-authenticate in place, no connection is closed
// by the broker, every record is acknowledged once.
func TestSASLSessionExpiryReauthenticates(t *testing.T) {
	// Virtual time (a testing/synctest bubble on an in-memory network):
	// re-authentication starts at 80–90% of the lifetime, and how loaded
	// the machine is cannot eat into the rest.
	synctest.Test(t, sessionExpiryReauthenticates)
}

func sessionExpiryReauthenticates(t *testing.T) {
	const lifetime = time.Second
	mn := memnet.New(1)
	c, _ := secureCluster(t, sim.MechScramSHA512, false, sim.SessionLifetime(lifetime), sim.Network(mn))
	logs := newLogCapture()
	// Not newProducer: the bubble itself fails the test if a goroutine is
	// left behind.
	p, err := client.NewProducer(client.Brokers(c.Addrs()...), client.Linger(2*time.Millisecond),
		client.SASLScram512(saslUser, saslPass), client.WithLogger(slog.New(logs)), client.Dialer(mn.Dial), client.SyncTest(synctest.Wait))
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	r := newRun()
	ctx := context.Background()
	deadline := time.Now().Add(3 * lifetime)
	n := 0
	for time.Now().Before(deadline) {
		r.produce(ctx, t, p, "t", fmt.Sprintf("s%d", n), 20, 10)
		n++
		time.Sleep(5 * time.Millisecond)
	}
	require.NoError(t, p.Flush(ctx))
	m := protocol.SASLScramSHA512(saslUser, saslPass)
	rep := r.verifySecure(t, c, "t", protocol.ConnConfig{Authenticate: protocol.SASL(m), Dial: mn.Dial})
	require.Equal(t, 20*n, rep.Acked)
	require.Zero(t, rep.Failed)

	handshakes := map[string]int{}
	for _, e := range c.Recorder().Exchanges() {
		require.NotContains(t, e.Outcome, "closed", "broker %d conn %d %s", e.Broker, e.Conn, e.Outcome)
		if e.Key == 17 {
			handshakes[fmt.Sprintf("%d/%d", e.Broker, e.Conn)]++
		}
	}
	reauths := 0
	for _, h := range handshakes {
		reauths += h - 1
	}
	require.GreaterOrEqual(t, reauths, 2, "handshakes per connection: %v", handshakes)
	require.Contains(t, logs.String(), "SASL re-authenticated")
	requireNoCredentials(t, logs.String(), "producer logs")
}
