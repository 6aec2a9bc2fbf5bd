package kafka_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/confluent/kafka"
	"github.com/rollsafe/rollsafe/protocol"
	"github.com/rollsafe/rollsafe/sim"
)

// readOAuth reads topic back over SASL OAUTHBEARER.
func readOAuth(t *testing.T, c *sim.Cluster, values []string, got map[string]report) {
	t.Helper()
	readOAuthOver(t, c, nil, values, got)
}

// readOAuthOver is readOAuth dialing with dial (nil: TCP).
func readOAuthOver(t *testing.T, c *sim.Cluster, dial func(context.Context, string, string) (net.Conn, error), values []string, got map[string]report) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tok := func(context.Context) (protocol.OAuthBearerToken, error) {
		now := time.Now()
		return protocol.OAuthBearerToken{Value: sim.UnsecuredJWT("reader", now, now.Add(time.Hour), nil)}, nil
	}
	log, err := readback.ReadTopicConn(ctx, c.Addrs(), "t", protocol.ConnConfig{Authenticate: protocol.SASL(protocol.SASLOAuthBearer(tok)), Dial: dial})
	require.NoError(t, err)
	produced := make([]readback.Produced, len(values))
	for i, v := range values {
		r := got[v]
		require.True(t, r.acked, v)
		produced[i] = readback.Produced{ID: v, Partition: r.partition, Offset: r.offset, Acked: true}
	}
	rep := readback.Check(log, produced, func(r readback.Record) string { return string(r.Value) })
	require.True(t, rep.OK(), "%s\n%s", rep, strings.Join(rep.Problems, "\n"))
	require.Equal(t, len(values), rep.InLog)
}

// TestOAuthBearerRefreshEvents: as with librdkafka, the application gets
// an OAuthBearerTokenRefresh event on Events() and answers it with
// SetOAuthBearerToken; with a short token another event comes at 80% of
// its lifetime, and production carries on across token lifetimes.
func TestOAuthBearerRefreshEvents(t *testing.T) {
	c := newCluster(t, 3, sim.SASLOAuthBearer())
	p := newProducer(t, c, kafka.ConfigMap{"security.protocol": "sasl_plaintext", "sasl.mechanisms": "OAUTHBEARER",
		"sasl.oauthbearer.config": "app=orders", "linger.ms": 2})
	const life = 1500 * time.Millisecond
	topic := "t"
	vals := values("oauth", 300)
	got := map[string]report{}
	refreshes := 0
	next := 0
	deadline := time.After(60 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for len(got) < len(vals) {
		select {
		case e := <-p.Events():
			switch ev := e.(type) {
			case kafka.OAuthBearerTokenRefresh:
				require.Equal(t, "app=orders", ev.Config)
				require.Equal(t, "OAuthBearerTokenRefresh", ev.String())
				refreshes++
				now := time.Now()
				require.NoError(t, p.SetOAuthBearerToken(kafka.OAuthBearerToken{
					TokenValue: sim.UnsecuredJWT("orders-svc", now, now.Add(life), nil),
					Expiration: now.Add(life), Principal: "orders-svc", Extensions: map[string]string{"traceId": "x"}}))
			case *kafka.Message:
				require.NoError(t, ev.TopicPartition.Error)
				got[string(ev.Value)] = report{partition: ev.TopicPartition.Partition, offset: int64(ev.TopicPartition.Offset), acked: true}
			}
		case <-tick.C:
			// 300 messages over about 3 s: two token lifetimes.
			if next < len(vals) {
				require.NoError(t, p.Produce(&kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: kafka.PartitionAny}, Value: []byte(vals[next])}, nil))
				next++
			}
		case <-deadline:
			t.Fatalf("%d of %d delivered, %d refresh events", len(got), len(vals), refreshes)
		}
	}
	require.GreaterOrEqual(t, refreshes, 2, "a refresh event at 80% of the token's lifetime")
	readOAuth(t, c, vals, got)
}

func TestOAuthBearerUnsecuredJWTHandler(t *testing.T) {
	c := newCluster(t, 3, sim.SASLOAuthBearer())
	p := newProducer(t, c, kafka.ConfigMap{"security.protocol": "sasl_plaintext", "sasl.mechanisms": "OAUTHBEARER",
		"enable.sasl.oauthbearer.unsecure.jwt": true, "sasl.oauthbearer.config": "principal=orders-svc lifeSeconds=60 extension_traceId=abc scope=a,b"})
	topic := "t"
	vals := values("jwt", 100)
	for _, v := range vals {
		require.NoError(t, p.Produce(&kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: kafka.PartitionAny}, Value: []byte(v)}, nil))
	}
	got := drain(t, p.Events(), len(vals))
	readOAuth(t, c, vals, got)
	err := p.SetOAuthBearerToken(kafka.OAuthBearerToken{TokenValue: "a", Principal: "p", Expiration: time.Now().Add(time.Hour)})
	require.Equal(t, kafka.ErrState, err.(kafka.Error).Code())
}

func TestOAuthBearerSetTokenChecks(t *testing.T) {
	c := newCluster(t, 1, sim.SASLOAuthBearer())
	p := newProducer(t, c, kafka.ConfigMap{"security.protocol": "sasl_plaintext", "sasl.mechanisms": "OAUTHBEARER"})
	future := time.Now().Add(time.Hour)
	for name, tok := range map[string]kafka.OAuthBearerToken{
		"empty value":   {Principal: "p", Expiration: future},
		"bad value":     {TokenValue: "a b", Principal: "p", Expiration: future},
		"no principal":  {TokenValue: "abc", Expiration: future},
		"expired":       {TokenValue: "abc", Principal: "p", Expiration: time.Now().Add(-time.Second)},
		"reserved key":  {TokenValue: "abc", Principal: "p", Expiration: future, Extensions: map[string]string{"auth": "x"}},
		"bad key":       {TokenValue: "abc", Principal: "p", Expiration: future, Extensions: map[string]string{"a-b": "x"}},
		"control value": {TokenValue: "abc", Principal: "p", Expiration: future, Extensions: map[string]string{"a": "\x00"}},
	} {
		err := p.SetOAuthBearerToken(tok)
		require.Error(t, err, name)
		require.Equal(t, kafka.ErrInvalidArg, err.(kafka.Error).Code(), name)
	}
	require.Equal(t, kafka.ErrInvalidArg, p.SetOAuthBearerTokenFailure("").(kafka.Error).Code())
	require.NoError(t, p.SetOAuthBearerTokenFailure("identity provider down"))

	plain := newProducer(t, c, nil)
	require.Equal(t, kafka.ErrState, plain.SetOAuthBearerToken(kafka.OAuthBearerToken{TokenValue: "abc", Principal: "p", Expiration: future}).(kafka.Error).Code())
	require.Equal(t, kafka.ErrState, plain.SetOAuthBearerTokenFailure("x").(kafka.Error).Code())
}
