package kafka

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/compress"
)

// properties is the configuration table: every property of librdkafka's
// CONFIGURATION.md (v2.15.0, the version confluent-kafka-go bundles) and
// confluent-kafka-go's go.* properties, with what NewProducer does with
// each. Any other name is an error naming it, as librdkafka reports an
// unknown property. docs/confluent.md is generated from this table
// (TestConfluentDoc); testdata/librdkafka-2.15.0-properties.txt holds
// librdkafka's list, which TestTableCoversLibrdkafka checks it against.
var properties = []property{
	{names: []string{"bootstrap.servers", "metadata.broker.list"}, scope: both, does: applied, doc: "client.Brokers: \"host:port,…\"; as in librdkafka, a host without a port is on 9092 and a \"PLAINTEXT://\" prefix is dropped. Required.", set: func(s *settings, n string, v ConfigValue) error {
		str, err := configString(n, v)
		if err != nil {
			return err
		}
		s.brokers = nil
		for _, b := range strings.Split(str, ",") {
			if b = brokerAddr(b); b != "" {
				s.brokers = append(s.brokers, b)
			}
		}
		if len(s.brokers) == 0 {
			return invalid(n, str, "no broker address")
		}
		return nil
	}},
	{names: []string{"client.id"}, scope: both, does: applied, doc: "client.ClientID (default rdkafka).", set: func(s *settings, n string, v ConfigValue) error {
		str, err := configString(n, v)
		s.clientID = str
		return err
	}},
	{names: []string{"acks", "request.required.acks"}, scope: producerOnly, does: applied, doc: "client.Acks: all|-1, 0, 1 (others are refused: brokers accept no other). 0 or 1 without enable.idempotence: not idempotent, as librdkafka's default (reported); with enable.idempotence=true an error, as in librdkafka.", topic: true, set: func(s *settings, n string, v ConfigValue) error {
		str, err := configString(n, v)
		if err != nil {
			return err
		}
		switch strings.ToLower(str) {
		case "all", "-1":
			s.acks = client.AcksAll
		case "0":
			s.acks = client.AcksNone
		case "1":
			s.acks = client.AcksLeader
		default:
			return invalid(n, str, "want all, -1, 0 or 1 (Kafka brokers accept no other acks)")
		}
		s.acksSet = true
		return nil
	}},
	{names: []string{"enable.idempotence"}, scope: producerOnly, does: applied, doc: "Default true here (librdkafka: false). false: client.DisableIdempotence — no producer id or sequence numbers, so a retried batch can be written twice or reorder a partition.", set: func(s *settings, n string, v ConfigValue) error {
		b, err := boolValue(n, v)
		s.idempotent, s.idempotenceSet = b, true
		return err
	}},
	{names: []string{"linger.ms", "queue.buffering.max.ms"}, scope: producerOnly, does: applied, doc: "client.Linger (fractional ms allowed; default 5).", set: func(s *settings, n string, v ConfigValue) error {
		ms, err := floatValue(n, v, 0, 900000)
		s.linger, s.lingerSet = time.Duration(ms*float64(time.Millisecond)), true
		return err
	}},
	{names: []string{"batch.size"}, scope: producerOnly, does: applied, doc: "client.BatchBytes: uncompressed bytes at which a batch closes.", set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 1, math.MaxInt32)
		s.batchBytes = i
		return err
	}},
	{names: []string{"batch.num.messages"}, scope: producerOnly, does: applied, doc: "client.BatchRecords: records at which a batch closes.", set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 1, 1000000)
		s.batchMessages = i
		return err
	}},
	{names: []string{"compression.type", "compression.codec"}, scope: producerOnly, does: applied, doc: "client.Compression codec: none, gzip, snappy, lz4, zstd (topic level also inherit: the global one).", topic: true, set: func(s *settings, n string, v ConfigValue) error {
		str, err := configString(n, v)
		if err != nil {
			return err
		}
		if strings.EqualFold(str, "inherit") && s.inTopic {
			return nil // the global codec
		}
		c, err := compress.ParseCodec(str)
		if err != nil {
			return invalid(n, str, "want none, gzip, snappy, lz4 or zstd")
		}
		s.codec = c
		return nil
	}},
	{names: []string{"compression.level"}, scope: producerOnly, does: applied, doc: "client.Compression level (-1: the codec's default).", topic: true, set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, -1, 12)
		s.level = i
		return err
	}},
	{names: []string{"message.timeout.ms", "delivery.timeout.ms"}, scope: producerOnly, does: applied, doc: "client.DeliveryTimeout; 0 means 100 years (librdkafka: infinite). Must be above linger.ms when both are set, as librdkafka requires. With transactional.id it defaults to transaction.timeout.ms and may not exceed it, as in librdkafka.", topic: true, set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 0, math.MaxInt32)
		s.deliveryTimeout, s.deliveryTimeoutSet = time.Duration(i)*time.Millisecond, true
		if i == 0 {
			s.deliveryTimeout = infiniteTimeout
		}
		return err
	}},
	{names: []string{"request.timeout.ms"}, scope: producerOnly, does: applied, doc: "client.RequestTimeout.", topic: true, set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 1, 900000)
		s.requestTimeout = time.Duration(i) * time.Millisecond
		return err
	}},
	{names: []string{"retry.backoff.ms"}, scope: both, does: applied, doc: "client.RetryBackoff.", set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 1, 300000)
		s.retryBackoff = time.Duration(i) * time.Millisecond
		return err
	}},
	{names: []string{"retry.backoff.max.ms"}, scope: both, does: applied, doc: "client.RetryBackoffMax: failures in a row double the backoff up to it (below retry.backoff.ms it is the backoff, as librdkafka does).", set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 1, 300000)
		s.retryBackoffMax = time.Duration(i) * time.Millisecond
		return err
	}},
	{names: []string{"max.in.flight", "max.in.flight.requests.per.connection"}, scope: both, does: applied, doc: "client.MaxInFlight, per partition (librdkafka: per connection); at most 5 with idempotence, as librdkafka requires.", set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 1, 1000000)
		s.maxInFlight = i
		return err
	}},
	{names: []string{"queue.buffering.max.messages"}, scope: producerOnly, does: applied, doc: "Produce's ErrQueueFull limit on messages queued (delivery report not yet handed over), and client.MaxBuffered.", set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 1, math.MaxInt32)
		s.maxMessages = i
		return err
	}},
	{names: []string{"queue.buffering.max.kbytes"}, scope: producerOnly, does: applied, doc: "The same limit on their key+value+header bytes.", set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 1, math.MaxInt32)
		s.maxKBytes = i
		return err
	}},
	{names: []string{"message.max.bytes"}, scope: both, does: applied, doc: "Produce's ErrMsgSizeTooLarge limit (key+value+headers+framing) and client.MaxRecordBytes.", set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 1000, 1000000000)
		s.messageMaxBytes = i
		return err
	}},
	{names: []string{"partitioner"}, scope: producerOnly, does: applied, doc: "client.WithPartitioner: random, consistent, consistent_random (CRC-32 of the key, librdkafka's default), murmur2, murmur2_random (the Java client's), fnv1a, fnv1a_random; unkeyed messages use rollsafe's sticky partitioning.", topic: true, set: func(s *settings, n string, v ConfigValue) error {
		str, err := configString(n, v)
		if err != nil {
			return err
		}
		if !slices.Contains(partitionerNames, str) {
			return invalid(n, str, "want one of "+strings.Join(partitionerNames, ", "))
		}
		s.partitioner = str
		return nil
	}},
	{names: []string{"security.protocol"}, scope: both, does: applied, doc: "ssl: client.WithTLS; sasl_plaintext: client.WithSASL; sasl_ssl: both.", set: func(s *settings, n string, v ConfigValue) error {
		str, err := configString(n, v)
		if err != nil {
			return err
		}
		switch p := strings.ToLower(str); p {
		case "plaintext", "ssl", "sasl_plaintext", "sasl_ssl":
			s.security = p
			return nil
		}
		return invalid(n, str, "want plaintext, ssl, sasl_plaintext or sasl_ssl")
	}},
	{names: []string{"ssl.ca.location"}, scope: both, does: applied, doc: "tls.Config.RootCAs from a PEM file (\"probe\" or unset: the system's roots).", set: func(s *settings, n string, v ConfigValue) error {
		str, err := configString(n, v)
		s.caFile, s.sslSet = str, append(s.sslSet, n)
		return err
	}},
	{names: []string{"ssl.certificate.location"}, scope: both, does: applied, doc: "tls.Config.Certificates from a PEM file, with ssl.key.location or ssl.key.pem.", set: func(s *settings, n string, v ConfigValue) error {
		str, err := configString(n, v)
		s.certFile, s.sslSet = str, append(s.sslSet, n)
		return err
	}},
	{names: []string{"ssl.key.location"}, scope: both, does: applied, doc: "The client certificate's private key, a PEM file (encrypted with ssl.key.password: see there).", set: func(s *settings, n string, v ConfigValue) error {
		str, err := configString(n, v)
		s.keyFile, s.sslSet = str, append(s.sslSet, n)
		return err
	}},
	{names: []string{"sasl.mechanisms", "sasl.mechanism"}, scope: both, does: applied, doc: "client.WithSASL: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512; OAUTHBEARER: client.SASLOAuthBearer. GSSAPI (librdkafka's default) is refused: rollsafe has no Kerberos.", set: func(s *settings, n string, v ConfigValue) error {
		str, err := configString(n, v)
		if err != nil {
			return err
		}
		switch m := strings.ToUpper(str); m {
		case "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER":
			s.saslMechanism = m
		default:
			return unsupported(fmt.Sprintf("Invalid value %q for configuration property %q: rollsafe supports PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 and OAUTHBEARER (not GSSAPI)", str, n))
		}
		s.saslSet = append(s.saslSet, n)
		return nil
	}},
	{names: []string{"sasl.oauthbearer.config"}, scope: both, does: applied, doc: "OAuthBearerTokenRefresh.Config; with the unsecured JWT handler: principal=N [lifeSeconds=S] [scopeClaimName=C] [scope=a,b] [extension_K=V].", set: func(s *settings, n string, v ConfigValue) error {
		str, err := configString(n, v)
		s.oauthConfig, s.saslSet = str, append(s.saslSet, n)
		return err
	}},
	{names: []string{"enable.sasl.oauthbearer.unsecure.jwt"}, scope: both, does: applied, doc: "true: unsecured JWTs (\"alg\":\"none\") made from sasl.oauthbearer.config (tests only); false: the application answers OAuthBearerTokenRefresh events with SetOAuthBearerToken.", set: func(s *settings, n string, v ConfigValue) error {
		b, err := boolValue(n, v)
		s.oauthUnsecureJWT, s.saslSet = b, append(s.saslSet, n)
		return err
	}},
	{names: []string{"sasl.oauthbearer.method"}, scope: both, does: applied, doc: "default only: tokens from SetOAuthBearerToken or the unsecured JWT handler. oidc is refused: rollsafe has no HTTP token client, and a producer would connect without the tokens the program expects.", set: func(s *settings, n string, v ConfigValue) error {
		str, err := configString(n, v)
		if err != nil {
			return err
		}
		if _, err := enumValue(n, str, []string{"default", "oidc"}); err != nil {
			return err
		}
		if strings.ToLower(str) != "default" {
			return unsupported(fmt.Sprintf("Invalid value %q for configuration property %q: rollsafe supports default (tokens from SetOAuthBearerToken or the unsecured JWT handler), not oidc", str, n))
		}
		s.saslSet = append(s.saslSet, n)
		return nil
	}},
	{names: []string{"sasl.username"}, scope: both, does: applied, doc: "The SASL user (PLAIN, SCRAM).", set: func(s *settings, n string, v ConfigValue) error {
		str, err := configString(n, v)
		s.saslUser, s.saslSet = str, append(s.saslSet, n)
		return err
	}},
	{names: []string{"sasl.password"}, scope: both, does: applied, doc: "The SASL password (PLAIN, SCRAM).", set: func(s *settings, n string, v ConfigValue) error {
		str, err := configString(n, v)
		s.saslPassword, s.saslSet = str, append(s.saslSet, n)
		return err
	}},
	{names: []string{"topic.metadata.propagation.max.ms"}, scope: both, does: applied, doc: "client.UnknownTopicWait: how long a message waits for a topic the cluster does not know before failing with ErrUnknownTopicOrPart.", set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 0, 3600000)
		s.topicWait, s.topicWaitSet = time.Duration(i)*time.Millisecond, true
		return err
	}},
	{names: []string{"metadata.max.age.ms"}, scope: both, does: applied, doc: "client.MetadataMaxAge, unless topic.metadata.refresh.interval.ms is set.", set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 1, 86400000)
		s.metadataMaxAge, s.metadataAgeSet = time.Duration(i)*time.Millisecond, true
		return err
	}},
	{names: []string{"socket.connection.setup.timeout.ms"}, scope: both, does: applied, doc: "client.DialTimeout.", set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 1000, math.MaxInt32)
		s.dialTimeout, s.dialTimeoutSet = time.Duration(i)*time.Millisecond, true
		return err
	}},
	{names: []string{"statistics.interval.ms"}, scope: both, does: applied, doc: "*Stats events on Events() at this interval (package documentation: Statistics).", set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 0, 86400000)
		s.statsInterval = time.Duration(i) * time.Millisecond
		return err
	}},
	{names: []string{"go.delivery.reports"}, scope: goOnly, does: applied, doc: "(bool, default true) delivery reports on Events() for messages produced without a channel.", set: func(s *settings, n string, v ConfigValue) error {
		b, ok := v.(bool)
		if !ok {
			return goType(n, false, v)
		}
		s.deliveryReports = b
		return nil
	}},
	{names: []string{"go.delivery.report.fields"}, scope: goOnly, does: applied, doc: "(string, default key,value) fields copied into delivery reports: key, value, headers, all, none.", set: func(s *settings, n string, v ConfigValue) error {
		str, ok := v.(string)
		if !ok {
			return goType(n, "", v)
		}
		f := messageFields{}
		for _, w := range strings.Split(str, ",") {
			switch strings.TrimSpace(w) {
			case "all":
				f = messageFields{true, true, true}
			case "none", "":
			case "key":
				f.key = true
			case "value":
				f.value = true
			case "headers":
				f.headers = true
			default:
				return newErrorFromString(ErrInvalidArg, fmt.Sprintf("Unknown message field: %s", w))
			}
		}
		s.drFields = f
		return nil
	}},
	{names: []string{"go.events.channel.size"}, scope: goOnly, does: applied, doc: "(int, default 1000000) Events() channel capacity.", set: func(s *settings, n string, v ConfigValue) error {
		i, ok := v.(int)
		if !ok {
			return goType(n, 0, v)
		}
		if i < 0 {
			return invalid(n, fmt.Sprint(i), "negative channel size")
		}
		s.eventsSize = i
		return nil
	}},
	{names: []string{"go.logs.channel.enable"}, scope: goOnly, does: applied, doc: "(bool, default false) log records on Logs() as LogEvents (Tag \"ROLLSAFE\", and CONFWARN for the reported properties).", set: func(s *settings, n string, v ConfigValue) error {
		b, ok := v.(bool)
		if !ok {
			return goType(n, false, v)
		}
		s.logsEnable = b
		return nil
	}},
	{names: []string{"go.logs.channel"}, scope: goOnly, does: applied, doc: "(chan LogEvent) the channel Logs() returns instead of one made here; never closed by the producer.", set: func(s *settings, n string, v ConfigValue) error {
		ch, ok := v.(chan LogEvent)
		if !ok {
			return goType(n, make(chan LogEvent), v)
		}
		s.logsChan = ch
		return nil
	}},
	{names: []string{"log_level"}, scope: both, does: applied, doc: "The highest syslog level forwarded to Logs(): 3 errors, 4 warnings, 6 info, 7 debug.", set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 0, 7)
		s.logLevel = i
		return err
	}},
	{names: []string{"retries", "message.send.max.retries"}, scope: producerOnly, does: reported, doc: "Reported when set below its default: rollsafe retries a failed send until message.timeout.ms, it has no retry count. 0 is refused: with enable.idempotence librdkafka refuses it too; without, a program setting it relies on no retry (no duplicate), which rollsafe cannot give.", set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 0, math.MaxInt32)
		s.retries, s.retriesSet, s.retriesName = i, true, n
		return err
	}},
	{names: []string{"allow.auto.create.topics"}, scope: both, does: applied, doc: "client.AllowAutoTopicCreation (default true for a producer, as librdkafka's): a broker with auto.create.topics.enable creates a topic the producer asks for; false: it stays unknown.", set: func(s *settings, n string, v ConfigValue) error {
		b, err := boolValue(n, v)
		s.autoCreate = b
		return err
	}},
	{names: []string{"debug"}, scope: both, does: reported, doc: "Reported: rollsafe has no librdkafka debug contexts (the value is checked against librdkafka's); log_level 7 with go.logs.channel.enable gives rollsafe's debug records.", set: func(s *settings, n string, v ConfigValue) error {
		str, err := flagsValue(n, v, debugContexts)
		if err == nil {
			s.note("%q=%q accepted and ignored: rollsafe has no librdkafka debug contexts; set log_level 7 with go.logs.channel.enable for its debug records", n, str)
		}
		return err
	}},
	{names: []string{"socket.keepalive.enable"}, scope: both, does: reported, doc: "Reported: Go's dialer enables TCP keep-alive on every broker connection (15 s).", set: func(s *settings, n string, v ConfigValue) error {
		b, err := boolValue(n, v)
		if err == nil {
			s.note("%q=%v accepted and ignored: Go's dialer enables TCP keep-alive on every broker connection (15 s)", n, b)
		}
		return err
	}},
	{names: []string{"go.batch.producer"}, scope: goOnly, does: reported, doc: "(bool) reported: rollsafe always batches (linger.ms, batch.size, batch.num.messages).", set: func(s *settings, n string, v ConfigValue) error {
		b, ok := v.(bool)
		if !ok {
			return goType(n, false, v)
		}
		s.note("%q=%v accepted and ignored: rollsafe always batches (linger.ms, batch.size, batch.num.messages)", n, b)
		return nil
	}},
	{names: []string{"go.produce.channel.size"}, scope: goOnly, does: applied, doc: "(int, default 1000000) ProduceChannel() capacity.", set: func(s *settings, n string, v ConfigValue) error {
		i, ok := v.(int)
		if !ok {
			return goType(n, 0, v)
		}
		if i < 0 {
			return invalid(n, fmt.Sprint(i), "negative channel size")
		}
		s.produceChanSize = i
		return nil
	}},
	{names: []string{"builtin.features"}, scope: both, does: applied, doc: "Checked: a program listing the features it needs gets librdkafka's error for one rollsafe lacks. rollsafe has gzip, snappy, ssl, sasl, lz4, sasl_plain, sasl_scram, zstd, sasl_oauthbearer; not regex, sasl_gssapi, plugins, http, oidc.", set: func(s *settings, n string, v ConfigValue) error {
		str, err := flagsValue(n, v, allFeatures)
		if err != nil {
			return err
		}
		for _, f := range strings.Split(str, ",") {
			f = strings.ToLower(strings.TrimLeft(strings.TrimSpace(f), "+-"))
			if why, missing := missingFeatures[f]; missing {
				return unsupported(fmt.Sprintf("Unsupported value %q for configuration property %q: %s", f, n, why))
			}
		}
		return nil
	}},
	{names: []string{"message.copy.max.bytes"}, scope: both, does: reported, doc: "Reported: the client copies every record into its batch whatever its size.", set: reportInt(0, 1000000000, "the client copies every record into its batch whatever its size")},
	{names: []string{"receive.message.max.bytes"}, scope: both, does: reported, doc: "Reported: a producer's responses are small; rollsafe reads each whole.", set: reportInt(1000, math.MaxInt32, "a producer's responses are small; rollsafe reads each whole")},
	{names: []string{"metadata.recovery.strategy"}, scope: both, does: reported, doc: "Reported: rollsafe has no re-bootstrap setting; it keeps trying the brokers it knows and bootstrap.servers.", set: reportEnum([]string{"none", "rebootstrap"}, "rollsafe has no re-bootstrap setting")},
	{names: []string{"metadata.recovery.rebootstrap.trigger.ms"}, scope: both, does: reported, doc: "Reported: see metadata.recovery.strategy.", set: reportInt(0, math.MaxInt32, "rollsafe has no re-bootstrap setting")},
	{names: []string{"topic.metadata.refresh.interval.ms"}, scope: both, does: applied, doc: "client.MetadataMaxAge, rollsafe's periodic metadata refresh (wins over metadata.max.age.ms); -1 (no periodic refresh): 100 years — metadata is still refreshed on errors.", set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, -1, 3600000)
		s.refreshInterval = time.Duration(i) * time.Millisecond
		if i <= 0 {
			s.refreshInterval = infiniteTimeout
		}
		return err
	}},
	{names: []string{"topic.metadata.refresh.fast.interval.ms"}, scope: both, does: reported, doc: "Reported: a partition without a leader refreshes metadata with retry.backoff.ms doubling to retry.backoff.max.ms.", set: reportInt(1, 60000, "a partition without a leader refreshes metadata with retry.backoff.ms doubling to retry.backoff.max.ms")},
	{names: []string{"topic.metadata.refresh.fast.cnt"}, scope: both, does: reported, doc: "Reported (deprecated, unused in librdkafka too).", set: reportInt(0, 1000, "deprecated, librdkafka does not use it either")},
	{names: []string{"topic.metadata.refresh.sparse"}, scope: both, does: reported, doc: "Reported: rollsafe asks only for the topics it produces to.", set: reportBool("rollsafe asks only for the topics it produces to")},
	{names: []string{"topic.blacklist"}, scope: both, does: refused, doc: "Refused: rollsafe does not hide topics from its metadata, so messages to a listed topic would be written instead of failing as unknown.", set: refuse("rollsafe does not hide topics from its metadata: messages to a listed topic would be written instead of failing as unknown")},
	{names: []string{"socket.timeout.ms"}, scope: both, does: reported, doc: "Reported: each request is bounded by request.timeout.ms, connecting by socket.connection.setup.timeout.ms. With transactional.id, above transaction.timeout.ms + 100 is librdkafka's error.", set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 10, 300000)
		if err == nil {
			s.socketTimeout = i
			s.noted(n, fmt.Sprint(i), "each request is bounded by request.timeout.ms, connecting by socket.connection.setup.timeout.ms")
		}
		return err
	}},
	{names: []string{"socket.blocking.max.ms"}, scope: both, does: reported, doc: "Reported (deprecated in librdkafka): Go's network poller has no such wait.", set: reportInt(1, 60000, "deprecated; Go's network poller has no such wait")},
	{names: []string{"socket.send.buffer.bytes"}, scope: both, does: applied, doc: "SO_SNDBUF of each broker connection (0: the system's default).", set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 0, 100000000)
		s.sendBuffer = i
		return err
	}},
	{names: []string{"socket.receive.buffer.bytes"}, scope: both, does: applied, doc: "SO_RCVBUF of each broker connection (0: the system's default).", set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 0, 100000000)
		s.receiveBuffer = i
		return err
	}},
	{names: []string{"socket.nagle.disable"}, scope: both, does: applied, doc: "TCP_NODELAY on each broker connection (default true, as librdkafka's and Go's); false turns Nagle's algorithm on.", set: func(s *settings, n string, v ConfigValue) error {
		b, err := boolValue(n, v)
		s.nagle = !b
		return err
	}},
	{names: []string{"socket.max.fails"}, scope: both, does: reported, doc: "Reported: a failed connection fails its requests at once and is redialled; messages retry until message.timeout.ms.", set: reportInt(0, 1000000, "a failed connection fails its requests at once and is redialled; messages retry until message.timeout.ms")},
	{names: []string{"broker.address.ttl"}, scope: both, does: reported, doc: "Reported: broker addresses are resolved at each dial (Go's resolver).", set: reportInt(0, 86400000, "broker addresses are resolved at each dial (Go's resolver)")},
	{names: []string{"broker.address.family"}, scope: both, does: applied, doc: "v4: connections dial tcp4 only; v6: tcp6 only; any: both.", set: func(s *settings, n string, v ConfigValue) error {
		e, err := enumValue(n, v, []string{"any", "v4", "v6"})
		s.addressFamily = e
		return err
	}},
	{names: []string{"connections.max.idle.ms"}, scope: both, does: reported, doc: "Reported: rollsafe keeps its broker connections; a connection the broker or a proxy closes is redialled when needed.", set: reportInt(0, math.MaxInt32, "rollsafe keeps its broker connections; a connection the broker or a proxy closes is redialled when needed")},
	{names: []string{"reconnect.backoff.jitter.ms"}, scope: both, does: reported, doc: "Reported (deprecated in librdkafka): see reconnect.backoff.ms.", set: reportInt(0, 3600000, "deprecated; reconnects wait retry.backoff.ms doubling to retry.backoff.max.ms")},
	{names: []string{"reconnect.backoff.ms"}, scope: both, does: reported, doc: "Reported: reconnects wait retry.backoff.ms doubling to retry.backoff.max.ms. Must be at most reconnect.backoff.max.ms, as librdkafka requires.", set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 0, 3600000)
		s.reconnectBackoff = i
		if err == nil {
			s.noted(n, fmt.Sprint(i), "reconnects wait retry.backoff.ms doubling to retry.backoff.max.ms")
		}
		return err
	}},
	{names: []string{"reconnect.backoff.max.ms"}, scope: both, does: reported, doc: "Reported: see reconnect.backoff.ms.", set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 0, 3600000)
		s.reconnectBackoffMax = i
		if err == nil {
			s.noted(n, fmt.Sprint(i), "reconnects wait retry.backoff.ms doubling to retry.backoff.max.ms")
		}
		return err
	}},
	{names: []string{"enabled_events"}, scope: both, does: reported, doc: "Reported: confluent-kafka-go's events are always on Events().", set: reportInt(0, math.MaxInt32, "events are always on Events()")},
	{names: []string{"error_cb"}, scope: both, does: refused, doc: "Refused, as librdkafka refuses it from a configuration map: a C callback (errors come on Events()).", set: dedicated},
	{names: []string{"throttle_cb"}, scope: both, does: refused, doc: "Refused, as librdkafka refuses it from a configuration map: a C callback.", set: dedicated},
	{names: []string{"stats_cb"}, scope: both, does: refused, doc: "Refused, as librdkafka refuses it from a configuration map: a C callback (statistics come on Events()).", set: dedicated},
	{names: []string{"log_cb"}, scope: both, does: refused, doc: "Refused, as librdkafka refuses it from a configuration map: a C callback (logs come on Logs()).", set: dedicated},
	{names: []string{"log.queue"}, scope: both, does: reported, doc: "Reported: logs go to Logs() with go.logs.channel.enable.", set: reportBool("logs go to Logs() with go.logs.channel.enable")},
	{names: []string{"log.thread.name"}, scope: both, does: reported, doc: "Reported: rollsafe's log records name no thread.", set: reportBool("rollsafe's log records name no thread")},
	{names: []string{"enable.random.seed"}, scope: both, does: reported, doc: "Reported: Go seeds its random generators itself.", set: reportBool("Go seeds its random generators itself")},
	{names: []string{"log.connection.close"}, scope: both, does: reported, doc: "Reported: rollsafe logs connection closes at debug level.", set: reportBool("rollsafe logs connection closes at debug level")},
	{names: []string{"background_event_cb"}, scope: both, does: refused, doc: "Refused, as librdkafka refuses it from a configuration map: a C callback.", set: dedicated},
	{names: []string{"socket_cb"}, scope: both, does: refused, doc: "Refused, as librdkafka refuses it from a configuration map: a C callback.", set: dedicated},
	{names: []string{"connect_cb"}, scope: both, does: refused, doc: "Refused, as librdkafka refuses it from a configuration map: a C callback.", set: dedicated},
	{names: []string{"closesocket_cb"}, scope: both, does: refused, doc: "Refused, as librdkafka refuses it from a configuration map: a C callback.", set: dedicated},
	{names: []string{"open_cb"}, scope: both, does: refused, doc: "Refused, as librdkafka refuses it from a configuration map: a C callback.", set: dedicated},
	{names: []string{"resolve_cb"}, scope: both, does: refused, doc: "Refused, as librdkafka refuses it from a configuration map: a C callback.", set: dedicated},
	{names: []string{"opaque"}, scope: both, topic: true, does: refused, doc: "Refused, as librdkafka refuses it from a configuration map: a C pointer (Message.Opaque carries a per-message one).", set: dedicated},
	{names: []string{"default_topic_conf"}, scope: both, does: refused, doc: "Refused, as librdkafka refuses it from a configuration map: a C pointer (use default.topic.config or \"{topic}.\" keys).", set: dedicated},
	{names: []string{"internal.termination.signal"}, scope: both, does: reported, doc: "Reported: rollsafe's goroutines need no signal to stop.", set: reportInt(0, 128, "rollsafe's goroutines need no signal to stop")},
	{names: []string{"api.version.request"}, scope: both, does: reported, doc: "Reported (deprecated in librdkafka): rollsafe always asks brokers their API versions, and needs brokers that answer (Kafka 0.10+).", set: reportBool("rollsafe always asks brokers their API versions")},
	{names: []string{"api.version.request.timeout.ms"}, scope: both, does: reported, doc: "Reported: the ApiVersions request is bounded by request.timeout.ms.", set: reportInt(1, 300000, "the ApiVersions request is bounded by request.timeout.ms")},
	{names: []string{"api.version.fallback.ms"}, scope: both, does: reported, doc: "Reported (deprecated in librdkafka): see api.version.request.", set: reportInt(0, 604800000, "rollsafe always asks brokers their API versions")},
	{names: []string{"broker.version.fallback"}, scope: both, does: reported, doc: "Reported (deprecated in librdkafka): see api.version.request.", set: reportString("rollsafe always asks brokers their API versions")},
	{names: []string{"ssl.cipher.suites"}, scope: both, does: refused, doc: "Refused: Go's crypto/tls chooses the cipher suites; ignoring a restriction would let connections use suites the program excluded.", set: refuse("Go's crypto/tls chooses the cipher suites; ignoring this restriction would let connections use suites the program excluded")},
	{names: []string{"ssl.curves.list"}, scope: both, does: refused, doc: "Refused: as ssl.cipher.suites, for key-exchange curves.", set: refuse("Go's crypto/tls chooses the curves; ignoring this restriction would let connections use curves the program excluded")},
	{names: []string{"ssl.sigalgs.list"}, scope: both, does: refused, doc: "Refused: as ssl.cipher.suites, for signature algorithms.", set: refuse("Go's crypto/tls chooses the signature algorithms; ignoring this restriction would let connections use ones the program excluded")},
	{names: []string{"ssl.key.password"}, scope: both, does: applied, doc: "Decrypts an encrypted PEM private key (RFC 1423 \"Proc-Type: 4,ENCRYPTED\"); an encrypted PKCS#8 key is an error naming it. Unused for an unencrypted key, as in librdkafka.", set: func(s *settings, n string, v ConfigValue) error {
		str, err := configString(n, v)
		s.keyPassword, s.sslSet = str, append(s.sslSet, n)
		return err
	}},
	{names: []string{"ssl.key.pem"}, scope: both, does: applied, doc: "The client certificate's private key as a PEM string (instead of ssl.key.location).", set: func(s *settings, n string, v ConfigValue) error {
		str, err := configString(n, v)
		s.keyPEM, s.sslSet = str, append(s.sslSet, n)
		return err
	}},
	{names: []string{"ssl_key"}, scope: both, does: refused, doc: "Refused, as librdkafka refuses it: internal (set by rd_kafka_conf_set_ssl_cert; use ssl.key.pem).", set: internal},
	{names: []string{"ssl.certificate.pem"}, scope: both, does: applied, doc: "The client certificate as a PEM string (instead of ssl.certificate.location).", set: func(s *settings, n string, v ConfigValue) error {
		str, err := configString(n, v)
		s.certPEM, s.sslSet = str, append(s.sslSet, n)
		return err
	}},
	{names: []string{"ssl_certificate"}, scope: both, does: refused, doc: "Refused, as librdkafka refuses it: internal (use ssl.certificate.pem).", set: internal},
	{names: []string{"https.ca.location"}, scope: both, does: reported, doc: "Reported: only for OIDC token retrieval over HTTPS, which rollsafe does not have (sasl.oauthbearer.method=oidc is refused).", set: reportString("only for OIDC token retrieval, which rollsafe does not have")},
	{names: []string{"https.ca.pem"}, scope: both, does: reported, doc: "Reported: see https.ca.location.", set: reportString("only for OIDC token retrieval, which rollsafe does not have")},
	{names: []string{"ssl.ca.pem"}, scope: both, does: applied, doc: "tls.Config.RootCAs from PEM text (with ssl.ca.location, both are trusted).", set: func(s *settings, n string, v ConfigValue) error {
		str, err := configString(n, v)
		s.caPEM, s.sslSet = str, append(s.sslSet, n)
		return err
	}},
	{names: []string{"ssl_ca"}, scope: both, does: refused, doc: "Refused, as librdkafka refuses it: internal (use ssl.ca.pem).", set: internal},
	{names: []string{"ssl.ca.certificate.stores"}, scope: both, does: reported, doc: "Reported: Windows certificate stores; Go uses the system's roots on every platform when ssl.ca.location is unset.", set: reportString("Go uses the system's roots when ssl.ca.location is unset")},
	{names: []string{"ssl.crl.location"}, scope: both, does: refused, doc: "Refused: rollsafe does not check certificate revocation lists; ignoring one would accept a revoked broker certificate.", set: refuse("rollsafe does not check certificate revocation lists; ignoring this one would accept a revoked broker certificate")},
	{names: []string{"ssl.keystore.location"}, scope: both, does: refused, doc: "Refused: PKCS#12 keystores are not read (Go's standard library has no PKCS#12); without it the connection would have no client certificate. Convert it to PEM: ssl.certificate.location and ssl.key.location.", set: refuse("PKCS#12 keystores are not read; without it the connection would have no client certificate: convert it to PEM (ssl.certificate.location, ssl.key.location)")},
	{names: []string{"ssl.keystore.password"}, scope: both, does: refused, doc: "Refused: see ssl.keystore.location.", set: refuse("PKCS#12 keystores are not read: convert the keystore to PEM (ssl.certificate.location, ssl.key.location)")},
	{names: []string{"ssl.providers"}, scope: both, does: refused, doc: "Refused: OpenSSL providers (a key in an HSM…) do not exist in Go's crypto/tls; the connection would lack what they provide.", set: refuse("OpenSSL providers do not exist in Go's crypto/tls; the connection would lack what they provide")},
	{names: []string{"ssl.engine.location"}, scope: both, does: refused, doc: "Refused: OpenSSL engines do not exist in Go's crypto/tls.", set: refuse("OpenSSL engines do not exist in Go's crypto/tls; the connection would lack what the engine provides")},
	{names: []string{"ssl.engine.id"}, scope: both, does: refused, doc: "Refused: see ssl.engine.location.", set: refuse("OpenSSL engines do not exist in Go's crypto/tls")},
	{names: []string{"ssl_engine_callback_data"}, scope: both, does: refused, doc: "Refused, as librdkafka refuses it from a configuration map: a C pointer.", set: dedicated},
	{names: []string{"enable.ssl.certificate.verification"}, scope: both, does: applied, doc: "false: the broker's certificate is not verified (tls.Config.InsecureSkipVerify), as librdkafka.", set: func(s *settings, n string, v ConfigValue) error {
		b, err := boolValue(n, v)
		s.skipVerify, s.sslSet = !b, append(s.sslSet, n)
		return err
	}},
	{names: []string{"ssl.endpoint.identification.algorithm"}, scope: both, does: applied, doc: "https (default): the broker's certificate must name the host dialled; none: the chain is verified but not the name, as librdkafka.", set: func(s *settings, n string, v ConfigValue) error {
		e, err := enumValue(n, v, []string{"none", "https"})
		s.noHostname, s.sslSet = e == "none", append(s.sslSet, n)
		return err
	}},
	{names: []string{"ssl.certificate.verify_cb"}, scope: both, does: refused, doc: "Refused, as librdkafka refuses it from a configuration map: a C callback.", set: dedicated},
	{names: []string{"sasl.kerberos.service.name"}, scope: both, does: reported, doc: "Reported: Kerberos (GSSAPI) only, which rollsafe does not have.", set: kerberos},
	{names: []string{"sasl.kerberos.principal"}, scope: both, does: reported, doc: "Reported: Kerberos only.", set: kerberos},
	{names: []string{"sasl.kerberos.kinit.cmd"}, scope: both, does: reported, doc: "Reported: Kerberos only.", set: kerberos},
	{names: []string{"sasl.kerberos.keytab"}, scope: both, does: reported, doc: "Reported: Kerberos only.", set: kerberos},
	{names: []string{"sasl.kerberos.min.time.before.relogin"}, scope: both, does: reported, doc: "Reported: Kerberos only.", set: func(s *settings, n string, v ConfigValue) error {
		if _, err := intValue(n, v, 0, 86400000); err != nil {
			return err
		}
		return kerberos(s, n, v)
	}},
	{names: []string{"oauthbearer_token_refresh_cb"}, scope: both, does: refused, doc: "Refused, as librdkafka refuses it from a configuration map: a C callback (OAuthBearerTokenRefresh events come on Events()).", set: dedicated},
	{names: []string{"sasl.oauthbearer.client.id", "sasl.oauthbearer.client.credentials.client.id"}, scope: both, does: reported, doc: "Reported: OIDC only (sasl.oauthbearer.method=oidc, refused).", set: oidc(nil)},
	{names: []string{"sasl.oauthbearer.client.secret", "sasl.oauthbearer.client.credentials.client.secret"}, scope: both, does: reported, doc: "Reported: OIDC only.", set: oidc(nil)},
	{names: []string{"sasl.oauthbearer.scope"}, scope: both, does: reported, doc: "Reported: OIDC only.", set: oidc(nil)},
	{names: []string{"sasl.oauthbearer.extensions"}, scope: both, does: reported, doc: "Reported: OIDC only (the unsecured JWT handler takes extension_K=V in sasl.oauthbearer.config).", set: oidc(nil)},
	{names: []string{"sasl.oauthbearer.token.endpoint.url"}, scope: both, does: reported, doc: "Reported: OIDC only.", set: oidc(nil)},
	{names: []string{"sasl.oauthbearer.sub.claim.name"}, scope: both, does: reported, doc: "Reported: OIDC only.", set: oidc(nil)},
	{names: []string{"sasl.oauthbearer.grant.type"}, scope: both, does: reported, doc: "Reported: OIDC only.", set: oidc(enumCheck("client_credentials", "urn:ietf:params:oauth:grant-type:jwt-bearer"))},
	{names: []string{"sasl.oauthbearer.assertion.algorithm"}, scope: both, does: reported, doc: "Reported: OIDC only.", set: oidc(enumCheck("RS256", "ES256"))},
	{names: []string{"sasl.oauthbearer.assertion.private.key.file"}, scope: both, does: reported, doc: "Reported: OIDC only.", set: oidc(nil)},
	{names: []string{"sasl.oauthbearer.assertion.private.key.passphrase"}, scope: both, does: reported, doc: "Reported: OIDC only.", set: oidc(nil)},
	{names: []string{"sasl.oauthbearer.assertion.private.key.pem"}, scope: both, does: reported, doc: "Reported: OIDC only.", set: oidc(nil)},
	{names: []string{"sasl.oauthbearer.assertion.file"}, scope: both, does: reported, doc: "Reported: OIDC only.", set: oidc(nil)},
	{names: []string{"sasl.oauthbearer.assertion.claim.aud"}, scope: both, does: reported, doc: "Reported: OIDC only.", set: oidc(nil)},
	{names: []string{"sasl.oauthbearer.assertion.claim.exp.seconds"}, scope: both, does: reported, doc: "Reported: OIDC only.", set: oidc(intCheck(1, math.MaxInt32))},
	{names: []string{"sasl.oauthbearer.assertion.claim.iss"}, scope: both, does: reported, doc: "Reported: OIDC only.", set: oidc(nil)},
	{names: []string{"sasl.oauthbearer.assertion.claim.jti.include"}, scope: both, does: reported, doc: "Reported: OIDC only.", set: oidc(boolCheck)},
	{names: []string{"sasl.oauthbearer.assertion.claim.nbf.seconds"}, scope: both, does: reported, doc: "Reported: OIDC only.", set: oidc(intCheck(0, math.MaxInt32))},
	{names: []string{"sasl.oauthbearer.assertion.claim.sub"}, scope: both, does: reported, doc: "Reported: OIDC only.", set: oidc(nil)},
	{names: []string{"sasl.oauthbearer.assertion.jwt.template.file"}, scope: both, does: reported, doc: "Reported: OIDC only.", set: oidc(nil)},
	{names: []string{"sasl.oauthbearer.metadata.authentication.type"}, scope: both, does: applied, doc: "none only; azure_imds and aws_iam are refused: rollsafe fetches no token from a cloud metadata service, and would log in without the token the program expects.", set: func(s *settings, n string, v ConfigValue) error {
		e, err := enumValue(n, v, []string{"none", "azure_imds", "aws_iam"})
		if err != nil {
			return err
		}
		if e != "none" {
			return unsupported(fmt.Sprintf("Invalid value %q for configuration property %q: rollsafe fetches no token from a cloud metadata service; give tokens with SetOAuthBearerToken", e, n))
		}
		s.saslSet = append(s.saslSet, n)
		return nil
	}},
	{names: []string{"plugin.library.paths"}, scope: both, does: refused, doc: "Refused: librdkafka plugins are C libraries rollsafe cannot load; the program would lose what they do (interceptors, monitoring).", set: refuse("librdkafka plugins are C libraries rollsafe cannot load; the program would lose what they do")},
	{names: []string{"interceptors"}, scope: both, does: refused, doc: "Refused, as librdkafka refuses it: internal.", set: internal},
	{names: []string{"client.rack"}, scope: both, does: reported, doc: "Reported: only consumers fetch from a nearby replica.", set: reportString("only consumers fetch from a nearby replica")},
	{names: []string{"transactional.id"}, scope: producerOnly, does: applied, doc: "client.TransactionalID: the transactional producer (InitTransactions, BeginTransaction, CommitTransaction, AbortTransaction). As in librdkafka it enables idempotence (enable.idempotence=false with it is librdkafka's error, so is acks other than all), and message.timeout.ms defaults to transaction.timeout.ms.", set: func(s *settings, n string, v ConfigValue) error {
		str, err := configString(n, v)
		s.txnID = str
		return err
	}},
	{names: []string{"transaction.timeout.ms"}, scope: producerOnly, does: applied, doc: "client.TransactionTimeout (default 60000, as librdkafka): how long the coordinator lets a transaction stay open before aborting it; above the broker's transaction.max.timeout.ms InitTransactions fails. Without transactional.id it changes nothing (reported).", set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 1000, math.MaxInt32)
		s.txnTimeout, s.txnTimeoutSet = time.Duration(i)*time.Millisecond, true
		return err
	}},
	{names: []string{"enable.gapless.guarantee"}, scope: producerOnly, does: refused, doc: "false accepted (librdkafka's default). true is refused: librdkafka then raises a fatal error when a failed message leaves a gap; rollsafe fails that message and goes on. true without enable.idempotence is librdkafka's error.", set: func(s *settings, n string, v ConfigValue) error {
		b, err := boolValue(n, v)
		if err != nil || !b {
			return err
		}
		s.gapless = true
		return nil
	}},
	{names: []string{"queue.buffering.backpressure.threshold"}, scope: producerOnly, does: reported, doc: "Reported: batches are sent as soon as they close. Above 1 with enable.idempotence is librdkafka's error.", set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 1, 1000000)
		s.backpressure = i
		if err == nil {
			s.noted(n, fmt.Sprint(i), "batches are sent as soon as they close")
		}
		return err
	}},
	{names: []string{"delivery.report.only.error"}, scope: producerOnly, does: applied, doc: "true: only failed messages get a delivery report (on Events() or the Produce channel), as librdkafka.", set: func(s *settings, n string, v ConfigValue) error {
		b, err := boolValue(n, v)
		s.onlyErrors = b
		return err
	}},
	{names: []string{"dr_cb"}, scope: producerOnly, does: refused, doc: "Refused, as librdkafka refuses it from a configuration map: a C callback (reports come on Events()).", set: dedicated},
	{names: []string{"dr_msg_cb"}, scope: producerOnly, does: refused, doc: "Refused, as librdkafka refuses it from a configuration map: a C callback.", set: dedicated},
	{names: []string{"sticky.partitioning.linger.ms"}, scope: producerOnly, does: reported, doc: "Reported: unkeyed messages stick to a partition until its batch closes (KIP-794's uniform sticky partitioning), not for a time.", set: reportInt(0, 900000, "unkeyed messages stick to a partition until its batch closes (uniform sticky partitioning), not for a time")},
	{names: []string{"client.dns.lookup"}, scope: both, does: reported, doc: "Reported: each dial tries every address the name resolves to (Go's dialer).", set: reportEnum([]string{"use_all_dns_ips", "resolve_canonical_bootstrap_servers_only"}, "each dial tries every address the name resolves to (Go's dialer)")},
	{names: []string{"enable.metrics.push"}, scope: both, does: reported, doc: "Reported: rollsafe pushes no client metrics to brokers (KIP-714); its metrics are the Stats events and client.Hooks.", set: reportBool("rollsafe pushes no client metrics to brokers (KIP-714)")},
	{names: []string{"queuing.strategy"}, scope: producerOnly, topic: true, does: applied, doc: "fifo, rollsafe's only order. lifo is refused: messages would still go out in FIFO order (with enable.idempotence, librdkafka's error).", set: func(s *settings, n string, v ConfigValue) error {
		e, err := enumValue(n, v, []string{"fifo", "lifo"})
		s.lifo = e == "lifo"
		return err
	}},
	{names: []string{"produce.offset.report"}, scope: producerOnly, topic: true, does: reported, doc: "Reported (deprecated in librdkafka): every delivery report carries its offset.", set: reportBool("deprecated; every delivery report carries its offset")},
	{names: []string{"partitioner_cb"}, scope: producerOnly, topic: true, does: refused, doc: "Refused, as librdkafka refuses it from a configuration map: a C callback.", set: dedicated},
	{names: []string{"msg_order_cmp"}, scope: producerOnly, topic: true, does: refused, doc: "Refused, as librdkafka refuses it from a configuration map: a C callback.", set: dedicated},
	// Consumer properties: librdkafka's producer accepts them, warning that
	// it ignores them.
	{names: []string{"group.id"}, scope: consumerOnly, does: reported, set: consumer(nil)},
	{names: []string{"group.instance.id"}, scope: consumerOnly, does: reported, set: consumer(nil)},
	{names: []string{"partition.assignment.strategy"}, scope: consumerOnly, does: reported, set: consumer(nil)},
	{names: []string{"session.timeout.ms"}, scope: consumerOnly, does: reported, set: consumer(intCheck(1, 3600000))},
	{names: []string{"heartbeat.interval.ms"}, scope: consumerOnly, does: reported, set: consumer(intCheck(1, 3600000))},
	{names: []string{"group.protocol.type"}, scope: consumerOnly, does: reported, set: consumer(nil)},
	{names: []string{"group.protocol"}, scope: consumerOnly, does: reported, set: consumer(enumCheck("classic", "consumer"))},
	{names: []string{"group.remote.assignor"}, scope: consumerOnly, does: reported, set: consumer(nil)},
	{names: []string{"coordinator.query.interval.ms"}, scope: consumerOnly, does: reported, set: consumer(intCheck(1, 3600000))},
	{names: []string{"max.poll.interval.ms"}, scope: consumerOnly, does: reported, set: consumer(intCheck(1, 86400000))},
	{names: []string{"enable.auto.commit"}, scope: consumerOnly, topic: true, does: reported, set: consumer(boolCheck)},
	{names: []string{"auto.commit.interval.ms"}, scope: consumerOnly, topic: true, does: reported, set: consumer(intCheck(0, 86400000))},
	{names: []string{"enable.auto.offset.store"}, scope: consumerOnly, does: reported, set: consumer(boolCheck)},
	{names: []string{"queued.min.messages"}, scope: consumerOnly, does: reported, set: consumer(intCheck(1, 10000000))},
	{names: []string{"queued.max.messages.kbytes"}, scope: consumerOnly, does: reported, set: consumer(intCheck(1, 2097151))},
	{names: []string{"fetch.wait.max.ms"}, scope: consumerOnly, does: reported, set: consumer(intCheck(0, 300000))},
	{names: []string{"fetch.queue.backoff.ms"}, scope: consumerOnly, does: reported, set: consumer(intCheck(0, 300000))},
	{names: []string{"fetch.message.max.bytes", "max.partition.fetch.bytes"}, scope: consumerOnly, does: reported, set: consumer(intCheck(1, 1000000000))},
	{names: []string{"fetch.max.bytes"}, scope: consumerOnly, does: reported, set: consumer(intCheck(0, 2147483135))},
	{names: []string{"fetch.min.bytes"}, scope: consumerOnly, does: reported, set: consumer(intCheck(0, math.MaxInt32))},
	{names: []string{"fetch.error.backoff.ms"}, scope: consumerOnly, does: reported, set: consumer(intCheck(0, 300000))},
	{names: []string{"offset.store.method"}, scope: consumerOnly, topic: true, does: reported, set: consumer(enumCheck("none", "file", "broker"))},
	{names: []string{"isolation.level"}, scope: consumerOnly, does: reported, set: consumer(enumCheck("read_uncommitted", "read_committed"))},
	{names: []string{"consume_cb"}, scope: consumerOnly, does: refused, doc: "Refused, as librdkafka refuses it from a configuration map: a C callback.", set: dedicated},
	{names: []string{"rebalance_cb"}, scope: consumerOnly, does: refused, doc: "Refused, as librdkafka refuses it from a configuration map: a C callback.", set: dedicated},
	{names: []string{"offset_commit_cb"}, scope: consumerOnly, does: refused, doc: "Refused, as librdkafka refuses it from a configuration map: a C callback.", set: dedicated},
	{names: []string{"enable.partition.eof"}, scope: consumerOnly, does: reported, set: consumer(boolCheck)},
	{names: []string{"check.crcs"}, scope: consumerOnly, does: reported, set: consumer(boolCheck)},
	{names: []string{"max.poll.records"}, scope: consumerOnly, does: reported, set: consumer(intCheck(1, math.MaxInt32))},
	{names: []string{"share.acknowledgement.mode"}, scope: consumerOnly, does: reported, set: consumer(nil)},
	{names: []string{"auto.commit.enable"}, scope: consumerOnly, topic: true, does: reported, set: consumer(boolCheck)},
	{names: []string{"auto.offset.reset"}, scope: consumerOnly, topic: true, does: reported, set: consumer(enumCheck("smallest", "earliest", "beginning", "largest", "latest", "end", "error"))},
	{names: []string{"offset.store.path"}, scope: consumerOnly, topic: true, does: reported, set: consumer(nil)},
	{names: []string{"offset.store.sync.interval.ms"}, scope: consumerOnly, topic: true, does: reported, set: consumer(intCheck(-1, 86400000))},
	{names: []string{"consume.callback.max.messages"}, scope: consumerOnly, topic: true, does: reported, set: consumer(intCheck(0, 1000000))},
}

// partitionerNames are librdkafka's partitioner names (all implemented).
var partitionerNames = []string{"random", "consistent", "consistent_random", "murmur2", "murmur2_random", "fnv1a", "fnv1a_random"}

// debugContexts are librdkafka's debug values.
var debugContexts = []string{"generic", "broker", "topic", "metadata", "feature", "queue", "msg", "protocol", "cgrp", "security", "fetch", "interceptor", "plugin", "consumer", "admin", "eos", "mock", "assignor", "conf", "telemetry", "all"}
