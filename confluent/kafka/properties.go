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
	retriesName      string   // retries or message.send.max.retries, as given
	notes            []string // accepted properties without an effect here, reported once on Logs()

	lingerSet           bool
	inTopic             bool          // the property being set is inside default.topic.config
	refreshInterval     time.Duration // topic.metadata.refresh.interval.ms (0: unset)
	sendBuffer          int           // socket.send.buffer.bytes (0: system default)
	receiveBuffer       int           // socket.receive.buffer.bytes
	nagle               bool          // socket.nagle.disable=false
	addressFamily       string        // broker.address.family: "", any, v4, v6
	reconnectBackoff    int           // reconnect.backoff.ms, for librdkafka's check only
	reconnectBackoffMax int           // reconnect.backoff.max.ms
	keyPassword         string        // ssl.key.password
	keyPEM              string        // ssl.key.pem
	certPEM             string        // ssl.certificate.pem
	caPEM               string        // ssl.ca.pem
	skipVerify          bool          // enable.ssl.certificate.verification=false
	noHostname          bool          // ssl.endpoint.identification.algorithm=none
	gapless             bool          // enable.gapless.guarantee=true
	backpressure        int           // queue.buffering.backpressure.threshold
	onlyErrors          bool          // delivery.report.only.error
	lifo                bool          // queuing.strategy=lifo
	deliveryTimeoutSet  bool          // message.timeout.ms given
	socketTimeout       int           // socket.timeout.ms given (ms; 0: unset), for librdkafka's check only
	txnID               string        // transactional.id
	txnTimeout          time.Duration // transaction.timeout.ms
	txnTimeoutSet       bool
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
		txnTimeout:      client.DefaultTransactionTimeout,

		reconnectBackoff:    100,
		reconnectBackoffMax: 10000,
		backpressure:        1,
	}
}

// note records an accepted property that changes nothing here, reported
// once on Logs() (Tag "CONFWARN", as librdkafka reports ignored
// properties).
func (s *settings) note(format string, args ...any) {
	s.notes = append(s.notes, fmt.Sprintf(format, args...))
}

// property is one row of the configuration table: a librdkafka property
// (or confluent-kafka-go's own go.* one), what scope librdkafka gives it,
// and what happens to it here.
type property struct {
	names []string // the name, then its aliases
	scope scope    // librdkafka's C/P column ('*', 'P', 'C'), or goOnly
	topic bool     // a topic-level property: also allowed inside default.topic.config
	does  outcome  // applied, reported or refused
	doc   string   // what happens, for docs/confluent.md
	set   func(s *settings, name string, v ConfigValue) error
}

// scope is librdkafka's C/P column: which clients a property is for.
type scope byte

const (
	both         scope = '*'
	producerOnly scope = 'P'
	consumerOnly scope = 'C'
	goOnly       scope = 'G' // confluent-kafka-go's go.* properties, not librdkafka's
)

// outcome is what NewProducer does with a property.
type outcome int

const (
	// applied: mapped to rollsafe's behaviour.
	applied outcome = iota
	// reported: accepted, checked as librdkafka checks it, changes nothing
	// here; reported once on Logs() (CONFWARN).
	reported
	// refused: NewProducer fails naming it (ErrUnsupportedProperty):
	// ignoring it would break what the program expects.
	refused
)

func (o outcome) String() string {
	return [...]string{"applied", "reported", "refused"}[o]
}

// infiniteTimeout stands for librdkafka's message.timeout.ms=0 (infinite).
const infiniteTimeout = 100 * 365 * 24 * time.Hour

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
		s.inTopic = inTopic
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
		return s, unsupported(fmt.Sprintf("No such configuration property: %s (not a property of librdkafka v2.15.0 or confluent-kafka-go; rollsafe's docs/confluent.md lists them all)", strings.Join(q, ", ")))
	}
	return s, s.check()
}

// check rejects combinations that are invalid or meaningless.
func (s *settings) check() error {
	if err := s.checkTransactional(); err != nil {
		return err
	}
	if s.acksSet && s.acks != client.AcksAll && !s.idempotenceSet {
		// librdkafka's producer is not idempotent unless asked: acks 0 or
		// 1 alone gives a non-idempotent producer there, and here.
		s.idempotent = false
		s.note(`"acks"=%d without "enable.idempotence": a non-idempotent producer, as librdkafka's default (no sequence numbers: a retry can write a message twice or reorder a partition)`, s.acks)
	}
	if s.retriesSet {
		switch {
		case s.retries == 0 && s.idempotent:
			return configError("`retries` must be set >= 1 when `enable.idempotence` is true")
		case s.retries == 0:
			return unsupported(`"retries"=0: rollsafe retries every failed send until "message.timeout.ms" and cannot turn retries off, so a program relying on no retry (no duplicates without idempotence) would get them; remove "retries"`)
		case s.retries != math.MaxInt32:
			s.note(`%q=%d accepted and not applied: rollsafe retries a failed send until "message.timeout.ms" (%v) passes, with retry.backoff.ms doubling up to retry.backoff.max.ms`, s.retriesName, s.retries, s.deliveryTimeout)
		}
	}
	if err := s.checkLibrdkafka(); err != nil {
		return err
	}
	switch {
	case len(s.brokers) == 0:
		return configError(`"bootstrap.servers" is required`)
	case s.idempotent && s.acks != client.AcksAll:
		if s.idempotenceSet {
			return configError("`acks` must be set to `all` when `enable.idempotence` is true")
		}
		return configError(`"acks" other than all (-1) needs "enable.idempotence" false: rollsafe is idempotent by default`)
	case s.idempotent && s.maxInFlight > 5:
		return configError("`max.in.flight` must be set <= 5 when `enable.idempotence` is true")
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
	if (s.certFile == "" && s.certPEM == "") != (s.keyFile == "" && s.keyPEM == "") {
		return configError(`"ssl.certificate.location" (or "ssl.certificate.pem") and "ssl.key.location" (or "ssl.key.pem") go together`)
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
	return false, Error{code: ErrInvalidArg, str: fmt.Sprintf("Expected bool value for %q: true or false (not %q)", name, str), err: client.ErrInvalidConfig}
}

func intValue(name string, v ConfigValue, lo, hi int) (int, error) {
	str, err := configString(name, v)
	if err != nil {
		return 0, err
	}
	i64, err := strconv.ParseInt(strings.TrimSpace(str), 0, 64) // base 0, as librdkafka's strtol
	if err != nil {
		return 0, Error{code: ErrInvalidArg, str: fmt.Sprintf("Invalid value for configuration property %q: %q is not an integer", name, str), err: client.ErrInvalidConfig}
	}
	if i64 < int64(lo) || i64 > int64(hi) {
		return 0, outsideRange(name, fmt.Sprint(i64), fmt.Sprint(lo), fmt.Sprint(hi))
	}
	return int(i64), nil
}

func floatValue(name string, v ConfigValue, lo, hi float64) (float64, error) {
	str, err := configString(name, v)
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(str), 64)
	if err != nil || math.IsNaN(f) {
		return 0, Error{code: ErrInvalidArg, str: fmt.Sprintf("Invalid value for configuration property %q: %q is not a number", name, str), err: client.ErrInvalidConfig}
	}
	if f < lo || f > hi {
		return 0, outsideRange(name, fmt.Sprint(f), fmt.Sprint(lo), fmt.Sprint(hi))
	}
	return f, nil
}

// outsideRange is librdkafka's error for a number outside a property's
// range.
func outsideRange(name, value, lo, hi string) error {
	return Error{code: ErrInvalidArg, str: fmt.Sprintf("Configuration property %q value %s is outside allowed range %s..%s", name, value, lo, hi), err: client.ErrInvalidConfig}
}

// checkLibrdkafka makes the checks librdkafka makes when a producer is
// created (rd_kafka_conf_finalize), with its words, and refuses the values
// rollsafe cannot honour.
func (s *settings) checkLibrdkafka() error {
	if !s.lingerSet && s.deliveryTimeout <= s.linger {
		s.linger = s.deliveryTimeout - 100*time.Microsecond // librdkafka lowers linger.ms below message.timeout.ms
	}
	switch {
	case s.reconnectBackoffMax < s.reconnectBackoff:
		return configError("`reconnect.backoff.max.ms` must be >= `reconnect.backoff.ms`")
	case s.lingerSet && s.deliveryTimeout != infiniteTimeout && s.deliveryTimeout <= s.linger:
		return configError("`message.timeout.ms` must be greater than `linger.ms`")
	case s.idempotent && s.backpressure > 1:
		return configError("`queue.buffering.backpressure.threshold` must be set to 1 when `enable.idempotence` is true")
	case s.idempotent && s.lifo:
		return configError("`queuing.strategy` must be set to `fifo` when `enable.idempotence` is true")
	case s.lifo:
		return unsupported(`"queuing.strategy"=lifo: rollsafe sends each partition's messages in the order they were produced; a program relying on newest-first would not get it`)
	case s.gapless && !s.idempotent:
		return configError("`enable.gapless.guarantee` requires `enable.idempotence` to be enabled")
	case s.gapless:
		return unsupported(`"enable.gapless.guarantee"=true: librdkafka then raises a fatal error when a failed message leaves a gap in a partition; rollsafe reports that message failed and goes on, which a program relying on the guarantee would not expect`)
	}
	return nil
}
