package client

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/rollsafe/rollsafe/compress"
	"github.com/rollsafe/rollsafe/protocol"
)

// ErrInvalidConfig is wrapped by every configuration error; the message
// names the offending field.
var ErrInvalidConfig = errors.New("client: invalid config")

// Acks values.
const (
	AcksAll    int16 = -1
	AcksLeader int16 = 1
	AcksNone   int16 = 0
)

// config is the validated producer configuration. Every field has a
// default; options override them.
type config struct {
	autoCreate       bool // AllowAutoTopicCreation
	brokers          []string
	clientID         string
	acks             int16
	idempotent       bool
	maxInFlight      int
	connections      int
	linger           time.Duration
	codec            compress.Codec
	level            int
	batchBytes       int
	batchRecords     int
	maxRecordBytes   int
	maxBufferedBytes int64
	maxBufferedRecs  int
	deliveryTimeout  time.Duration
	requestTimeout   time.Duration
	dialTimeout      time.Duration
	retryBackoff     time.Duration
	retryBackoffMax  time.Duration
	pidExpiration    time.Duration
	metadataMaxAge   time.Duration
	unknownTopicWait time.Duration
	partitioner      Partitioner
	logger           *slog.Logger
	hooks            Hooks
	onDataLoss       func(DataLoss)
	stopOnDataLoss   bool
	tls              *tls.Config
	auth             func(ctx context.Context, c *protocol.Conn) error // SASL, run on every new connection
	authProblem      string                                            // a SASL option's invalid argument
	tailFetchBytes   int32
	workers          int
	dial             func(ctx context.Context, network, addr string) (net.Conn, error)
	settle           func()        // SyncTest's wait: nil outside a synctest bubble
	nilOptions       int           // nil Options given to NewProducer
	txnID            string        // TransactionalID
	txnTimeout       time.Duration // TransactionTimeout
}

func defaultConfig() config {
	return config{
		clientID:         "rollsafe",
		acks:             AcksAll,
		idempotent:       true,
		maxInFlight:      5,
		connections:      2,
		linger:           5 * time.Millisecond,
		codec:            compress.Gzip,
		level:            compress.DefaultLevel,
		batchBytes:       1 << 20,
		maxRecordBytes:   1 << 20,
		maxBufferedBytes: 64 << 20,
		maxBufferedRecs:  1 << 20,
		deliveryTimeout:  2 * time.Minute,
		requestTimeout:   30 * time.Second,
		dialTimeout:      10 * time.Second,
		retryBackoff:     10 * time.Millisecond,
		retryBackoffMax:  time.Second,
		metadataMaxAge:   5 * time.Minute,
		unknownTopicWait: 10 * time.Second,
		tailFetchBytes:   8 << 20,
		txnTimeout:       DefaultTransactionTimeout,
	}
}

// Option configures a Producer.
type Option func(*config)

// Brokers sets the bootstrap brokers ("host:port"). Required.
func Brokers(addrs ...string) Option {
	return func(c *config) { c.brokers = append(c.brokers, addrs...) }
}

// AllowAutoTopicCreation asks brokers to create a topic the producer
// names that the cluster does not have (Metadata's
// allow_auto_topic_creation, as franz-go's kgo option of that name and
// librdkafka's producer default): a broker with auto.create.topics.enable
// creates it with its num.partitions and default.replication.factor, and
// the records wait (UnknownTopicWait) until its partitions have leaders.
// Off by default: a record for an unknown topic fails ErrUnknownTopic
// after UnknownTopicWait. Brokers without auto.create.topics.enable (the
// usual production setting) ignore it.
func AllowAutoTopicCreation() Option { return func(c *config) { c.autoCreate = true } }

// ClientID sets the client id sent to brokers (default "rollsafe").
func ClientID(id string) Option { return func(c *config) { c.clientID = id } }

// Acks sets the acknowledgement level: AcksAll (default), AcksLeader or
// AcksNone. Anything but AcksAll requires DisableIdempotence.
func Acks(acks int16) Option { return func(c *config) { c.acks = acks } }

// DisableIdempotence turns the idempotent producer off: no producer id, no
// sequence numbers, retries may duplicate.
func DisableIdempotence() Option { return func(c *config) { c.idempotent = false } }

// MaxInFlight sets the produce requests in flight per partition, and per
// broker connection (default 5, at most 5 with idempotence). Kafka handles
// a connection's requests one at a time, so more in flight on one
// connection only queue there; each request carries the next batch of
// every partition the broker leads that has one waiting.
func MaxInFlight(n int) Option { return func(c *config) { c.maxInFlight = n } }

// maxConnections bounds ProduceConnections.
const maxConnections = 16

// ProduceConnections sets the produce connections the producer keeps to
// each broker (default 2, at most 16). Kafka reads a connection's next
// request only after it has answered the one before, so one connection
// carries one request at a time through the broker however many are in
// flight on it; with n connections the broker handles up to n of the
// producer's requests at once, on its network and request-handler threads.
// A partition always uses the same connection to a broker (the one with
// fewest of the broker's partitions when it first goes there), so its
// batches keep their order and MaxInFlight still bounds them. On one
// Apache Kafka 4.4 broker two connections took 1.06-1.26 times the records
// per second of one (docs/performance.md, "On a real broker"); 1 gives the
// single connection of Java's producer, kgo and librdkafka. Each connection
// costs the broker a socket and, with SASL, an authentication.
func ProduceConnections(n int) Option { return func(c *config) { c.connections = n } }

// Linger sets how long a batch waits for more records before it is sent
// (default 5ms; 0 also selects 5ms, a negative d is a config error). For
// batches that close almost at once give a tiny d (time.Microsecond).
func Linger(d time.Duration) Option { return func(c *config) { c.linger = d } }

// Compression sets the codec (default gzip) and level (compress.DefaultLevel
// for the codec's default).
func Compression(codec compress.Codec, level int) Option {
	return func(c *config) { c.codec, c.level = codec, level }
}

// BatchBytes sets the uncompressed size at which a batch closes (default 1 MiB).
func BatchBytes(n int) Option { return func(c *config) { c.batchBytes = n } }

// BatchRecords also closes a batch once it holds n records (librdkafka's
// batch.num.messages); 0, the default, sets no limit.
func BatchRecords(n int) Option { return func(c *config) { c.batchRecords = n } }

// MaxRecordBytes sets the largest record accepted (default 1 MiB).
func MaxRecordBytes(n int) Option { return func(c *config) { c.maxRecordBytes = n } }

// MaxBuffered sets the backpressure limits: records and bytes (keys,
// values and headers, uncompressed) buffered and not yet acknowledged
// (default 1Mi records, 64 MiB). With compression, batches compressed ahead
// of their sending add at most a quarter of bytes more while the broker
// does not take them.
func MaxBuffered(records int, bytes int64) Option {
	return func(c *config) { c.maxBufferedRecs, c.maxBufferedBytes = records, bytes }
}

// DeliveryTimeout bounds the time from Produce to a record's outcome
// (default 2 minutes; counted from when its batch closes, at most Linger
// after Produce — plus up to a second, batching.SendHold, while an earlier
// batch of its partition still waits to be sent — or from when its topic's
// metadata arrived). At the deadline
// a record not yet acknowledged fails with ErrDeliveryTimeout and either
// ErrNotWritten (never sent, or every attempt refused) or ErrOutcomeUnknown
// (an attempt may have been written, or is still in flight): the producer
// never waits past the deadline for a broker that stopped answering. It may
// be shorter than RequestTimeout.
func DeliveryTimeout(d time.Duration) Option { return func(c *config) { c.deliveryTimeout = d } }

// RequestTimeout bounds one request to a broker (default 30s): it is the
// timeout produce requests carry for replication (acks=all), and a
// connection whose answer is more than RequestTimeout + 2s late is closed
// (counted from when the request was written or, behind another on its
// connection, from that one's answer: Kafka handles a connection's
// requests one at a time; the 2 s cover taking it up and the network).
func RequestTimeout(d time.Duration) Option { return func(c *config) { c.requestTimeout = d } }

// ProducerIDExpiration tells the producer the brokers'
// producer.id.expiration.ms (default a day, Kafka's default; negative: off).
// Kafka measures it from the records' own timestamps: a broker forgets a
// producer whose last batch is stamped that long ago when it restarts and
// at every periodic expiry check, also while the producer writes — and
// then accepts that producer's next batch at any sequence, so a retried
// batch that had in fact landed would be written twice, and a batch behind
// one the broker refused would be appended ahead of it. On a partition
// holding records stamped three quarters of this long ago (historical
// events replayed with their timestamps), batches therefore go one at a
// time, and an unknown outcome is settled by reading the partition's log
// up to the leader's log end, never by resending unchanged: no duplicate,
// no reordering, at the cost of one request per round trip per partition
// and a read per unknown outcome. Set it if the brokers' value is shorter.
func ProducerIDExpiration(d time.Duration) Option { return func(c *config) { c.pidExpiration = d } }

// DialTimeout bounds connecting to a broker (default 10s).
func DialTimeout(d time.Duration) Option { return func(c *config) { c.dialTimeout = d } }

// RetryBackoff sets the pause before a partition retries after an error
// (default 10ms). Each further failure in a row doubles it, up to
// RetryBackoffMax, with ±20% jitter; a success brings it back.
func RetryBackoff(d time.Duration) Option { return func(c *config) { c.retryBackoff = d } }

// RetryBackoffMax caps the pause failures in a row grow to (default 1s,
// the Java producer's and librdkafka's retry.backoff.max.ms). Below
// RetryBackoff it is the pause, always, as with those clients.
func RetryBackoffMax(d time.Duration) Option { return func(c *config) { c.retryBackoffMax = d } }

// MetadataMaxAge sets the periodic metadata refresh interval (default 5m).
func MetadataMaxAge(d time.Duration) Option { return func(c *config) { c.metadataMaxAge = d } }

// UnknownTopicWait bounds how long records for a topic the cluster does not
// know wait for it to appear before they fail with ErrUnknownTopic
// (default 10s).
func UnknownTopicWait(d time.Duration) Option { return func(c *config) { c.unknownTopicWait = d } }

// WithPartitioner replaces the default partitioner (murmur2 for keyed
// records, uniform sticky for unkeyed ones).
func WithPartitioner(p Partitioner) Option { return func(c *config) { c.partitioner = p } }

// WithLogger sets the logger (default: discard).
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithHooks sets the metrics hooks (the fields left nil are not called).
func WithHooks(h Hooks) Option { return func(c *config) { c.hooks = h } }

// OnDataLoss sets a callback for data-loss events: acknowledged records
// that are no longer in a partition's log (for example after an unclean
// leader election). It is called from the producer's event goroutine.
func OnDataLoss(f func(DataLoss)) Option { return func(c *config) { c.onDataLoss = f } }

// StopOnDataLoss makes a partition that lost acknowledged records fail all
// its further records with ErrPartitionStopped instead of carrying on.
func StopOnDataLoss() Option { return func(c *config) { c.stopOnDataLoss = true } }

// WithTLS connects to brokers over TLS.
func WithTLS(cfg *tls.Config) Option { return func(c *config) { c.tls = cfg } }

// CompressionWorkers sets how many goroutines compress closed batches
// (default GOMAXPROCS).
func CompressionWorkers(n int) Option { return func(c *config) { c.workers = n } }

// validate reports every problem of the configuration at once, in one
// error wrapping ErrInvalidConfig: "client: invalid config: Brokers: ...;
// Linger: ...".
func (c *config) validate() error {
	var problems []string
	bad := func(field, format string, args ...any) {
		problems = append(problems, field+": "+fmt.Sprintf(format, args...))
	}
	if c.nilOptions > 0 {
		bad("options", "%d nil Option(s) given", c.nilOptions)
	}
	if c.authProblem != "" {
		field, msg, _ := strings.Cut(c.authProblem, ": ")
		bad(field, "%s", msg)
	}
	if len(c.brokers) == 0 {
		bad("Brokers", "no brokers given")
	}
	for _, a := range c.brokers {
		if err := checkBrokerAddr(a); err != nil {
			bad("Brokers", "%v", err)
		}
	}
	if c.acks != AcksAll && c.acks != AcksLeader && c.acks != AcksNone {
		bad("Acks", "%d is not -1 (all), 0 or 1", c.acks)
	} else if c.idempotent && c.acks != AcksAll {
		bad("Acks", "idempotence requires acks=all (-1), got %d", c.acks)
	}
	txnConflict := c.validateTxn(bad)
	if c.maxInFlight < 1 {
		bad("MaxInFlight", "%d is less than 1", c.maxInFlight)
	} else if c.idempotent && c.maxInFlight > 5 {
		bad("MaxInFlight", "idempotence allows at most 5, got %d", c.maxInFlight)
	}
	if c.connections < 1 || c.connections > maxConnections {
		bad("ProduceConnections", "%d is not between 1 and %d", c.connections, maxConnections)
	}
	if !c.codec.Valid() {
		bad("Compression", "unknown codec %d", int8(c.codec))
	} else if _, err := compress.NewCompressor(c.codec, c.level); err != nil {
		bad("Compression", "%v", err)
	}
	if c.linger < 0 {
		bad("Linger", "negative duration %v", c.linger)
	}
	if c.batchRecords < 0 {
		bad("BatchRecords", "%d is negative", c.batchRecords)
	}
	if c.batchBytes <= 0 {
		bad("BatchBytes", "%d is not positive", c.batchBytes)
	}
	if c.maxRecordBytes <= 0 {
		bad("MaxRecordBytes", "%d is not positive", c.maxRecordBytes)
	}
	if c.maxBufferedBytes <= 0 || c.maxBufferedRecs <= 0 {
		bad("MaxBuffered", "records %d and bytes %d must be positive", c.maxBufferedRecs, c.maxBufferedBytes)
	} else if c.maxBufferedBytes < int64(c.maxRecordBytes) {
		bad("MaxBuffered", "%d bytes cannot hold one record of MaxRecordBytes %d", c.maxBufferedBytes, c.maxRecordBytes)
	}
	if c.deliveryTimeout <= 0 {
		bad("DeliveryTimeout", "%v is not positive", c.deliveryTimeout)
	}
	if c.requestTimeout <= 0 {
		bad("RequestTimeout", "%v is not positive", c.requestTimeout)
	}
	if c.dialTimeout <= 0 {
		bad("DialTimeout", "%v is not positive", c.dialTimeout)
	}
	if c.retryBackoff < 0 {
		bad("RetryBackoff", "negative duration %v", c.retryBackoff)
	}
	if c.retryBackoffMax <= 0 {
		bad("RetryBackoffMax", "%v is not positive", c.retryBackoffMax)
	}
	if c.metadataMaxAge <= 0 {
		bad("MetadataMaxAge", "%v is not positive", c.metadataMaxAge)
	}
	if c.unknownTopicWait < 0 {
		bad("UnknownTopicWait", "negative duration %v", c.unknownTopicWait)
	}
	if c.workers < 0 {
		bad("CompressionWorkers", "%d is negative", c.workers)
	}
	if len(problems) == 0 {
		return nil
	}
	err := fmt.Errorf("%w: %s", ErrInvalidConfig, strings.Join(problems, "; "))
	if txnConflict {
		return &wrapped{err: err, also: ErrTxnConfig}
	}
	return err
}

// checkBrokerAddr checks that a is "host:port" with a host and a numeric
// port in 1..65535 (an IPv6 host in brackets: "[::1]:9092").
func checkBrokerAddr(a string) error {
	if strings.TrimSpace(a) == "" {
		return errors.New("empty address (want host:port)")
	}
	host, port, err := net.SplitHostPort(a)
	if err != nil {
		return fmt.Errorf("%q is not host:port", a)
	}
	if host == "" {
		return fmt.Errorf("%q has no host", a)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("%q: port %q is not a number in 1..65535", a, port)
	}
	return nil
}
