package bench

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/sim"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// secureSim starts a 1-broker sim serving TLS and SCRAM-SHA-512 for user
// "alice", with extra options.
func secureSim(t *testing.T, extra ...sim.Option) (*sim.Cluster, *sim.TestCA) {
	t.Helper()
	ca, err := sim.NewTestCA()
	if err != nil {
		t.Fatal(err)
	}
	opts := append([]sim.Option{sim.Brokers(1), sim.Topic("secure", 2, 1), sim.TLS(ca.ServerConfig()),
		sim.SASL(sim.MechScramSHA512, "alice", "alice-secret")}, extra...)
	c, err := sim.NewCluster(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c, ca
}

func scramClient(t *testing.T, c *sim.Cluster, ca *sim.TestCA, pass string, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	opts = append([]kgo.Opt{kgo.SeedBrokers(c.Addrs()...), kgo.DialTLSConfig(ca.ClientConfig()),
		kgo.SASL(scram.Auth{User: "alice", Pass: pass}.AsSha512Mechanism()),
		kgo.RetryBackoffFn(func(int) time.Duration { return 10 * time.Millisecond })}, opts...)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// TestSimKgoScramTLS: kgo authenticates to the sim with SCRAM-SHA-512 over
// TLS, produces (idempotently) and consumes records back.
func TestSimKgoScramTLS(t *testing.T) {
	c, ca := secureSim(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	prod := scramClient(t, c, ca, "alice-secret", kgo.DefaultProduceTopic("secure"))
	const n = 20
	var recs []*kgo.Record
	for i := 0; i < n; i++ {
		recs = append(recs, &kgo.Record{Key: []byte{byte(i)}, Value: []byte(fmt.Sprintf("v%d", i))})
	}
	if err := prod.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}
	cons := scramClient(t, c, ca, "alice-secret", kgo.ConsumeTopics("secure"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(100*time.Millisecond))
	seen := map[string]bool{}
	for len(seen) < n {
		fs := cons.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("consumed %d of %d records", len(seen), n)
		}
		for _, fe := range fs.Errors() {
			t.Fatalf("fetch %s/%d: %v", fe.Topic, fe.Partition, fe.Err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			if seen[string(r.Value)] {
				t.Errorf("duplicate %q", r.Value)
			}
			seen[string(r.Value)] = true
		})
	}
	auths := 0
	for _, e := range c.Recorder().Exchanges() {
		if e.Key == 36 && e.Outcome == "sent" {
			auths++
		}
	}
	if auths < 4 { // two SCRAM round trips per connection, two clients at least
		t.Fatalf("%d SaslAuthenticate exchanges recorded", auths)
	}
}

// TestSimKgoScramWrongPassword: a wrong password makes kgo fail with
// SASL_AUTHENTICATION_FAILED, not hang: a ping at once, a produce (kgo
// retries it) by its delivery timeout.
func TestSimKgoScramWrongPassword(t *testing.T) {
	c, ca := secureSim(t)
	cl := scramClient(t, c, ca, "wrong-secret", kgo.DefaultProduceTopic("secure"), kgo.RecordDeliveryTimeout(2*time.Second))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	if err := cl.Ping(ctx); !errors.Is(err, kerr.SaslAuthenticationFailed) {
		t.Fatalf("ping: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("ping failed only after %s", d)
	}
	err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte("x")}).FirstErr()
	if !errors.Is(err, kerr.SaslAuthenticationFailed) {
		t.Fatalf("produce: %v (after %s)", err, time.Since(start))
	}
	if ctx.Err() != nil {
		t.Fatalf("failed only at the deadline: %v", err)
	}
	t.Logf("wrong password failed after %s: %v", time.Since(start), err)
}

// TestSimKgoReauthenticates: with a short KIP-368 session lifetime kgo
// re-authenticates on its connections and keeps producing.
func TestSimKgoReauthenticates(t *testing.T) {
	c, ca := secureSim(t, sim.SessionLifetime(1200*time.Millisecond))
	cl := scramClient(t, c, ca, "alice-secret", kgo.DefaultProduceTopic("secure"))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for i := 0; i < 20; i++ { // about 2 s: past the lifetime
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte(fmt.Sprintf("r%d", i))}).FirstErr(); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		<-tick.C
	}
	handshakes := map[uint64]int{}
	for _, e := range c.Recorder().Exchanges() {
		if e.Key == 17 && e.Outcome == "sent" {
			handshakes[e.Conn]++
		}
	}
	reauths := 0
	for _, n := range handshakes {
		reauths += n - 1
	}
	if reauths == 0 {
		t.Fatalf("no connection re-authenticated (handshakes per connection %v)", handshakes)
	}
	t.Logf("handshakes per connection: %v", handshakes)
}
