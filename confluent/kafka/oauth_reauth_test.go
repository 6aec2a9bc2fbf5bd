package kafka_test

import (
	"fmt"
	"maps"
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

// The OAUTHBEARER re-authentication run, on the sim and on Kafka: 5 s
// tokens whose "exp" claim is whole seconds (as confluent-kafka-go's
// oauthbearer example makes them), 60 s of production at 20 messages a
// second. Each connection that lasts the run re-authenticates
// run ÷ (0.8 × token life) = 15 ± 2 times.
const (
	reauthTokenLife = 5 * time.Second
	reauthRun       = 60 * time.Second
	reauthTolerance = 2
	// reauthMinGap: a re-authentication's session lasts about 4-5 s (the
	// claim's whole seconds) and is renewed at 80-90% of it, so two
	// re-authentications of one connection are over 3 s apart; within
	// 2 s is a burst. (A connection's first session may be short: opened
	// late in a token's life, it is renewed early once.)
	reauthMinGap = 2 * time.Second
	// reauthEarly: how much earlier than 80% of the session it renews a
	// re-authentication may reach the broker (the client counts from
	// when it sent the last one, the broker from when it answered).
	reauthEarly = 250 * time.Millisecond
	// reauthOpenedBy: connections first authenticated this long after the
	// run started count as lasting the run.
	reauthOpenedBy = 3 * time.Second
)

// TestOAuthBearerReauthNoBursts: the run on a 3-broker sim whose brokers
// end each session when its token expires. No message fails; every
// connection that lasts the run re-authenticates 15 ± 2 times, as the
// brokers record them (sim.Recorder.Authentications), each time with a
// fresh token (its session ends later than the last) and never twice
// within 2 s; every message is in the log once.
//
// On virtual time (a testing/synctest bubble over sim/memnet): the minute
// costs well under a second of CPU. Each subtest starts its clock at a
// different fraction of a second, so that the whole-second claims cut the
// tokens' lives by different amounts.
func TestOAuthBearerReauthNoBursts(t *testing.T) {
	for _, phase := range []time.Duration{0, 300 * time.Millisecond, 850 * time.Millisecond} {
		t.Run(fmt.Sprintf("start+%v", phase), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { reauthOnSim(t, phase) })
		})
	}
}

func reauthOnSim(t *testing.T, phase time.Duration) {
	time.Sleep(phase)
	mn := memnet.New(1)
	c, err := sim.NewCluster(sim.Brokers(3), sim.Topic("t", 3, 3), sim.Seed(1), sim.SASLOAuthBearer(),
		sim.RecorderLimit(0), sim.Network(mn))
	require.NoError(t, err)
	defer func() { require.NoError(t, c.Close()) }()
	conf := kafka.ConfigMap{"bootstrap.servers": strings.Join(c.Addrs(), ","), "security.protocol": "sasl_plaintext",
		"sasl.mechanisms": "OAUTHBEARER", "sasl.oauthbearer.config": "principal=orders-svc"}
	p, err := kafka.NewProducerWith(&conf, client.Dialer(mn.Dial), client.SyncTest(synctest.Wait))
	require.NoError(t, err)
	defer p.Close()

	run := produceReauthRun(t, p, "t")
	for _, e := range c.Recorder().Exchanges() {
		require.NotContains(t, e.Outcome, "closed", "broker %d conn %d %s", e.Broker, e.Conn, e.Outcome)
	}
	per := map[string][]authEvent{}
	for _, a := range c.Recorder().Authentications() {
		k := fmt.Sprintf("broker %d conn %d", a.Broker, a.Conn)
		per[k] = append(per[k], authEvent{at: a.Time, reauth: a.Reauth, lifetime: a.Lifetime})
	}
	full := checkReauths(t, per, run.start)
	run.checkRefreshes(t)
	readOAuthOver(t, c, mn.Dial, run.values, run.got)
	require.GreaterOrEqual(t, full, 3, "connections lasting the run (one per broker at least)")
}

// reauthOutcome is what a run produced and was told.
type reauthOutcome struct {
	start     time.Time
	values    []string
	got       map[string]report
	refreshes int
}

// produceReauthRun produces a message to topic every 50 ms for reauthRun
// (30 keys, so every partition's leader has a connection from the start),
// answering each OAuthBearerTokenRefresh with a new 5 s token, and waits
// for every delivery report: none may be an error.
func produceReauthRun(t *testing.T, p *kafka.Producer, topic string) reauthOutcome {
	t.Helper()
	r := reauthOutcome{start: time.Now(), got: map[string]report{}}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(reauthRun + time.Minute)
	for time.Since(r.start) < reauthRun || len(r.got) < len(r.values) {
		select {
		case e := <-p.Events():
			switch ev := e.(type) {
			case kafka.OAuthBearerTokenRefresh:
				r.refreshes++
				now := time.Now()
				exp := now.Add(reauthTokenLife)
				// The claim is whole seconds: up to a second before Expiration.
				require.NoError(t, p.SetOAuthBearerToken(kafka.OAuthBearerToken{
					TokenValue: sim.UnsecuredJWT("orders-svc", now, time.Unix(exp.Unix(), 0), nil),
					Expiration: exp, Principal: "orders-svc"}))
			case *kafka.Message:
				v := string(ev.Value)
				require.NoError(t, ev.TopicPartition.Error, "%s", v)
				_, dup := r.got[v]
				require.False(t, dup, "two delivery reports for %s", v)
				r.got[v] = report{partition: ev.TopicPartition.Partition, offset: int64(ev.TopicPartition.Offset), acked: true}
			}
		case <-tick.C:
			if time.Since(r.start) < reauthRun {
				v := fmt.Sprintf("reauth-%d", len(r.values))
				r.values = append(r.values, v)
				m := msg(&topic, v)
				m.Key = fmt.Appendf(nil, "k%d", len(r.values)%30) // every partition from the start
				require.NoError(t, p.Produce(m, nil))
			}
		case <-deadline:
			t.Fatalf("%d of %d delivered", len(r.got), len(r.values))
		}
	}
	t.Logf("%d messages, %d refresh events", len(r.values), r.refreshes)
	return r
}

// checkRefreshes: librdkafka asks for a token at 80% of the last one's
// life (4-5 s: the claim's whole seconds), and so did the producer.
func (r reauthOutcome) checkRefreshes(t *testing.T) {
	mean := reauthTokenLife * 8 / 10 * 9 / 10
	require.InDelta(t, float64(reauthRun/mean), float64(r.refreshes), 3, "refresh events")
}

// authEvent is one accepted SASL authentication of a connection, as the
// broker's side saw it.
type authEvent struct {
	at       time.Time
	reauth   bool
	lifetime time.Duration // the session's, as the broker announced it
}

// checkReauths checks each connection's authentications up to the run's
// end: each re-authentication no sooner than 80% into the session it
// renews, at least reauthMinGap after the last re-authentication, and
// opening a session that ends a second or more after the last (a fresh
// token);
// and run ÷ (0.8 × token life) ± reauthTolerance of them on each
// connection opened by reauthOpenedBy. It returns how many connections
// that is.
func checkReauths(t *testing.T, per map[string][]authEvent, start time.Time) int {
	t.Helper()
	end := start.Add(reauthRun)
	want := int(reauthRun / (reauthTokenLife * 8 / 10))
	full := 0
	for _, k := range slices.Sorted(maps.Keys(per)) {
		as := slices.DeleteFunc(per[k], func(a authEvent) bool { return a.at.After(end) })
		if len(as) == 0 {
			continue
		}
		slices.SortFunc(as, func(a, b authEvent) int { return a.at.Compare(b.at) })
		require.False(t, as[0].reauth, "%s: its first authentication", k)
		for i := 1; i < len(as); i++ {
			require.True(t, as[i].reauth, "%s: authentication %d", k, i)
			gap := as[i].at.Sub(as[i-1].at)
			require.GreaterOrEqual(t, gap, as[i-1].lifetime*8/10-reauthEarly, "%s re-authenticated %v into a %v session (before 80%% of it)",
				k, gap, as[i-1].lifetime)
			if i >= 2 {
				require.GreaterOrEqual(t, gap, reauthMinGap, "%s re-authenticated %v after the last time (a burst)", k, gap)
			}
			prevEnd, thisEnd := as[i-1].at.Add(as[i-1].lifetime), as[i].at.Add(as[i].lifetime)
			require.True(t, thisEnd.After(prevEnd.Add(time.Second)), "%s: re-authentication %d without a fresh token (session ends at +%v, the last at +%v)",
				k, i, thisEnd.Sub(start), prevEnd.Sub(start))
		}
		if as[0].at.Sub(start) < reauthOpenedBy {
			full++
			n := len(as) - 1
			t.Logf("%s: %d re-authentications", k, n)
			require.InDelta(t, want, n, reauthTolerance, "%s: re-authentications over %v with %v tokens", k, reauthRun, reauthTokenLife)
		}
	}
	return full
}
