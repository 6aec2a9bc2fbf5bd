package kafka_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/confluent/kafka"
)

// TestRejectedProperties: one case per property NewProducer refuses, and
// per combination that would do nothing or be unsafe. Each error is one
// line, has code ErrInvalidArg, names the property and matches
// client.ErrInvalidConfig.
func TestRejectedProperties(t *testing.T) {
	cases := []struct {
		name  string
		conf  kafka.ConfigMap
		names string // what the message must name
		// unsupported: a property rollsafe does not have or that would do
		// nothing (matches ErrUnsupportedProperty), not a bad value.
		unsupported bool
	}{
		{"unknown", kafka.ConfigMap{"no.such.property": 1}, `"no.such.property"`, true},
		{"consumer group.id", kafka.ConfigMap{"group.id": "g"}, `"group.id"`, true},
		{"consumer auto.offset.reset", kafka.ConfigMap{"auto.offset.reset": "earliest"}, `"auto.offset.reset"`, true},
		{"consumer enable.auto.commit", kafka.ConfigMap{"enable.auto.commit": false}, `"enable.auto.commit"`, true},
		{"transactional.id", kafka.ConfigMap{"transactional.id": "tx"}, `"transactional.id"`, true},
		{"api.version.request", kafka.ConfigMap{"api.version.request": true}, `"api.version.request"`, true},
		{"sticky.partitioning.linger.ms", kafka.ConfigMap{"sticky.partitioning.linger.ms": 10}, `"sticky.partitioning.linger.ms"`, true},
		{"enable.gapless.guarantee", kafka.ConfigMap{"enable.gapless.guarantee": true}, `"enable.gapless.guarantee"`, true},
		{"ssl.key.password", kafka.ConfigMap{"security.protocol": "ssl", "ssl.key.password": "x"}, `"ssl.key.password"`, true},
		{"sasl.kerberos.service.name", kafka.ConfigMap{"sasl.kerberos.service.name": "kafka"}, `"sasl.kerberos.service.name"`, true},
		{"delivery.report.only.error", kafka.ConfigMap{"delivery.report.only.error": true}, `"delivery.report.only.error"`, true},
		{"plugin.library.paths", kafka.ConfigMap{"plugin.library.paths": "x.so"}, `"plugin.library.paths"`, true},
		{"global property at topic level", kafka.ConfigMap{"default.topic.config": kafka.ConfigMap{"enable.idempotence": true}}, `"{topic}.enable.idempotence"`, true},
		{"two unknown, both named", kafka.ConfigMap{"zz.b": 1, "aa.a": 2}, `"aa.a", "zz.b"`, true},
		{"ssl without ssl protocol", kafka.ConfigMap{"ssl.ca.location": "/ca.pem"}, `"ssl.ca.location"`, true},
		{"sasl without sasl protocol", kafka.ConfigMap{"sasl.username": "u"}, `"sasl.username"`, true},
		{"GSSAPI", kafka.ConfigMap{"security.protocol": "sasl_plaintext", "sasl.mechanisms": "GSSAPI", "sasl.username": "u"}, `sasl.mechanisms`, true},
		{"OAUTHBEARER oidc", kafka.ConfigMap{"security.protocol": "sasl_ssl", "sasl.mechanism": "OAUTHBEARER", "sasl.oauthbearer.method": "oidc"}, `sasl.oauthbearer.method`, true},
		{"OAUTHBEARER unsecure jwt without principal", kafka.ConfigMap{"security.protocol": "sasl_ssl", "sasl.mechanism": "OAUTHBEARER", "enable.sasl.oauthbearer.unsecure.jwt": true, "sasl.oauthbearer.config": "lifeSeconds=60"}, `principal`, false},
		{"oauthbearer config with PLAIN", kafka.ConfigMap{"security.protocol": "sasl_ssl", "sasl.mechanism": "PLAIN", "sasl.username": "u", "sasl.oauthbearer.config": "principal=a"}, `sasl.oauthbearer`, true},
		{"sasl default mechanism GSSAPI", kafka.ConfigMap{"security.protocol": "sasl_plaintext", "sasl.username": "u"}, `sasl.mechanisms`, true},
		{"retries 0", kafka.ConfigMap{"retries": 0, "enable.idempotence": false}, `"retries"`, true},
		{"retries 0 with idempotence", kafka.ConfigMap{"message.send.max.retries": 0}, `"retries"`, false},
		{"retries and its alias", kafka.ConfigMap{"retries": 3, "message.send.max.retries": 3}, `"message.send.max.retries" and "retries"`, false},
		{"go.batch.producer as string", kafka.ConfigMap{"go.batch.producer": "true"}, `go.batch.producer`, false},
		{"allow.auto.create.topics not a bool", kafka.ConfigMap{"allow.auto.create.topics": "sometimes"}, `"allow.auto.create.topics"`, false},
		{"acks 0 with idempotence", kafka.ConfigMap{"acks": "0", "enable.idempotence": true}, `"enable.idempotence"`, false},
		{"max.in.flight over 5 with idempotence", kafka.ConfigMap{"max.in.flight": 10}, `"max.in.flight"`, false},
		{"acks 2", kafka.ConfigMap{"acks": 2}, `"acks"`, false},
		{"codec", kafka.ConfigMap{"compression.type": "brotli"}, `"compression.type"`, false},
		{"partitioner", kafka.ConfigMap{"partitioner": "round_robin"}, `"partitioner"`, false},
		{"negative linger", kafka.ConfigMap{"linger.ms": -1}, `"linger.ms"`, false},
		{"batch.size 0", kafka.ConfigMap{"batch.size": 0}, `"batch.size"`, false},
		{"message.max.bytes too small", kafka.ConfigMap{"message.max.bytes": 10}, `"message.max.bytes"`, false},
		{"not an integer", kafka.ConfigMap{"request.timeout.ms": "soon"}, `"request.timeout.ms"`, false},
		{"not a bool", kafka.ConfigMap{"enable.idempotence": "maybe"}, `"enable.idempotence"`, false},
		{"value type", kafka.ConfigMap{"client.id": 1.5}, `client.id`, false},
		{"go.delivery.reports as string", kafka.ConfigMap{"go.delivery.reports": "true"}, `go.delivery.reports`, false},
		{"go.events.channel.size as string", kafka.ConfigMap{"go.events.channel.size": "10"}, `go.events.channel.size`, false},
		{"go.logs.channel of another type", kafka.ConfigMap{"go.logs.channel": make(chan string)}, `go.logs.channel`, false},
		{"log_level above 7", kafka.ConfigMap{"log_level": 8}, `"log_level"`, false},
		{"alias twice", kafka.ConfigMap{"linger.ms": 1, "queue.buffering.max.ms": 2}, `"linger.ms" and "queue.buffering.max.ms"`, false},
		{"cert without key", kafka.ConfigMap{"security.protocol": "ssl", "ssl.certificate.location": "/c.pem"}, `"ssl.key.location"`, false},
		{"missing CA file", kafka.ConfigMap{"security.protocol": "ssl", "ssl.ca.location": "/no/such/ca.pem"}, `"ssl.ca.location"`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			conf := kafka.ConfigMap{"bootstrap.servers": "127.0.0.1:1"}
			for k, v := range tc.conf {
				conf[k] = v
			}
			p, err := kafka.NewProducer(&conf)
			require.Nil(t, p)
			require.Error(t, err)
			var ke kafka.Error
			require.True(t, errors.As(err, &ke), "%T", err)
			require.Equal(t, kafka.ErrInvalidArg, ke.Code())
			require.Contains(t, err.Error(), tc.names)
			require.NotContains(t, err.Error(), "\n")
			require.False(t, ke.IsFatal())
			require.True(t, errors.Is(err, client.ErrInvalidConfig), "errors.Is(err, client.ErrInvalidConfig): %v", err)
			require.Equal(t, tc.unsupported, errors.Is(err, kafka.ErrUnsupportedProperty), "errors.Is(err, ErrUnsupportedProperty): %v", err)
		})
	}
}

func TestMissingBootstrap(t *testing.T) {
	_, err := kafka.NewProducer(&kafka.ConfigMap{"acks": "all"})
	require.ErrorContains(t, err, "bootstrap.servers")
	_, err = kafka.NewProducer(nil)
	require.ErrorContains(t, err, "bootstrap.servers")
}

// TestConfigMap covers SetKey's "{topic}." form, Set and Get's type check,
// as confluent-kafka-go defines them.
func TestConfigMap(t *testing.T) {
	m := kafka.ConfigMap{}
	require.NoError(t, m.SetKey("bootstrap.servers", "a:1"))
	require.NoError(t, m.SetKey("{topic}.acks", "all"))
	require.NoError(t, m.Set("linger.ms=7"))
	require.Error(t, m.Set("nonsense"))
	v, err := m.Get("{topic}.acks", "")
	require.NoError(t, err)
	require.Equal(t, "all", v)
	v, err = m.Get("linger.ms", "")
	require.NoError(t, err)
	require.Equal(t, "7", v)
	_, err = m.Get("linger.ms", 0)
	require.ErrorContains(t, err, "linger.ms expects type int, not string")
	v, err = m.Get("absent", 42)
	require.NoError(t, err)
	require.Equal(t, 42, v)
	require.Equal(t, kafka.ConfigMap{"acks": "all"}, m["default.topic.config"])
	p, err := kafka.NewProducer(&m)
	require.NoError(t, err)
	p.Close()
	require.True(t, strings.HasPrefix(p.String(), "rdkafka#producer-"), p.String())
}
