package kafkatest_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/kafkatest"
	"github.com/rollsafe/rollsafe/protocol"
	"github.com/rollsafe/rollsafe/sim"
)

// The secured cluster's users and listeners: one cluster serves every
// security test (SSL, SASL_SSL with PLAIN, SCRAM-SHA-512 and OAUTHBEARER,
// SASL_PLAINTEXT with OAUTHBEARER and SCRAM-SHA-512).
const (
	secUser = "producer-svc"
	secPass = "Tr0ub4dor-and-3"

	lnTLS     = "TLS"
	lnSASLTLS = "SASL_TLS"
	lnSASLTCP = "SASL_TCP"
)

func secureConfig() kafkatest.Config {
	return kafkatest.Config{
		Listeners: []kafkatest.Listener{
			{Name: lnTLS, Protocol: kafkatest.ProtocolSSL},
			{Name: lnSASLTLS, Protocol: kafkatest.ProtocolSASLSSL, Mechanisms: []string{
				kafkatest.MechanismPlain, kafkatest.MechanismScramSHA512, kafkatest.MechanismOAuthBearer}},
			{Name: lnSASLTCP, Protocol: kafkatest.ProtocolSASLPlaintext, Mechanisms: []string{
				kafkatest.MechanismOAuthBearer, kafkatest.MechanismScramSHA512}},
		},
		Users: map[string]string{secUser: secPass},
	}
}

// tokenSource hands out unsecured JWTs for sub, valid for life, counting
// how often it was asked.
type tokenSource struct {
	sub   string
	life  time.Duration
	calls atomic.Int32
}

func (s *tokenSource) provide(context.Context) (client.OAuthBearerToken, error) {
	s.calls.Add(1)
	now := time.Now()
	return client.OAuthBearerToken{Value: sim.UnsecuredJWT(s.sub, now, now.Add(s.life), nil), Principal: s.sub, Expiry: now.Add(s.life)}, nil
}

// countReauth is a slog handler counting the connections'
// re-authentications.
type countReauth struct{ n atomic.Int32 }

func (c *countReauth) Enabled(context.Context, slog.Level) bool { return true }
func (c *countReauth) Handle(_ context.Context, r slog.Record) error {
	if r.Message == "SASL re-authenticated" {
		c.n.Add(1)
	}
	return nil
}
func (c *countReauth) WithAttrs([]slog.Attr) slog.Handler { return c }
func (c *countReauth) WithGroup(string) slog.Handler      { return c }

// secCase is one way in: the listener, the producer's options and the
// read-back connection's configuration.
type secCase struct {
	name     string
	listener string
	opts     []client.Option
	conn     protocol.ConnConfig
	// produceFor keeps producing for at least this long (to outlive
	// tokens); zero produces one burst.
	produceFor time.Duration
	// dropAfter, when set, makes node 0's proxy on the listener drop every
	// connection from this long after production starts until twice as
	// long: the client reconnects through TLS and SASL again.
	dropAfter time.Duration
}

// TestSecurityOnRealKafka produces with rollsafe through each secured
// listener of one 3-node Kafka 4.4 cluster, reads every partition back
// through the same listener and checks that every acknowledged record is
// in the log exactly once, at its reported offset, in order; then checks
// that wrong credentials, a rejected token and an untrusted CA fail
// records with a typed one-line error, quickly.
func TestSecurityOnRealKafka(t *testing.T) {
	c := kafkatest.LaunchT(t, secureConfig())
	tc := c.TLSConfig()
	saslTLS := func(m protocol.SASLMechanism) protocol.ConnConfig {
		return protocol.ConnConfig{TLS: tc, Authenticate: protocol.SASL(m)}
	}
	oauth := &tokenSource{sub: "producer-svc", life: time.Hour}
	// Tokens of 6 s: Kafka ends a session when its token expires, so
	// every connection re-authenticates (KIP-368) with a new token about
	// every 5 s while production goes on.
	short := &tokenSource{sub: "producer-svc", life: 6 * time.Second}
	reauths := &countReauth{}
	reader := &tokenSource{sub: "reader", life: time.Hour}

	cases := []secCase{
		{name: "SSL", listener: lnTLS, opts: []client.Option{client.WithTLS(tc)}, conn: protocol.ConnConfig{TLS: tc}},
		{name: "SASL_SSL-PLAIN", listener: lnSASLTLS,
			opts: []client.Option{client.WithTLS(tc), client.SASLPlain(secUser, secPass)},
			conn: saslTLS(protocol.SASLPlain(secUser, secPass))},
		{name: "SASL_SSL-SCRAM-SHA-512", listener: lnSASLTLS,
			opts:       []client.Option{client.WithTLS(tc), client.SASLScram512(secUser, secPass)},
			conn:       saslTLS(protocol.SASLScramSHA512(secUser, secPass)),
			produceFor: 6 * time.Second, dropAfter: 2 * time.Second},
		{name: "SASL_SSL-OAUTHBEARER", listener: lnSASLTLS,
			opts: []client.Option{client.WithTLS(tc), client.SASLOAuthBearer(oauth.provide)},
			conn: saslTLS(protocol.SASLOAuthBearer(reader.provide))},
		{name: "SASL_PLAINTEXT-OAUTHBEARER-reauth", listener: lnSASLTCP,
			opts:       []client.Option{client.SASLOAuthBearer(short.provide), client.WithLogger(slog.New(reauths))},
			conn:       protocol.ConnConfig{Authenticate: protocol.SASL(protocol.SASLOAuthBearer(reader.provide))},
			produceFor: 14 * time.Second},
	}
	for _, sc := range cases {
		t.Run(sc.name, func(t *testing.T) { produceReadBack(t, c, sc) })
	}
	t.Logf("6 s tokens: %d asked for, %d re-authentications", short.calls.Load(), reauths.n.Load())
	if n := short.calls.Load(); n < 3 {
		t.Errorf("short-lived tokens asked for %d times, want at least 3 (re-authentication with new tokens)", n)
	}
	if n := reauths.n.Load(); n < 2 {
		t.Errorf("%d re-authentications, want at least 2 (Kafka ends the session when the token expires)", n)
	}

	t.Run("failures", func(t *testing.T) {
		other, err := sim.NewTestCA()
		if err != nil {
			t.Fatal(err)
		}
		expired := func(context.Context) (client.OAuthBearerToken, error) {
			now := time.Now()
			return client.OAuthBearerToken{Value: sim.UnsecuredJWT("svc", now.Add(-time.Hour), now.Add(-time.Minute), nil)}, nil
		}
		unsigned := func(context.Context) (client.OAuthBearerToken, error) {
			// A token without "sub": the validator refuses it.
			now := time.Now()
			return client.OAuthBearerToken{Value: sim.UnsecuredJWT("", now, now.Add(time.Hour), nil)}, nil
		}
		idp := errors.New("identity provider unreachable")
		for _, f := range []struct {
			name     string
			listener string
			opts     []client.Option
			want     []error
			not      []error
			text     string
		}{
			{"wrong password PLAIN", lnSASLTLS, []client.Option{client.WithTLS(tc), client.SASLPlain(secUser, "wrong")},
				[]error{client.ErrAuthentication, protocol.ErrSaslAuthenticationFailed, client.ErrNotWritten}, nil, "SASL_AUTHENTICATION_FAILED"},
			{"wrong password SCRAM-SHA-512", lnSASLTLS, []client.Option{client.WithTLS(tc), client.SASLScram512(secUser, "wrong")},
				[]error{client.ErrAuthentication, protocol.ErrSaslAuthenticationFailed, client.ErrNotWritten}, nil, "SCRAM-SHA-512"},
			{"unknown user SCRAM-SHA-512", lnSASLTCP, []client.Option{client.SASLScram512("mallory", secPass)},
				[]error{client.ErrAuthentication, client.ErrNotWritten}, nil, "SASL_AUTHENTICATION_FAILED"},
			{"mechanism not enabled", lnSASLTCP, []client.Option{client.SASLPlain(secUser, secPass)},
				[]error{client.ErrAuthentication, protocol.ErrUnsupportedSaslMechanism, client.ErrNotWritten}, nil, "UNSUPPORTED_SASL_MECHANISM"},
			// An expired token is never presented: a provider failure
			// (retried, not final), named.
			{"expired token", lnSASLTLS, []client.Option{client.WithTLS(tc), client.SASLOAuthBearer(expired)},
				[]error{client.ErrTokenProvider, client.ErrNotWritten}, []error{client.ErrAuthentication}, "the token expired at"},
			{"token without sub", lnSASLTCP, []client.Option{client.SASLOAuthBearer(unsigned)},
				[]error{client.ErrTokenRejected, client.ErrAuthentication, client.ErrNotWritten}, nil, `status "invalid_token"`},
			{"token provider fails", lnSASLTCP, []client.Option{client.SASLOAuthBearer(func(context.Context) (client.OAuthBearerToken, error) {
				return client.OAuthBearerToken{}, idp
			})}, []error{client.ErrTokenProvider, idp, client.ErrNotWritten}, []error{client.ErrAuthentication}, "identity provider unreachable"},
			{"untrusted CA", lnTLS, []client.Option{client.WithTLS(other.ClientConfig())},
				[]error{client.ErrNotWritten}, []error{client.ErrAuthentication}, "certificate signed by unknown authority"},
			{"plaintext to a TLS listener", lnTLS, nil,
				[]error{client.ErrNotWritten}, nil, "TLS"},
		} {
			t.Run(f.name, func(t *testing.T) {
				err, took := produceOneTo(t, c.ListenerAddrs(f.listener), f.opts...)
				t.Logf("after %v: %v", took.Round(time.Millisecond), err)
				if err == nil {
					t.Fatal("the record was acknowledged")
				}
				for _, w := range f.want {
					if !errors.Is(err, w) {
						t.Errorf("error does not match %v", w)
					}
				}
				for _, w := range f.not {
					if errors.Is(err, w) {
						t.Errorf("error matches %v", w)
					}
				}
				if s := err.Error(); strings.Contains(s, "\n") || !strings.Contains(s, f.text) || strings.Contains(s, secPass) {
					t.Errorf("error text is not one line naming %q without the password: %q", f.text, s)
				}
				if took > 15*time.Second {
					t.Errorf("took %v to fail", took)
				}
			})
		}
	})
}

// produceReadBack produces keyed records through sc's listener, reads the
// topic back through the same listener and checks the log.
func produceReadBack(t *testing.T, c *kafkatest.Cluster, sc secCase) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	topic := "sec-" + strings.ToLower(strings.NewReplacer("_", "-").Replace(sc.name))
	if err := c.CreateTopic(ctx, kafkatest.Topic{Name: topic, Partitions: 3, Replication: 3,
		Configs: map[string]string{"min.insync.replicas": "2"}}); err != nil {
		t.Fatal(err)
	}
	opts := append([]client.Option{client.Brokers(c.ListenerAddrs(sc.listener)...), client.Linger(5 * time.Millisecond)}, sc.opts...)
	p, err := client.NewProducer(opts...)
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu       sync.Mutex
		produced []readback.Produced
		index    = map[string]int{}
		errs     []error
		wg       sync.WaitGroup
	)
	done := func(r *client.Record, err error) {
		defer wg.Done()
		mu.Lock()
		defer mu.Unlock()
		pr := &produced[index[string(r.Value)]]
		pr.Partition = r.Partition
		if err != nil {
			pr.NotWritten = errors.Is(err, client.ErrNotWritten)
			errs = append(errs, err)
			return
		}
		pr.Acked, pr.Offset = true, r.Offset
	}
	began := time.Now()
	faultErr := make(chan error, 1)
	if sc.dropAfter > 0 {
		// The proxy in front of a secured listener drops connections
		// (a TLS and SASL client cannot connect meanwhile) and then
		// passes them again.
		px := c.ListenerProxy(sc.listener, 0)
		defer px.Heal()
		go func() {
			faultErr <- func() error {
				time.Sleep(sc.dropAfter)
				px.Set(kafkatest.Drop, 0)
				dctx, dcancel := context.WithTimeout(ctx, 5*time.Second)
				defer dcancel()
				if conn, err := protocol.Dial(dctx, px.Addr(), sc.conn); err == nil {
					conn.Close()
					return errors.New("a connection through the dropping proxy succeeded")
				}
				time.Sleep(sc.dropAfter)
				px.Heal()
				conn, err := protocol.Dial(dctx, px.Addr(), sc.conn)
				if err != nil {
					return fmt.Errorf("after healing the proxy: %w", err)
				}
				return conn.Close()
			}()
		}()
	} else {
		faultErr <- nil
	}
	n := 0
	for burst := 0; burst == 0 || time.Since(began) < sc.produceFor; burst++ {
		for i := range 1000 {
			id := fmt.Sprintf("%s-%d-%d", sc.name, burst, i)
			mu.Lock()
			index[id] = len(produced)
			produced = append(produced, readback.Produced{ID: id, Offset: -1})
			mu.Unlock()
			wg.Add(1)
			p.Produce(ctx, &client.Record{Topic: topic, Key: fmt.Appendf(nil, "k%d", i%30), Value: []byte(id)}, done)
			n++
		}
		if sc.produceFor > 0 {
			if err := p.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-faultErr; err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if len(errs) > 0 {
		t.Fatalf("%d of %d records failed, first: %v", len(errs), n, errs[0])
	}
	log, err := readback.ReadTopicConn(ctx, c.ListenerAddrs(sc.listener), topic, sc.conn)
	if err != nil {
		t.Fatal(err)
	}
	rep := readback.Check(log, produced, func(r readback.Record) string { return string(r.Value) })
	t.Logf("%s: %d records in %v; %s", sc.name, n, time.Since(began).Round(time.Millisecond), rep)
	if !rep.OK() || rep.Acked != n || rep.InLog != n {
		t.Fatalf("%s\n%s", rep, strings.Join(rep.Problems, "\n"))
	}
	parts := 0
	for _, recs := range log {
		if len(recs) > 0 {
			parts++
		}
	}
	if parts != 3 {
		t.Fatalf("records in %d partitions, want 3", parts)
	}
}

// produceOneTo produces one record to a fresh topic-less producer aimed
// at addrs and returns its outcome and how long it took.
func produceOneTo(t *testing.T, addrs []string, opts ...client.Option) (error, time.Duration) {
	t.Helper()
	opts = append([]client.Option{client.Brokers(addrs...), client.UnknownTopicWait(5 * time.Second),
		client.DeliveryTimeout(20 * time.Second), client.DialTimeout(5 * time.Second)}, opts...)
	p, err := client.NewProducer(opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = p.Close(ctx)
	}()
	began := time.Now()
	res := make(chan error, 1)
	p.Produce(context.Background(), &client.Record{Topic: "sec-sasl-ssl-plain", Value: []byte("x")}, func(_ *client.Record, err error) { res <- err })
	select {
	case err := <-res:
		return err, time.Since(began)
	case <-time.After(40 * time.Second):
		t.Fatal("the record was not resolved within 40 s")
		return nil, 0
	}
}
