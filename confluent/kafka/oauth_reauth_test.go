package kafka_test

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/confluent/kafka"
	"github.com/rollsafe/rollsafe/sim"
)

// TestOAuthBearerReauthNoBursts: with 5 s tokens whose "exp" claim is
// whole seconds (as confluent-kafka-go's oauthbearer example makes them)
// and a broker that ends each session when its token expires, every
// connection re-authenticates about once per 0.8-0.9 of a token's life —
// each time with a fresh token (the refresh event answered), never with
// the one its session was opened with — and no message fails over the
// run, however the token expiries fall.
func TestOAuthBearerReauthNoBursts(t *testing.T) {
	if testing.Short() {
		t.Skip("24 s of real time")
	}
	const (
		life = 5 * time.Second
		run  = 24 * time.Second
	)
	c := newCluster(t, 3, sim.SASLOAuthBearer(), sim.RecorderLimit(0))
	p := newProducer(t, c, kafka.ConfigMap{"security.protocol": "sasl_plaintext", "sasl.mechanisms": "OAUTHBEARER",
		"sasl.oauthbearer.config": "principal=orders-svc"})
	topic := "t"
	got := map[string]report{}
	var vals []string
	refreshes := 0
	start := time.Now()
	tick := time.NewTicker(50 * time.Millisecond) // pacing: 20 messages a second
	defer tick.Stop()
	deadline := time.After(run + time.Minute)
	for time.Since(start) < run || len(got) < len(vals) {
		select {
		case e := <-p.Events():
			switch ev := e.(type) {
			case kafka.OAuthBearerTokenRefresh:
				refreshes++
				now := time.Now()
				exp := now.Add(life)
				// The claim is whole seconds: up to a second before Expiration.
				require.NoError(t, p.SetOAuthBearerToken(kafka.OAuthBearerToken{
					TokenValue: sim.UnsecuredJWT("orders-svc", now, time.Unix(exp.Unix(), 0), nil),
					Expiration: exp, Principal: "orders-svc"}))
			case *kafka.Message:
				require.NoError(t, ev.TopicPartition.Error, "%s", ev.Value)
				got[string(ev.Value)] = report{partition: ev.TopicPartition.Partition, offset: int64(ev.TopicPartition.Offset), acked: true}
			}
		case <-tick.C:
			if time.Since(start) < run {
				v := values("reauth", len(vals)+1)[len(vals)]
				vals = append(vals, v)
				require.NoError(t, p.Produce(msg(&topic, v), nil))
			}
		case <-deadline:
			t.Fatalf("%d of %d delivered", len(got), len(vals))
		}
	}
	elapsed := time.Since(start)
	exchanges := c.Recorder().Exchanges() // before reading back
	readOAuth(t, c, vals, got)

	// Each connection's SaslHandshakes: the first authenticates, the
	// others re-authenticate.
	type connKey struct {
		broker int32
		conn   uint64
	}
	handshakes := map[connKey][]time.Time{}
	for _, e := range exchanges {
		if e.Key == 17 {
			k := connKey{e.Broker, e.Conn}
			handshakes[k] = append(handshakes[k], e.Start)
		}
	}
	long := 0
	for k, hs := range handshakes {
		slices.SortFunc(hs, func(a, b time.Time) int { return a.Compare(b) })
		for i := 1; i < len(hs); i++ {
			gap := hs[i].Sub(hs[i-1])
			// A session lasts 4-5 s (the claim's whole seconds), renewed
			// at 80-90% of it: never sooner than 3.2 s minus scheduling.
			require.Greater(t, gap, 2500*time.Millisecond, "conn %v re-authenticated %v after the last time (a burst)", k, gap)
		}
		if span := start.Add(elapsed).Sub(hs[0]); span > elapsed*9/10 {
			long++
			// About span / (0.85 × 4.5 s), with sessions of 4 to 5 s.
			lo := int(span/(life*9/10)) - 1
			hi := int(span/(life*8/10-800*time.Millisecond)) + 1
			t.Logf("conn %v: %d re-authentications in %v", k, len(hs)-1, span.Round(time.Millisecond))
			require.GreaterOrEqual(t, len(hs)-1, lo, "conn %v", k)
			require.LessOrEqual(t, len(hs)-1, hi, "conn %v", k)
		}
	}
	require.Positive(t, long, "a connection lasting the whole run")
	t.Logf("%d messages, %d refresh events in %v", len(vals), refreshes, elapsed.Round(time.Millisecond))
}
