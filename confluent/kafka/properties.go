package kafka

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/compress"
	"github.com/rollsafe/rollsafe/protocol"
)

// settings is a ConfigMap read into what NewProducer builds from it.
type settings struct {
	brokers          []string
	clientID         string
	acks             int16
	acksSet          bool
	idempotent       bool
	idempotenceSet   bool
	linger           time.Duration
	batchBytes       int
	batchMessages    int
	codec            compress.Codec
	level            int
	deliveryTimeout  time.Duration
	requestTimeout   time.Duration
	retryBackoff     time.Duration
	retryBackoffMax  time.Duration
	maxInFlight      int
	maxMessages      int
	maxKBytes        int
	messageMaxBytes  int
	partitioner      string
	security         string
	caFile           string
	certFile         string
	keyFile          string
	saslMechanism    string
	saslUser         string
	saslPassword     string
	oauthConfig      string                    // sasl.oauthbearer.config
	oauthUnsecureJWT bool                      // enable.sasl.oauthbearer.unsecure.jwt
	saslSet          []string                  // sasl.* properties given, for the meaningless check
	saslCreds        *protocol.SASLCredentials // PLAIN or SCRAM: made by clientOptions
	sslSet           []string                  // ssl.* properties given
	topicWait        time.Duration
	topicWaitSet     bool
	metadataMaxAge   time.Duration
	metadataAgeSet   bool
	dialTimeout      time.Duration
	dialTimeoutSet   bool
	statsInterval    time.Duration
	deliveryReports  bool
	drFields         messageFields
	eventsSize       int
	logsEnable       bool          // go.logs.channel.enable
	logsChan         chan LogEvent // go.logs.channel
	logLevel         int           // log_level
	produceChanSize  int
	topicLevelInside []string // keys found in default.topic.config
	autoCreate       bool     // allow.auto.create.topics
	retries          int      // retries / message.send.max.retries
	retriesSet       bool
	notes            []string // accepted properties without an effect here, reported once on Logs()
}

// messageFields says which fields delivery reports carry
// (go.delivery.report.fields).
type messageFields struct{ key, value, headers bool }

func defaultSettings() settings {
	return settings{
		clientID:        "rdkafka",
		acks:            client.AcksAll,
		idempotent:      true,
		linger:          5 * time.Millisecond,
		batchBytes:      1000000,
		batchMessages:   10000,
		codec:           compress.None,
		level:           -1,
		deliveryTimeout: 300 * time.Second,
		requestTimeout:  30 * time.Second,
		retryBackoff:    100 * time.Millisecond,
		retryBackoffMax: time.Second,
		maxInFlight:     5,
		maxMessages:     100000,
		maxKBytes:       1048576,
		messageMaxBytes: 1000000,
		partitioner:     "consistent_random",
		security:        "plaintext",
		saslMechanism:   "GSSAPI",
		deliveryReports: true,
		drFields:        messageFields{key: true, value: true},
		eventsSize:      1000000,
		produceChanSize: 1000000,
		logLevel:        6,
		autoCreate:      true,
		retries:         math.MaxInt32,
	}
}

// note records an accepted property that changes nothing here, reported
// once on Logs() (Tag "CONFWARN", as librdkafka reports ignored
// properties).
func (s *settings) note(format string, args ...any) {
	s.notes = append(s.notes, fmt.Sprintf(format, args...))
}

// property is one supported configuration property.
type property struct {
	names []string // the name, then its aliases
	topic bool     // also allowed inside default.topic.config
	set   func(s *settings, name string, v ConfigValue) error
}

// infiniteTimeout stands for librdkafka's message.timeout.ms=0 (infinite).
const infiniteTimeout = 100 * 365 * 24 * time.Hour

// properties is every property NewProducer accepts; anything else is an
// error naming it. Keep doc.go's table in step (TestDocListsEveryProperty).
var properties = []property{
	{names: []string{"bootstrap.servers", "metadata.broker.list"}, set: func(s *settings, n string, v ConfigValue) error {
		str, err := configString(n, v)
		if err != nil {
			return err
		}
		s.brokers = nil
		for _, b := range strings.Split(str, ",") {
			b = strings.TrimSpace(b)
			if _, rest, ok := strings.Cut(b, "://"); ok { // PLAINTEXT://host:port, as librdkafka allows
				b = rest
			}
			if b != "" {
				s.brokers = append(s.brokers, b)
			}
		}
		if len(s.brokers) == 0 {
			return invalid(n, str, "no broker address")
		}
		return nil
	}},
	{names: []string{"client.id"}, set: func(s *settings, n string, v ConfigValue) error {
		str, err := configString(n, v)
		s.clientID = str
		return err
	}},
	{names: []string{"acks", "request.required.acks"}, topic: true, set: func(s *settings, n string, v ConfigValue) error {
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
	{names: []string{"enable.idempotence"}, set: func(s *settings, n string, v ConfigValue) error {
		b, err := boolValue(n, v)
		s.idempotent, s.idempotenceSet = b, true
		return err
	}},
	{names: []string{"linger.ms", "queue.buffering.max.ms"}, set: func(s *settings, n string, v ConfigValue) error {
		ms, err := floatValue(n, v, 0, 900000)
		s.linger = time.Duration(ms * float64(time.Millisecond))
		return err
	}},
	{names: []string{"batch.size"}, set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 1, math.MaxInt32)
		s.batchBytes = i
		return err
	}},
	{names: []string{"batch.num.messages"}, set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 1, 1000000)
		s.batchMessages = i
		return err
	}},
	{names: []string{"compression.type", "compression.codec"}, topic: true, set: func(s *settings, n string, v ConfigValue) error {
		str, err := configString(n, v)
		if err != nil {
			return err
		}
		c, err := compress.ParseCodec(str)
		if err != nil {
			return invalid(n, str, "want none, gzip, snappy, lz4 or zstd")
		}
		s.codec = c
		return nil
	}},
	{names: []string{"compression.level"}, topic: true, set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, -1, 12)
		s.level = i
		return err
	}},
	{names: []string{"message.timeout.ms", "delivery.timeout.ms"}, topic: true, set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 0, math.MaxInt32)
		s.deliveryTimeout = time.Duration(i) * time.Millisecond
		if i == 0 {
			s.deliveryTimeout = infiniteTimeout
		}
		return err
	}},
	{names: []string{"request.timeout.ms"}, topic: true, set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 1, 900000)
		s.requestTimeout = time.Duration(i) * time.Millisecond
		return err
	}},
	{names: []string{"retry.backoff.ms"}, set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 1, 300000)
		s.retryBackoff = time.Duration(i) * time.Millisecond
		return err
	}},
	{names: []string{"retry.backoff.max.ms"}, set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 1, 300000)
		s.retryBackoffMax = time.Duration(i) * time.Millisecond
		return err
	}},
	{names: []string{"max.in.flight", "max.in.flight.requests.per.connection"}, set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 1, 1000000)
		s.maxInFlight = i
		return err
	}},
	{names: []string{"queue.buffering.max.messages"}, set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 1, math.MaxInt32)
		s.maxMessages = i
		return err
	}},
	{names: []string{"queue.buffering.max.kbytes"}, set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 1, math.MaxInt32)
		s.maxKBytes = i
		return err
	}},
	{names: []string{"message.max.bytes"}, set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 1000, 1000000000)
		s.messageMaxBytes = i
		return err
	}},
	{names: []string{"partitioner"}, topic: true, set: func(s *settings, n string, v ConfigValue) error {
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
	{names: []string{"security.protocol"}, set: func(s *settings, n string, v ConfigValue) error {
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
	{names: []string{"ssl.ca.location"}, set: func(s *settings, n string, v ConfigValue) error {
		str, err := configString(n, v)
		s.caFile, s.sslSet = str, append(s.sslSet, n)
		return err
	}},
	{names: []string{"ssl.certificate.location"}, set: func(s *settings, n string, v ConfigValue) error {
		str, err := configString(n, v)
		s.certFile, s.sslSet = str, append(s.sslSet, n)
		return err
	}},
	{names: []string{"ssl.key.location"}, set: func(s *settings, n string, v ConfigValue) error {
		str, err := configString(n, v)
		s.keyFile, s.sslSet = str, append(s.sslSet, n)
		return err
	}},
	{names: []string{"sasl.mechanisms", "sasl.mechanism"}, set: func(s *settings, n string, v ConfigValue) error {
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
	{names: []string{"sasl.oauthbearer.config"}, set: func(s *settings, n string, v ConfigValue) error {
		str, err := configString(n, v)
		s.oauthConfig, s.saslSet = str, append(s.saslSet, n)
		return err
	}},
	{names: []string{"enable.sasl.oauthbearer.unsecure.jwt"}, set: func(s *settings, n string, v ConfigValue) error {
		b, err := boolValue(n, v)
		s.oauthUnsecureJWT, s.saslSet = b, append(s.saslSet, n)
		return err
	}},
	{names: []string{"sasl.oauthbearer.method"}, set: func(s *settings, n string, v ConfigValue) error {
		str, err := configString(n, v)
		if err != nil {
			return err
		}
		if strings.ToLower(str) != "default" {
			return unsupported(fmt.Sprintf("Invalid value %q for configuration property %q: rollsafe supports default (tokens from SetOAuthBearerToken or the unsecured JWT handler), not oidc", str, n))
		}
		s.saslSet = append(s.saslSet, n)
		return nil
	}},
	{names: []string{"sasl.username"}, set: func(s *settings, n string, v ConfigValue) error {
		str, err := configString(n, v)
		s.saslUser, s.saslSet = str, append(s.saslSet, n)
		return err
	}},
	{names: []string{"sasl.password"}, set: func(s *settings, n string, v ConfigValue) error {
		str, err := configString(n, v)
		s.saslPassword, s.saslSet = str, append(s.saslSet, n)
		return err
	}},
	{names: []string{"topic.metadata.propagation.max.ms"}, set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 0, 3600000)
		s.topicWait, s.topicWaitSet = time.Duration(i)*time.Millisecond, true
		return err
	}},
	{names: []string{"metadata.max.age.ms"}, set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 1, 86400000)
		s.metadataMaxAge, s.metadataAgeSet = time.Duration(i)*time.Millisecond, true
		return err
	}},
	{names: []string{"socket.connection.setup.timeout.ms"}, set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 1000, math.MaxInt32)
		s.dialTimeout, s.dialTimeoutSet = time.Duration(i)*time.Millisecond, true
		return err
	}},
	{names: []string{"statistics.interval.ms"}, set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 0, 86400000)
		s.statsInterval = time.Duration(i) * time.Millisecond
		return err
	}},
	{names: []string{"go.delivery.reports"}, set: func(s *settings, n string, v ConfigValue) error {
		b, ok := v.(bool)
		if !ok {
			return goType(n, false, v)
		}
		s.deliveryReports = b
		return nil
	}},
	{names: []string{"go.delivery.report.fields"}, set: func(s *settings, n string, v ConfigValue) error {
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
	{names: []string{"go.events.channel.size"}, set: func(s *settings, n string, v ConfigValue) error {
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
	{names: []string{"go.logs.channel.enable"}, set: func(s *settings, n string, v ConfigValue) error {
		b, ok := v.(bool)
		if !ok {
			return goType(n, false, v)
		}
		s.logsEnable = b
		return nil
	}},
	{names: []string{"go.logs.channel"}, set: func(s *settings, n string, v ConfigValue) error {
		ch, ok := v.(chan LogEvent)
		if !ok {
			return goType(n, make(chan LogEvent), v)
		}
		s.logsChan = ch
		return nil
	}},
	{names: []string{"log_level"}, set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 0, 7)
		s.logLevel = i
		return err
	}},
	{names: []string{"retries", "message.send.max.retries"}, set: func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, 0, math.MaxInt32)
		s.retries, s.retriesSet = i, true
		return err
	}},
	{names: []string{"allow.auto.create.topics"}, set: func(s *settings, n string, v ConfigValue) error {
		b, err := boolValue(n, v)
		s.autoCreate = b
		return err
	}},
	{names: []string{"debug"}, set: func(s *settings, n string, v ConfigValue) error {
		str, err := configString(n, v)
		if err == nil {
			s.note("%q=%q accepted and ignored: rollsafe has no librdkafka debug contexts; set log_level 7 with go.logs.channel.enable for its debug records", n, str)
		}
		return err
	}},
	{names: []string{"socket.keepalive.enable"}, set: func(s *settings, n string, v ConfigValue) error {
		b, err := boolValue(n, v)
		if err == nil {
			s.note("%q=%v accepted and ignored: Go's dialer enables TCP keep-alive on every broker connection (15 s)", n, b)
		}
		return err
	}},
	{names: []string{"go.batch.producer"}, set: func(s *settings, n string, v ConfigValue) error {
		b, ok := v.(bool)
		if !ok {
			return goType(n, false, v)
		}
		s.note("%q=%v accepted and ignored: rollsafe always batches (linger.ms, batch.size, batch.num.messages)", n, b)
		return nil
	}},
	{names: []string{"go.produce.channel.size"}, set: func(s *settings, n string, v ConfigValue) error {
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
}

// partitionerNames are librdkafka's partitioner names (all implemented).
var partitionerNames = []string{"random", "consistent", "consistent_random", "murmur2", "murmur2_random", "fnv1a", "fnv1a_random"}

// propertyByName indexes properties by every name and alias.
var propertyByName = func() map[string]*property {
	m := map[string]*property{}
	for i := range properties {
		for _, n := range properties[i].names {
			m[n] = &properties[i]
		}
	}
	return m
}()

// readConfig parses conf into settings. Every unknown or unsupported
// property is named in the error, sorted.
func readConfig(conf *ConfigMap) (settings, error) {
	s := defaultSettings()
	if conf == nil {
		return s, configError("no configuration given (bootstrap.servers is required)")
	}
	keys := make([]string, 0, len(*conf))
	for k := range *conf {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var unknown []string
	seen := map[*property]string{}
	apply := func(k string, v ConfigValue, inTopic bool) error {
		p := propertyByName[k]
		if p == nil || (inTopic && !p.topic) {
			name := k
			if inTopic {
				name = topicPrefix + k
			}
			unknown = append(unknown, name)
			return nil
		}
		if other, dup := seen[p]; dup {
			return configError(fmt.Sprintf("%q and %q set the same property", other, k))
		}
		seen[p] = k
		return p.set(&s, k, v)
	}
	for _, k := range keys {
		v := (*conf)[k]
		if k == defaultTopicConfig {
			sub, ok := v.(ConfigMap)
			if !ok {
				return s, configError(fmt.Sprintf("Invalid type for key %s", k))
			}
			subKeys := make([]string, 0, len(sub))
			for sk := range sub {
				subKeys = append(subKeys, sk)
			}
			slices.Sort(subKeys)
			for _, sk := range subKeys {
				if err := apply(sk, sub[sk], true); err != nil {
					return s, err
				}
			}
			continue
		}
		if _, isMap := v.(ConfigMap); isMap {
			return s, configError(fmt.Sprintf("Invalid type for key %s", k))
		}
		if err := apply(k, v, false); err != nil {
			return s, err
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		q := make([]string, len(unknown))
		for i, u := range unknown {
			q[i] = strconv.Quote(u)
		}
		return s, unsupported(fmt.Sprintf("No such configuration property: %s (not supported by rollsafe's confluent-kafka-go producer; the package documentation lists the supported ones)", strings.Join(q, ", ")))
	}
	return s, s.check()
}

// check rejects combinations that are invalid or meaningless.
func (s *settings) check() error {
	if s.acksSet && s.acks != client.AcksAll && !s.idempotenceSet {
		// librdkafka's producer is not idempotent unless asked: acks 0 or
		// 1 alone gives a non-idempotent producer there, and here.
		s.idempotent = false
		s.note(`"acks"=%d without "enable.idempotence": a non-idempotent producer, as librdkafka's default (no sequence numbers: a retry can write a message twice or reorder a partition)`, s.acks)
	}
	if s.retriesSet {
		switch {
		case s.retries == 0 && s.idempotent:
			return configError(`"retries" must be above 0 when "enable.idempotence" is true (as librdkafka requires)`)
		case s.retries == 0:
			return unsupported(`"retries"=0: rollsafe retries every failed send until "message.timeout.ms" and cannot turn retries off, so a program relying on no retry (no duplicates without idempotence) would get them; remove "retries"`)
		case s.retries != math.MaxInt32:
			s.note(`"retries"=%d accepted and not applied: rollsafe retries a failed send until "message.timeout.ms" (%v) passes, with retry.backoff.ms doubling up to retry.backoff.max.ms`, s.retries, s.deliveryTimeout)
		}
	}
	switch {
	case len(s.brokers) == 0:
		return configError(`"bootstrap.servers" is required`)
	case s.idempotent && s.acks != client.AcksAll:
		if s.idempotenceSet {
			return configError(`"enable.idempotence" requires "acks" all (-1)`)
		}
		return configError(`"acks" other than all (-1) needs "enable.idempotence" false: rollsafe is idempotent by default`)
	case s.idempotent && s.maxInFlight > 5:
		return configError(`"max.in.flight" must be at most 5 when "enable.idempotence" is true`)
	case s.linger < 0:
		return configError(`"linger.ms" is negative`)
	}
	tls := s.security == "ssl" || s.security == "sasl_ssl"
	sasl := s.security == "sasl_plaintext" || s.security == "sasl_ssl"
	if !tls && len(s.sslSet) > 0 {
		return unsupported(fmt.Sprintf("%q is set but \"security.protocol\" is %s (no TLS): it would do nothing", s.sslSet[0], s.security))
	}
	if !sasl && len(s.saslSet) > 0 {
		return unsupported(fmt.Sprintf("%q is set but \"security.protocol\" is %s (no SASL): it would do nothing", s.saslSet[0], s.security))
	}
	if sasl {
		switch s.saslMechanism {
		case "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512":
			if s.saslUser == "" {
				return configError(`"sasl.username" is required with SASL`)
			}
			if s.oauthConfig != "" || s.oauthUnsecureJWT {
				return unsupported(fmt.Sprintf(`"sasl.oauthbearer.*" is set but "sasl.mechanisms" is %s: it would do nothing`, s.saslMechanism))
			}
		case "OAUTHBEARER":
			if s.oauthUnsecureJWT {
				if _, err := parseUnsecuredJWTConfig(s.oauthConfig); err != nil {
					return configError(fmt.Sprintf(`"sasl.oauthbearer.config": %v`, err))
				}
			}
		default:
			return unsupported(fmt.Sprintf(`"sasl.mechanisms" %s is not supported: set PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER`, s.saslMechanism))
		}
	}
	if (s.certFile == "") != (s.keyFile == "") {
		return configError(`"ssl.certificate.location" and "ssl.key.location" go together`)
	}
	return nil
}

// ErrUnsupportedProperty is wrapped by the error NewProducer returns for a
// property rollsafe does not know or that would do nothing here.
var ErrUnsupportedProperty = errors.New("kafka: unsupported configuration property")

// configError is a configuration error (code ErrInvalidArg, matching
// client.ErrInvalidConfig).
func configError(msg string) error {
	return Error{code: ErrInvalidArg, str: msg, err: client.ErrInvalidConfig}
}

// unsupported is configError for properties rollsafe does not have or that
// would do nothing; it also matches ErrUnsupportedProperty.
func unsupported(msg string) error {
	return Error{code: ErrInvalidArg, str: msg, err: errors.Join(client.ErrInvalidConfig, ErrUnsupportedProperty)}
}

func invalid(name, value, why string) error {
	return Error{code: ErrInvalidArg, str: fmt.Sprintf("Invalid value %q for configuration property %q: %s", value, name, why), err: client.ErrInvalidConfig}
}

func goType(name string, want, got ConfigValue) error {
	return Error{code: ErrInvalidArg, str: fmt.Sprintf("%s expects type %T, not %T", name, want, got), err: client.ErrInvalidConfig}
}

func boolValue(name string, v ConfigValue) (bool, error) {
	str, err := configString(name, v)
	if err != nil {
		return false, err
	}
	switch strings.ToLower(str) {
	case "true", "1", "t":
		return true, nil
	case "false", "0", "f":
		return false, nil
	}
	return false, invalid(name, str, "want true or false")
}

func intValue(name string, v ConfigValue, lo, hi int) (int, error) {
	str, err := configString(name, v)
	if err != nil {
		return 0, err
	}
	i, err := strconv.Atoi(strings.TrimSpace(str))
	if err != nil {
		return 0, invalid(name, str, "not an integer")
	}
	if i < lo || i > hi {
		return 0, invalid(name, str, fmt.Sprintf("must be %d..%d", lo, hi))
	}
	return i, nil
}

func floatValue(name string, v ConfigValue, lo, hi float64) (float64, error) {
	str, err := configString(name, v)
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(str), 64)
	if err != nil || math.IsNaN(f) {
		return 0, invalid(name, str, "not a number")
	}
	if f < lo || f > hi {
		return 0, invalid(name, str, fmt.Sprintf("must be %v..%v", lo, hi))
	}
	return f, nil
}
