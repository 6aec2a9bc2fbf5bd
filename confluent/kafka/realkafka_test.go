package kafka_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/confluent/kafka"
	"github.com/rollsafe/rollsafe/kafkatest"
	"github.com/rollsafe/rollsafe/sim"
)

// The real cluster's OAUTHBEARER listeners: Kafka's default server
// callback handler, the unsecured JWS validator (kafkatest.Listener).
const (
	lnOAuth    = "OAUTH"     // SASL_PLAINTEXT
	lnOAuthTLS = "OAUTH_TLS" // SASL_SSL
)

// TestOnRealKafka runs the drop-in against a real 3-node Apache Kafka
// cluster (kafkatest) and reads every record back: each message reported
// delivered is in the log exactly once, at the reported offset, in order,
// and nothing else is. "programs" runs the four confluent-kafka-go programs
// (compiled with only their import line changed), one topic each;
// "oauthbearer" produces through the broker's SASL OAUTHBEARER listeners
// as a confluent-kafka-go application configures them, "reauth-60s"
// with 5 s tokens for a minute. Without Java or
// the Kafka jars it is skipped with kafkatest's message on how to fetch
// them (and fails under CI=true). "metadata" compares GetMetadata,
// QueryWatermarkOffsets and OffsetsForTimes with kcat's answers, "purge"
// purges while a partition's leader is paused (runPurge), "auto-create"
// has brokers create a topic for it (realAutoCreate). Cost: one
// cluster launch (tens of seconds) plus about 80 s.
func TestOnRealKafka(t *testing.T) {
	kafkatest.Require(t)
	dir := buildPrograms(t)
	c := kafkatest.LaunchT(t, kafkatest.Config{Listeners: []kafkatest.Listener{
		{Name: lnOAuth, Protocol: kafkatest.ProtocolSASLPlaintext, Mechanisms: []string{kafkatest.MechanismOAuthBearer}},
		{Name: lnOAuthTLS, Protocol: kafkatest.ProtocolSASLSSL, Mechanisms: []string{kafkatest.MechanismOAuthBearer}},
	}, Props: map[string]string{"auto.create.topics.enable": "true", "num.partitions": "3", "default.replication.factor": "3"}})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	topics := []string{"oauth-jwt", "oauth-refresh", "oauth-reauth", "metadata", "purge-queue", "purge-inflight"}
	for _, name := range producerPrograms {
		topics = append(topics, "confluent-"+name)
	}
	for _, topic := range topics {
		require.NoError(t, c.CreateTopic(ctx, kafkatest.Topic{Name: topic, Partitions: 4, Replication: 3}))
		require.NoError(t, c.WaitLeaders(ctx, topic))
	}
	t.Run("programs", func(t *testing.T) {
		for _, name := range producerPrograms {
			t.Run(name, func(t *testing.T) {
				topic := "confluent-" + name
				n := programCounts[name]
				if name == "sync" {
					n = 100
				}
				got, out := runProgram(t, dir, name, c.Addrs(), topic, n)
				log := verify(t, c.Addrs(), topic, values(name, n), got, true)
				switch name {
				case "keyed":
					checkKeyed(t, log)
				case "sync":
					checkSyncLookups(t, out, topic, 4, log)
				case "fatal":
					checkFatal(t, out, topic, log)
				}
			})
		}
	})
	t.Run("metadata", func(t *testing.T) {
		// GetMetadata, QueryWatermarkOffsets and OffsetsForTimes against
		// librdkafka's answers (kcat) from Apache Kafka itself.
		p := realProducer(t, c.Addrs(), nil)
		base := produceAtTimes(t, p, "metadata")
		compareWithKcat(t, p, strings.Join(c.Addrs(), ","), "metadata", base)
	})
	t.Run("purge", func(t *testing.T) {
		// Purge while the partition's leader is paused (SIGSTOP): its
		// requests hang in flight, later messages queue behind them.
		for _, tc := range []struct {
			topic string
			flags int
		}{{"purge-queue", kafka.PurgeQueue}, {"purge-inflight", kafka.PurgeQueue | kafka.PurgeInFlight}} {
			t.Run(tc.topic, func(t *testing.T) {
				leader, err := c.Leader(ctx, tc.topic, 0)
				require.NoError(t, err)
				p := realProducer(t, c.Addrs(), kafka.ConfigMap{"linger.ms": 5, "batch.num.messages": 10})
				runPurge(t, p, purgeCase{
					addrs: c.Addrs(), topic: tc.topic, flags: tc.flags,
					hold:    func() { require.NoError(t, c.Pause(leader)) },
					release: func() { require.NoError(t, c.Resume(leader)) },
				})
				require.NoError(t, c.WaitHealthy(ctx, tc.topic))
			})
		}
	})
	t.Run("auto-create", func(t *testing.T) { realAutoCreate(t, c) })
	t.Run("oauthbearer", func(t *testing.T) {
		t.Run("unsecure-jwt", func(t *testing.T) { oauthUnsecureJWT(t, c) })
		t.Run("refresh-events-tls", func(t *testing.T) { oauthRefreshEvents(t, c) })
		t.Run("reauth-60s", func(t *testing.T) { oauthReauthRun(t, c) })
	})
}

// realAutoCreate: on brokers with auto.create.topics.enable, the drop-in
// (allow.auto.create.topics, true by default as librdkafka's producer)
// has a topic nobody created made for it and delivers to it; with
// allow.auto.create.topics=false the topic stays unknown and the message
// fails ErrUnknownTopicOrPart, not persisted.
func realAutoCreate(t *testing.T, c *kafkatest.Cluster) {
	created := "auto-created"
	p := realProducer(t, c.Addrs(), nil)
	vs := values("auto", 200)
	for _, v := range vs {
		require.NoError(t, p.Produce(msg(&created, v), nil))
	}
	verify(t, c.Addrs(), created, vs, drain(t, p.Events(), len(vs)), true)

	off := realProducer(t, c.Addrs(), kafka.ConfigMap{"allow.auto.create.topics": false, "topic.metadata.propagation.max.ms": 2000})
	never := "never-created"
	require.NoError(t, off.Produce(msg(&never, "x"), nil))
	for _, r := range drain(t, off.Events(), 1) {
		require.False(t, r.acked)
		require.Equal(t, kafka.MsgStatusNotPersisted, r.status)
	}
	md, err := off.GetMetadata(nil, true, 5000)
	require.NoError(t, err)
	require.NotContains(t, md.Topics, never)
	require.Len(t, md.Topics[created].Partitions, 3, "created with the brokers' num.partitions")
}

// realProducer makes a producer on the listener addrs with props, closed
// (with no goroutine left) when t ends.
func realProducer(t *testing.T, addrs []string, props kafka.ConfigMap) *kafka.Producer {
	t.Helper()
	before := runtime.NumGoroutine()
	conf := kafka.ConfigMap{"bootstrap.servers": strings.Join(addrs, ",")}
	for k, v := range props {
		conf[k] = v
	}
	p, err := kafka.NewProducer(&conf)
	require.NoError(t, err)
	t.Cleanup(func() {
		p.Close()
		waitGoroutines(t, before)
	})
	return p
}

// oauthUnsecureJWT: enable.sasl.oauthbearer.unsecure.jwt, the producer
// makes its own unsecured tokens from sasl.oauthbearer.config, as
// librdkafka does; the broker's validator accepts them.
func oauthUnsecureJWT(t *testing.T, c *kafkatest.Cluster) {
	p := realProducer(t, c.ListenerAddrs(lnOAuth), kafka.ConfigMap{
		"security.protocol": "sasl_plaintext", "sasl.mechanisms": "OAUTHBEARER",
		"enable.sasl.oauthbearer.unsecure.jwt": true,
		"sasl.oauthbearer.config":              "principal=orders-svc lifeSeconds=3600 extension_traceId=abc",
	})
	topic := "oauth-jwt"
	vals := values("jwt", 2000)
	for _, v := range vals {
		require.NoError(t, p.Produce(msg(&topic, v), nil))
	}
	got := drain(t, p.Events(), len(vals))
	verify(t, c.Addrs(), topic, vals, got, true)
}

// oauthRefreshEvents: over TLS (ssl.ca.location), the application answers
// OAuthBearerTokenRefresh events on Events() with SetOAuthBearerToken and
// 4-second tokens while messages flow for about 10 s: the broker ends each
// session when its token expires (KIP-368), so connections authenticate
// again with the new tokens, and every message still lands exactly once.
func oauthRefreshEvents(t *testing.T, c *kafkatest.Cluster) {
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(caFile, c.CACertPEM(), 0o600))
	p := realProducer(t, c.ListenerAddrs(lnOAuthTLS), kafka.ConfigMap{
		"security.protocol": "sasl_ssl", "ssl.ca.location": caFile, "sasl.mechanisms": "OAUTHBEARER",
		"sasl.oauthbearer.config": "app=orders", "linger.ms": 5,
	})
	const life = 4 * time.Second
	topic := "oauth-refresh"
	vals := values("refresh", 500)
	got := map[string]report{}
	refreshes, next := 0, 0
	deadline := time.After(90 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond) // 500 messages over about 10 s: 2.5 token lifetimes
	defer tick.Stop()
	for len(got) < len(vals) {
		select {
		case e := <-p.Events():
			switch ev := e.(type) {
			case kafka.OAuthBearerTokenRefresh:
				require.Equal(t, "app=orders", ev.Config)
				refreshes++
				now := time.Now()
				require.NoError(t, p.SetOAuthBearerToken(kafka.OAuthBearerToken{
					TokenValue: sim.UnsecuredJWT("orders-svc", now, now.Add(life), nil),
					Expiration: now.Add(life), Principal: "orders-svc"}))
			case *kafka.Message:
				v := string(ev.Value)
				_, dup := got[v]
				require.False(t, dup, "two delivery reports for %s", v)
				got[v] = report{partition: ev.TopicPartition.Partition, offset: int64(ev.TopicPartition.Offset),
					acked: ev.TopicPartition.Error == nil, status: ev.Status()}
				require.NoError(t, ev.TopicPartition.Error, v)
			}
		case <-tick.C:
			if next < len(vals) {
				require.NoError(t, p.Produce(msg(&topic, vals[next]), nil))
				next++
			}
		case <-deadline:
			t.Fatalf("%d of %d delivered, %d refresh events", len(got), len(vals), refreshes)
		}
	}
	require.GreaterOrEqual(t, refreshes, 3, "refresh events at 80%% of each 4 s token's lifetime over about 10 s")
	verify(t, c.Addrs(), topic, vals, got, true)
}

// oauthReauthRun is TestOAuthBearerReauthNoBursts's run on Kafka, through
// the SASL_PLAINTEXT listener: 5 s tokens with whole-second claims for
// 60 s. The brokers' answers are read on the wire by the listener's
// proxies (kafkatest.Proxy.WatchSASL): every authentication accepted,
// every session ending when its token expires, and per connection the
// same counts and spacing as on the sim; every message in the log once.
func oauthReauthRun(t *testing.T, c *kafkatest.Cluster) {
	nodes := int32(len(c.Addrs()))
	for id := range nodes {
		c.ListenerProxy(lnOAuth, id).WatchSASL()
	}
	p := realProducer(t, c.ListenerAddrs(lnOAuth), kafka.ConfigMap{
		"security.protocol": "sasl_plaintext", "sasl.mechanisms": "OAUTHBEARER",
		"sasl.oauthbearer.config": "principal=orders-svc",
	})
	topic := "oauth-reauth"
	run := produceReauthRun(t, p, topic)
	per := map[string][]authEvent{}
	for id := range nodes {
		for _, a := range c.ListenerProxy(lnOAuth, id).SASLAuths() {
			k := fmt.Sprintf("node %d conn %d", id, a.Conn)
			require.True(t, a.Accepted(), "%s: authentication refused or unanswered: %+v", k, a)
			// Kafka ends the session when the token expires.
			require.True(t, a.SessionLifetime > 0 && a.SessionLifetime <= reauthTokenLife, "%s: session lifetime %v", k, a.SessionLifetime)
			per[k] = append(per[k], authEvent{at: a.Answered, reauth: a.Reauth, lifetime: a.SessionLifetime})
		}
	}
	full := checkReauths(t, per, run.start)
	run.checkRefreshes(t)
	require.GreaterOrEqual(t, full, int(nodes), "connections lasting the run (one per broker at least)")
	verify(t, c.Addrs(), topic, run.values, run.got, true)
}
