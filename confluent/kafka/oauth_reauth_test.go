package kafka_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/confluent/kafka"
	"github.com/rollsafe/rollsafe/sim"
	"github.com/rollsafe/rollsafe/sim/memnet"
)

// TestOAuthBearerReauthNoBursts: 5 s tokens whose "exp" claim is whole
// seconds (as confluent-kafka-go's oauthbearer example makes them), a
// broker that ends each session when its token expires, and 60 s of
// production at 20 messages a second. No message fails; every connection
// that lasts the run re-authenticates run ÷ (0.8 × token life) = 15 ± 2
// times, as the brokers count them, each time with a fresh token (its
// session ends later than the last) and never twice within 2 s.
//
// On virtual time (a testing/synctest bubble over sim/memnet): the minute
// costs a few seconds of CPU, not a minute. Each subtest starts its clock
// at a different fraction of a second, so that the whole-second claims
// cut the tokens' lives by different amounts.
func TestOAuthBearerReauthNoBursts(t *testing.T) {
	for _, phase := range []time.Duration{0, 300 * time.Millisecond, 850 * time.Millisecond} {
		t.Run(fmt.Sprintf("start+%v", phase), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { reauthNoBursts(t, phase) })
		})
	}
}

const (
	reauthTokenLife = 5 * time.Second
	reauthRun       = 60 * time.Second
	// reauthMinGap: a session lasts 4-5 s (the claim's whole seconds) and
	// is renewed at 80-90% of it, so two re-authentications of one
	// connection are at least 3.2 s apart; 2 s is a burst by any count.
	reauthMinGap = 2 * time.Second
)

func reauthNoBursts(t *testing.T, phase time.Duration) {
	time.Sleep(phase)
	mn := memnet.New(1)
	c, err := sim.NewCluster(sim.Brokers(3), sim.Topic("t", 3, 3), sim.Seed(1), sim.SASLOAuthBearer(),
		sim.RecorderLimit(0), sim.Network(mn))
	require.NoError(t, err)
	defer func() { require.NoError(t, c.Close()) }()
	conf := kafka.ConfigMap{"bootstrap.servers": strings.Join(c.Addrs(), ","), "security.protocol": "sasl_plaintext",
		"sasl.mechanisms": "OAUTHBEARER", "sasl.oauthbearer.config": "principal=orders-svc"}
	p, err := kafka.NewProducerWith(&conf, client.Dialer(mn.Dial), client.SyncTest())
	require.NoError(t, err)
	defer p.Close()

	topic := "t"
	got := map[string]report{}
	var vals []string
	refreshes := 0
	start := time.Now()
	tick := time.NewTicker(50 * time.Millisecond) // 20 messages a second
	defer tick.Stop()
	deadline := time.After(reauthRun + time.Minute)
	for time.Since(start) < reauthRun || len(got) < len(vals) {
		select {
		case e := <-p.Events():
			switch ev := e.(type) {
			case kafka.OAuthBearerTokenRefresh:
				refreshes++
				now := time.Now()
				exp := now.Add(reauthTokenLife)
				// The claim is whole seconds: up to a second before Expiration.
				require.NoError(t, p.SetOAuthBearerToken(kafka.OAuthBearerToken{
					TokenValue: sim.UnsecuredJWT("orders-svc", now, time.Unix(exp.Unix(), 0), nil),
					Expiration: exp, Principal: "orders-svc"}))
			case *kafka.Message:
				require.NoError(t, ev.TopicPartition.Error, "%s", ev.Value)
				got[string(ev.Value)] = report{partition: ev.TopicPartition.Partition, offset: int64(ev.TopicPartition.Offset), acked: true}
			}
		case <-tick.C:
			if time.Since(start) < reauthRun {
				v := fmt.Sprintf("reauth-%d", len(vals))
				vals = append(vals, v)
				require.NoError(t, p.Produce(msg(&topic, v), nil))
			}
		case <-deadline:
			t.Fatalf("%d of %d delivered", len(got), len(vals))
		}
	}
	end := start.Add(reauthRun)
	auths := c.Recorder().Authentications() // before reading back
	for _, e := range c.Recorder().Exchanges() {
		require.NotContains(t, e.Outcome, "closed", "broker %d conn %d %s", e.Broker, e.Conn, e.Outcome)
	}
	readOAuthOver(t, c, mn.Dial, vals, got)

	full := checkReauths(t, auths, start, end)
	require.GreaterOrEqual(t, full, 3, "connections lasting the run (one per broker at least)")
	// librdkafka asks for a token at 80% of the last one's life (4-5 s).
	require.InDelta(t, float64(reauthRun)/float64(reauthTokenLife*8/10*9/10), float64(refreshes), 3, "refresh events")
	t.Logf("%d messages, %d refresh events, %d connections through the run", len(vals), refreshes, full)
}

// checkReauths checks the brokers' record of each connection's
// authentications over [start, end]: re-authentications at least
// reauthMinGap apart, each opening a session that ends later than the
// last (a fresh token), and run ÷ (0.8 × token life) ± 2 of them on each
// connection opened in the run's first seconds. It returns how many
// connections that is.
func checkReauths(t *testing.T, auths []sim.Authentication, start, end time.Time) int {
	t.Helper()
	type connKey struct {
		broker int32
		conn   uint64
	}
	per := map[connKey][]sim.Authentication{}
	for _, a := range auths {
		if !a.Time.After(end) {
			k := connKey{a.Broker, a.Conn}
			per[k] = append(per[k], a)
		}
	}
	want := int(reauthRun / (reauthTokenLife * 8 / 10))
	full := 0
	for k, as := range per {
		slices.SortFunc(as, func(a, b sim.Authentication) int { return a.Time.Compare(b.Time) })
		require.False(t, as[0].Reauth, "conn %v: its first authentication", k)
		for i := 1; i < len(as); i++ {
			require.True(t, as[i].Reauth, "conn %v: authentication %d", k, i)
			gap := as[i].Time.Sub(as[i-1].Time)
			require.GreaterOrEqual(t, gap, reauthMinGap, "conn %v re-authenticated %v after the last time (a burst)", k, gap)
			prevEnd, thisEnd := as[i-1].Time.Add(as[i-1].Lifetime), as[i].Time.Add(as[i].Lifetime)
			require.True(t, thisEnd.After(prevEnd.Add(time.Second)), "conn %v: re-authentication %d without a fresh token (session ends %v, the last %v)",
				k, i, thisEnd.Sub(start), prevEnd.Sub(start))
		}
		if as[0].Time.Sub(start) < 2*time.Second {
			full++
			n := len(as) - 1
			t.Logf("conn %v: %d re-authentications", k, n)
			require.InDelta(t, want, n, 2, "conn %v: re-authentications over %v with %v tokens", k, reauthRun, reauthTokenLife)
		}
	}
	return full
}
