package kafka

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/compress"
)

// propertyCases sets every supported property (and alias) to a value other
// than its default and says what it must map to.
var propertyCases = []struct {
	name  string
	value ConfigValue
	check func(t *testing.T, s settings)
}{
	{"bootstrap.servers", "PLAINTEXT://a:1, b:2", func(t *testing.T, s settings) { require.Equal(t, []string{"a:1", "b:2"}, s.brokers) }},
	// As librdkafka reads them: no port is 9092, an IPv6 host in brackets
	// before a port, a URL's path ignored.
	{"bootstrap.servers", "localhost,plaintext://b/x, [::1]:9, ::1,[fe80::1],10.0.0.1", func(t *testing.T, s settings) {
		require.Equal(t, []string{"localhost:9092", "b:9092", "[::1]:9", "[::1]:9092", "[fe80::1]:9092", "10.0.0.1:9092"}, s.brokers)
	}},
	{"metadata.broker.list", "c:3", func(t *testing.T, s settings) { require.Equal(t, []string{"c:3"}, s.brokers) }},
	{"client.id", "svc", func(t *testing.T, s settings) { require.Equal(t, "svc", s.clientID) }},
	{"acks", "all", func(t *testing.T, s settings) { require.Equal(t, client.AcksAll, s.acks) }},
	{"request.required.acks", -1, func(t *testing.T, s settings) { require.Equal(t, client.AcksAll, s.acks) }},
	{"enable.idempotence", true, func(t *testing.T, s settings) { require.True(t, s.idempotent) }},
	{"linger.ms", "0.5", func(t *testing.T, s settings) { require.Equal(t, 500*time.Microsecond, s.linger) }},
	{"queue.buffering.max.ms", 20, func(t *testing.T, s settings) { require.Equal(t, 20*time.Millisecond, s.linger) }},
	{"batch.size", 65536, func(t *testing.T, s settings) { require.Equal(t, 65536, s.batchBytes) }},
	{"batch.num.messages", 500, func(t *testing.T, s settings) { require.Equal(t, 500, s.batchMessages) }},
	{"compression.type", "zstd", func(t *testing.T, s settings) { require.Equal(t, compress.Zstd, s.codec) }},
	{"compression.codec", "lz4", func(t *testing.T, s settings) { require.Equal(t, compress.LZ4, s.codec) }},
	{"compression.level", 3, func(t *testing.T, s settings) { require.Equal(t, 3, s.level) }},
	{"message.timeout.ms", 0, func(t *testing.T, s settings) { require.Equal(t, infiniteTimeout, s.deliveryTimeout) }},
	{"delivery.timeout.ms", 4000, func(t *testing.T, s settings) { require.Equal(t, 4*time.Second, s.deliveryTimeout) }},
	{"request.timeout.ms", 5000, func(t *testing.T, s settings) { require.Equal(t, 5*time.Second, s.requestTimeout) }},
	{"retry.backoff.ms", 7, func(t *testing.T, s settings) { require.Equal(t, 7*time.Millisecond, s.retryBackoff) }},
	{"retry.backoff.max.ms", 250, func(t *testing.T, s settings) { require.Equal(t, 250*time.Millisecond, s.retryBackoffMax) }},
	{"max.in.flight", 3, func(t *testing.T, s settings) { require.Equal(t, 3, s.maxInFlight) }},
	{"max.in.flight.requests.per.connection", "2", func(t *testing.T, s settings) { require.Equal(t, 2, s.maxInFlight) }},
	{"queue.buffering.max.messages", 1000, func(t *testing.T, s settings) { require.Equal(t, 1000, s.maxMessages) }},
	{"queue.buffering.max.kbytes", 2048, func(t *testing.T, s settings) { require.Equal(t, 2048, s.maxKBytes) }},
	{"message.max.bytes", 2000000, func(t *testing.T, s settings) { require.Equal(t, 2000000, s.messageMaxBytes) }},
	{"partitioner", "murmur2_random", func(t *testing.T, s settings) { require.Equal(t, "murmur2_random", s.partitioner) }},
	{"security.protocol", "SSL", func(t *testing.T, s settings) { require.Equal(t, "ssl", s.security) }},
	{"ssl.ca.location", "probe", func(t *testing.T, s settings) { require.Equal(t, "probe", s.caFile) }},
	{"ssl.certificate.location", "CERT", func(t *testing.T, s settings) { require.Equal(t, "CERT", s.certFile) }},
	{"ssl.key.location", "KEY", func(t *testing.T, s settings) { require.Equal(t, "KEY", s.keyFile) }},
	{"sasl.mechanisms", "scram-sha-512", func(t *testing.T, s settings) { require.Equal(t, "SCRAM-SHA-512", s.saslMechanism) }},
	{"sasl.mechanism", "PLAIN", func(t *testing.T, s settings) { require.Equal(t, "PLAIN", s.saslMechanism) }},
	{"sasl.username", "alice", func(t *testing.T, s settings) { require.Equal(t, "alice", s.saslUser) }},
	{"sasl.password", "secret", func(t *testing.T, s settings) { require.Equal(t, "secret", s.saslPassword) }},
	{"sasl.oauthbearer.config", "principal=p lifeSeconds=60", func(t *testing.T, s settings) {
		require.Equal(t, "principal=p lifeSeconds=60", s.oauthConfig)
	}},
	{"enable.sasl.oauthbearer.unsecure.jwt", true, func(t *testing.T, s settings) { require.True(t, s.oauthUnsecureJWT) }},
	{"sasl.oauthbearer.method", "default", func(t *testing.T, s settings) { require.Equal(t, "OAUTHBEARER", s.saslMechanism) }},
	{"topic.metadata.propagation.max.ms", 1500, func(t *testing.T, s settings) {
		require.True(t, s.topicWaitSet)
		require.Equal(t, 1500*time.Millisecond, s.topicWait)
	}},
	{"metadata.max.age.ms", 60000, func(t *testing.T, s settings) { require.Equal(t, time.Minute, s.metadataMaxAge) }},
	{"socket.connection.setup.timeout.ms", 2000, func(t *testing.T, s settings) { require.Equal(t, 2*time.Second, s.dialTimeout) }},
	{"statistics.interval.ms", 250, func(t *testing.T, s settings) { require.Equal(t, 250*time.Millisecond, s.statsInterval) }},
	{"go.delivery.reports", false, func(t *testing.T, s settings) { require.False(t, s.deliveryReports) }},
	{"go.delivery.report.fields", "all", func(t *testing.T, s settings) { require.Equal(t, messageFields{true, true, true}, s.drFields) }},
	{"go.events.channel.size", 10, func(t *testing.T, s settings) { require.Equal(t, 10, s.eventsSize) }},
	{"go.produce.channel.size", 20, func(t *testing.T, s settings) { require.Equal(t, 20, s.produceChanSize) }},
	{"go.logs.channel.enable", true, func(t *testing.T, s settings) { require.True(t, s.logsEnable) }},
	{"go.logs.channel", logsChan, func(t *testing.T, s settings) { require.Equal(t, logsChan, s.logsChan) }},
	{"log_level", 3, func(t *testing.T, s settings) { require.Equal(t, 3, s.logLevel) }},
	{"retries", 5, func(t *testing.T, s settings) {
		require.Equal(t, 5, s.retries)
		require.Len(t, s.notes, 1)
		require.Contains(t, s.notes[0], "message.timeout.ms")
	}},
	{"message.send.max.retries", 2147483647, func(t *testing.T, s settings) {
		require.Empty(t, s.notes, "librdkafka's default changes nothing: not reported")
	}},
	{"allow.auto.create.topics", false, func(t *testing.T, s settings) { require.False(t, s.autoCreate) }},
	{"debug", "broker,msg", func(t *testing.T, s settings) { require.Len(t, s.notes, 1) }},
	{"socket.keepalive.enable", true, func(t *testing.T, s settings) { require.Len(t, s.notes, 1) }},
	{"go.batch.producer", true, func(t *testing.T, s settings) { require.Len(t, s.notes, 1) }},
	{"builtin.features", "gzip, +snappy,ssl,sasl_scram,zstd,sasl_oauthbearer", func(t *testing.T, s settings) { require.Empty(t, s.notes) }},
	{"topic.metadata.refresh.interval.ms", 20000, func(t *testing.T, s settings) { require.Equal(t, 20*time.Second, s.refreshInterval) }},
	{"socket.send.buffer.bytes", 65536, func(t *testing.T, s settings) { require.Equal(t, 65536, s.sendBuffer) }},
	{"socket.receive.buffer.bytes", 32768, func(t *testing.T, s settings) { require.Equal(t, 32768, s.receiveBuffer) }},
	{"socket.nagle.disable", false, func(t *testing.T, s settings) { require.True(t, s.nagle) }},
	{"broker.address.family", "V4", func(t *testing.T, s settings) { require.Equal(t, "v4", s.addressFamily) }},
	{"ssl.key.password", "pw", func(t *testing.T, s settings) { require.Equal(t, "pw", s.keyPassword) }},
	{"ssl.key.pem", "KEYPEM", func(t *testing.T, s settings) { require.Equal(t, "KEYPEM", s.keyPEM) }},
	{"ssl.certificate.pem", "CERTPEM", func(t *testing.T, s settings) { require.Equal(t, "CERTPEM", s.certPEM) }},
	{"ssl.ca.pem", "CAPEM", func(t *testing.T, s settings) { require.Equal(t, "CAPEM", s.caPEM) }},
	{"enable.ssl.certificate.verification", false, func(t *testing.T, s settings) { require.True(t, s.skipVerify) }},
	{"ssl.endpoint.identification.algorithm", "none", func(t *testing.T, s settings) { require.True(t, s.noHostname) }},
	{"sasl.oauthbearer.metadata.authentication.type", "none", func(t *testing.T, s settings) { require.Equal(t, "OAUTHBEARER", s.saslMechanism) }},
	{"delivery.report.only.error", true, func(t *testing.T, s settings) { require.True(t, s.onlyErrors) }},
	{"queuing.strategy", "FIFO", func(t *testing.T, s settings) { require.False(t, s.lifo) }},
	{"transactional.id", "tx-1", func(t *testing.T, s settings) {
		require.Equal(t, "tx-1", s.txnID)
		require.True(t, s.idempotent, "transactional.id enables idempotence")
		require.Equal(t, client.DefaultTransactionTimeout, s.txnTimeout, "librdkafka's default, 60000")
		require.Equal(t, s.txnTimeout, s.deliveryTimeout, "message.timeout.ms follows transaction.timeout.ms")
	}},
	{"transaction.timeout.ms", 15000, func(t *testing.T, s settings) {
		require.Equal(t, 15*time.Second, s.txnTimeout)
		require.Equal(t, 300*time.Second, s.deliveryTimeout, "no transactional.id: message.timeout.ms stays")
		require.Len(t, s.notes, 1, "reported without transactional.id")
	}},
}

// TestEveryPropertyMaps sets each supported property alone (with what it
// needs to make sense) and checks what it maps to.
func TestEveryPropertyMaps(t *testing.T) {
	covered := map[string]bool{}
	for _, tc := range propertyCases {
		t.Run(tc.name, func(t *testing.T) {
			conf := ConfigMap{tc.name: tc.value}
			if propertyByName[tc.name] != propertyByName["bootstrap.servers"] {
				conf["bootstrap.servers"] = "x:1"
			}
			switch {
			case strings.Contains(tc.name, "sasl.oauthbearer"):
				conf["security.protocol"], conf["sasl.mechanisms"] = "sasl_plaintext", "OAUTHBEARER"
				if tc.name != "sasl.oauthbearer.config" {
					conf["sasl.oauthbearer.config"] = "principal=p"
				}
			case strings.Contains(tc.name, "ssl."):
				conf["security.protocol"] = "ssl"
				if tc.name != "ssl.ca.location" {
					conf["ssl.certificate.location"], conf["ssl.key.location"] = "CERT", "KEY"
				}
			case strings.HasPrefix(tc.name, "sasl."):
				conf["security.protocol"] = "sasl_plaintext"
				if tc.name != "sasl.username" {
					conf["sasl.username"] = "u"
				}
				if tc.name != "sasl.mechanism" && tc.name != "sasl.mechanisms" {
					conf["sasl.mechanisms"] = "PLAIN"
				}
			}
			s, err := readConfig(&conf)
			require.NoError(t, err)
			tc.check(t, s)
		})
		covered[tc.name] = true
	}
	for _, p := range properties {
		for _, n := range p.names {
			require.True(t, p.does != applied || covered[n], "applied property %s has no case", n)
		}
	}
}

// TestEveryPropertyOutcome: each reported property is accepted with a
// value librdkafka accepts and reported exactly once, naming it; each
// refused one is refused, naming it, as ErrUnsupportedProperty.
func TestEveryPropertyOutcome(t *testing.T) {
	// Values librdkafka accepts for some property of each type: the first
	// one a property takes is used.
	candidates := []ConfigValue{"true", true, 1, 1000, 60000, "none", "rebootstrap", "use_all_dns_ips", "client_credentials",
		"RS256", "classic", "read_committed", "earliest", "broker", "fifo", "broker,msg", "x"}
	for _, p := range properties {
		if p.does == applied {
			continue
		}
		for _, n := range p.names {
			t.Run(n, func(t *testing.T) {
				var errs []string
				for _, v := range candidates {
					conf := ConfigMap{"bootstrap.servers": "x:1", n: v}
					switch {
					case strings.HasPrefix(n, "sasl.oauthbearer"):
						conf["security.protocol"], conf["sasl.mechanisms"] = "sasl_plaintext", "OAUTHBEARER"
					case strings.HasPrefix(n, "sasl."):
						conf["security.protocol"], conf["sasl.mechanisms"], conf["sasl.username"] = "sasl_plaintext", "PLAIN", "u"
					case strings.Contains(n, "ssl"):
						conf["security.protocol"] = "ssl"
					}
					s, err := readConfig(&conf)
					if p.does == refused {
						if err != nil && errors.Is(err, ErrUnsupportedProperty) {
							require.Contains(t, err.Error(), strconv.Quote(n))
							return
						}
					} else if err == nil {
						require.Len(t, s.notes, 1, "reported once: %q", s.notes)
						require.Contains(t, s.notes[0], n)
						return
					}
					errs = append(errs, fmt.Sprint(v, ": ", err))
				}
				t.Fatalf("%s %s: no candidate value gave that outcome: %q", n, p.does, errs)
			})
		}
	}
}

// TestTransactionalSettings: what transactional.id implies, as
// librdkafka's rd_kafka_conf_finalize applies it.
func TestTransactionalSettings(t *testing.T) {
	read := func(conf ConfigMap) settings {
		t.Helper()
		conf["bootstrap.servers"] = "x:1"
		s, err := readConfig(&conf)
		require.NoError(t, err)
		return s
	}
	s := read(ConfigMap{"transactional.id": "tx", "transaction.timeout.ms": 20000})
	require.Equal(t, 20*time.Second, s.txnTimeout)
	require.Equal(t, 20*time.Second, s.deliveryTimeout)
	require.Empty(t, s.notes)
	s = read(ConfigMap{"transactional.id": "tx", "transaction.timeout.ms": 20000, "message.timeout.ms": 5000})
	require.Equal(t, 5*time.Second, s.deliveryTimeout, "below the transaction timeout: kept")
	s = read(ConfigMap{"transactional.id": "tx", "message.timeout.ms": 0})
	require.Equal(t, infiniteTimeout, s.deliveryTimeout, "0 (infinite) passes librdkafka's check")
	s = read(ConfigMap{"transactional.id": "tx", "enable.idempotence": true, "acks": "all", "socket.timeout.ms": 60100})
	require.True(t, s.idempotent)
	s = read(ConfigMap{"transactional.id": "tx", "default.topic.config": ConfigMap{"message.timeout.ms": 1000}})
	require.Equal(t, time.Second, s.deliveryTimeout, "message.timeout.ms at topic level counts too")
	opts, err := s.clientOptions()
	require.NoError(t, err)
	p, err := client.NewProducer(opts...)
	require.NoError(t, err, "a valid transactional client configuration")
	ctx, cancel := contextWithCancel()
	cancel()
	_ = p.Close(ctx)
}

// TestClientOptionsAccepted: every default and the mapped values make a
// valid client configuration.
func TestClientOptionsAccepted(t *testing.T) {
	s := defaultSettings()
	s.brokers = []string{"127.0.0.1:1"}
	opts, err := s.clientOptions()
	require.NoError(t, err)
	p, err := client.NewProducer(opts...)
	require.NoError(t, err)
	ctx, cancel := contextWithCancel()
	cancel()
	_ = p.Close(ctx)
}

func contextWithCancel() (context.Context, context.CancelFunc) {
	return context.WithCancel(context.Background())
}

var logsChan = make(chan LogEvent, 1)
