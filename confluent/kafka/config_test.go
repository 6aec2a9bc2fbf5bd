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
		{"transactional.id without idempotence", kafka.ConfigMap{"transactional.id": "tx", "enable.idempotence": false}, "`transactional.id` requires `enable.idempotence=true`", false},
		{"transactional.id with acks 1", kafka.ConfigMap{"transactional.id": "tx", "acks": 1}, "`acks` must be set to `all` when `enable.idempotence` is true", false},
		{"message.timeout.ms above transaction.timeout.ms", kafka.ConfigMap{"transactional.id": "tx", "transaction.timeout.ms": 10000, "message.timeout.ms": 10001}, "`message.timeout.ms` must be set <= `transaction.timeout.ms`", false},
		{"socket.timeout.ms above transaction.timeout.ms + 100", kafka.ConfigMap{"transactional.id": "tx", "transaction.timeout.ms": 1000, "socket.timeout.ms": 1101}, "`socket.timeout.ms` must be set <= `transaction.timeout.ms` + 100", false},
		{"transaction.timeout.ms below 1000", kafka.ConfigMap{"transaction.timeout.ms": 999}, `Configuration property "transaction.timeout.ms" value 999 is outside allowed range 1000..2147483647`, false},
		{"enable.gapless.guarantee", kafka.ConfigMap{"enable.gapless.guarantee": true}, `"enable.gapless.guarantee"`, true},
		{"sasl.kerberos.service.name", kafka.ConfigMap{"sasl.kerberos.service.name": "kafka"}, `"sasl.kerberos.service.name"`, true},
		{"plugin.library.paths", kafka.ConfigMap{"plugin.library.paths": "x.so"}, `"plugin.library.paths"`, true},
		{"a C callback", kafka.ConfigMap{"dr_cb": "f"}, `Property "dr_cb" must be set through dedicated .._set_..() function`, true},
		{"an internal property", kafka.ConfigMap{"ssl_key": "k"}, `Internal property "ssl_key" not settable`, true},
		{"a C pointer at topic level", kafka.ConfigMap{"default.topic.config": kafka.ConfigMap{"opaque": "x"}}, `"opaque"`, true},
		{"topic.blacklist", kafka.ConfigMap{"topic.blacklist": "^secret.*"}, `"topic.blacklist"`, true},
		{"ssl.cipher.suites", kafka.ConfigMap{"security.protocol": "ssl", "ssl.cipher.suites": "ECDHE-RSA-AES256-GCM-SHA384"}, `"ssl.cipher.suites"`, true},
		{"ssl.keystore.location", kafka.ConfigMap{"security.protocol": "ssl", "ssl.keystore.location": "/ks.p12"}, `"ssl.keystore.location"`, true},
		{"lifo", kafka.ConfigMap{"queuing.strategy": "lifo", "enable.idempotence": false}, `"queuing.strategy"`, true},
		{"lifo with idempotence", kafka.ConfigMap{"default.topic.config": kafka.ConfigMap{"queuing.strategy": "lifo"}}, "`queuing.strategy` must be set to `fifo` when `enable.idempotence` is true", false},
		{"gapless without idempotence", kafka.ConfigMap{"enable.gapless.guarantee": true, "enable.idempotence": false}, "`enable.gapless.guarantee` requires `enable.idempotence` to be enabled", false},
		{"cloud metadata token", kafka.ConfigMap{"security.protocol": "sasl_ssl", "sasl.mechanism": "OAUTHBEARER", "sasl.oauthbearer.metadata.authentication.type": "aws_iam"}, `"sasl.oauthbearer.metadata.authentication.type"`, true},
		{"a feature rollsafe lacks", kafka.ConfigMap{"builtin.features": "gzip,sasl_gssapi"}, `Unsupported value "sasl_gssapi" for configuration property "builtin.features"`, true},
		{"an unknown feature", kafka.ConfigMap{"builtin.features": "gzip,teleport"}, `"builtin.features"`, false},
		{"a consumer property out of range", kafka.ConfigMap{"session.timeout.ms": 0}, `Configuration property "session.timeout.ms" value 0 is outside allowed range 1..3600000`, false},
		{"a consumer enum", kafka.ConfigMap{"auto.offset.reset": "sometime"}, `"auto.offset.reset"`, false},
		{"a debug context librdkafka lacks", kafka.ConfigMap{"debug": "broker,everything"}, `Invalid value "everything" for configuration property "debug"`, false},
		{"a reported property out of range", kafka.ConfigMap{"socket.timeout.ms": 5}, `Configuration property "socket.timeout.ms" value 5 is outside allowed range 10..300000`, false},
		{"message.timeout.ms not above linger.ms", kafka.ConfigMap{"message.timeout.ms": 10, "linger.ms": 10}, "`message.timeout.ms` must be greater than `linger.ms`", false},
		{"reconnect backoffs", kafka.ConfigMap{"reconnect.backoff.ms": 500, "reconnect.backoff.max.ms": 100}, "`reconnect.backoff.max.ms` must be >= `reconnect.backoff.ms`", false},
		{"backpressure with idempotence", kafka.ConfigMap{"queue.buffering.backpressure.threshold": 2}, "`queue.buffering.backpressure.threshold` must be set to 1", false},
		{"a topic property inherit at global level", kafka.ConfigMap{"compression.codec": "inherit"}, `"compression.codec"`, false},
		{"broker.address.family", kafka.ConfigMap{"broker.address.family": "v5"}, `"broker.address.family"`, false},
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
		{"retries 0 with idempotence", kafka.ConfigMap{"message.send.max.retries": 0}, "`retries` must be set >= 1 when `enable.idempotence` is true", false},
		{"retries and its alias", kafka.ConfigMap{"retries": 3, "message.send.max.retries": 3}, `"message.send.max.retries" and "retries"`, false},
		{"go.batch.producer as string", kafka.ConfigMap{"go.batch.producer": "true"}, `go.batch.producer`, false},
		{"allow.auto.create.topics not a bool", kafka.ConfigMap{"allow.auto.create.topics": "sometimes"}, `"allow.auto.create.topics"`, false},
		{"acks 0 with idempotence", kafka.ConfigMap{"acks": "0", "enable.idempotence": true}, "`acks` must be set to `all` when `enable.idempotence` is true", false},
		{"max.in.flight over 5 with idempotence", kafka.ConfigMap{"max.in.flight": 10}, "`max.in.flight` must be set <= 5 when `enable.idempotence` is true", false},
		{"acks 2", kafka.ConfigMap{"acks": 2}, `"acks"`, false},
		{"codec", kafka.ConfigMap{"compression.type": "brotli"}, `"compression.type"`, false},
		{"partitioner", kafka.ConfigMap{"partitioner": "round_robin"}, `"partitioner"`, false},
		{"negative linger", kafka.ConfigMap{"linger.ms": -1}, `Configuration property "linger.ms" value -1 is outside allowed range 0..900000`, false},
		{"batch.size 0", kafka.ConfigMap{"batch.size": 0}, `"batch.size"`, false},
		{"message.max.bytes too small", kafka.ConfigMap{"message.max.bytes": 10}, `"message.max.bytes"`, false},
		{"not an integer", kafka.ConfigMap{"request.timeout.ms": "soon"}, `"request.timeout.ms"`, false},
		{"not a bool", kafka.ConfigMap{"enable.idempotence": "maybe"}, `Expected bool value for "enable.idempotence": true or false`, false},
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
