package sim

import (
	"crypto/tls"
	"github.com/rollsafe/rollsafe/sim/memnet"

	"log/slog"
	"time"
)

// Option configures NewCluster.
type Option func(*config)

type topicSpec struct {
	name        string
	partitions  int32
	replication int
}

type config struct {
	brokers            int
	topics             []topicSpec
	seed               int64
	logger             *slog.Logger
	pre25              bool
	fix15591           bool
	epochPerProducer   bool
	followerLag        time.Duration
	listen             string
	network            *memnet.Network
	sink               bool
	loseStateOnRestart bool
	pidExpiration      time.Duration // ProducerIDExpiration
	pidExpiryCheck     time.Duration // ProducerIDExpirationCheck
	recorderLimit      int
	autoCreate         *topicSpec // auto.create.topics.enable: the new topics' partitions and replication
	maxBatchBytes      int
	maxDecompressed    int
	noDescribe         bool            // WithoutDescribeProducers
	noTopicIDs         bool            // WithoutTopicIDs
	compacted          map[string]bool // CompactTopic
	minInsync          map[string]int  // MinInsyncReplicas
	initEpoch          int16           // ProducerEpochStart
	sec                secConfig       // TLS, SASL, SessionLifetime
	acls               aclConfig       // ACL, SuperUser
	txnPartitions      int             // TransactionStatePartitions
	offsetsPartitions  int             // OffsetsTopicPartitions
	txnMaxTimeout      time.Duration   // TransactionMaxTimeout
	txnAbortCheck      time.Duration   // TransactionAbortCheck
	noTxnVerify        bool            // WithoutTxnVerification
	txnVersion         int16           // TransactionVersion
}

func defaultConfig() config {
	return config{
		brokers:         1,
		seed:            1,
		listen:          "127.0.0.1:0",
		recorderLimit:   10000,
		maxBatchBytes:   1048588, // Kafka's message.max.bytes default
		maxDecompressed: 64 << 20,
		pidExpiration:   24 * time.Hour,   // Kafka's producer.id.expiration.ms default
		pidExpiryCheck:  10 * time.Minute, // Kafka's producer.id.expiration.check.interval.ms default
		// Kafka's transaction.state.log.num.partitions,
		// offsets.topic.num.partitions, transaction.max.timeout.ms and
		// transaction.abort.timed.out.transaction.cleanup.interval.ms.
		txnPartitions:     50,
		offsetsPartitions: 50,
		txnMaxTimeout:     15 * time.Minute,
		txnAbortCheck:     10 * time.Second,
		txnVersion:        2,
	}
}

// TransactionVersion sets the cluster's finalized feature
// transaction.version (0 to 2), which ApiVersions advertises (supported
// 0-2). The default, 2, is what a new Apache Kafka 4.x cluster finalizes:
// transactions v2 (KIP-890 part 2), in which a transactional Produce v12
// adds its partition to the transaction itself, TxnOffsetCommit v5 its
// group's, and EndTxn v5 bumps the producer's epoch at every commit and
// abort. Below 2 the cluster serves transactions v1 only: EndTxn up to v4,
// AddOffsetsToTxn up to v3, TxnOffsetCommit up to v4, and a Produce v12
// is taken as v11 (a partition must be added with AddPartitionsToTxn).
// Pre25 and WithoutTxnVerification, which emulate brokers that predate
// the feature, serve transactions v1 and advertise no feature.
func TransactionVersion(level int16) Option {
	return func(c *config) { c.txnVersion = min(max(level, 0), 2) }
}

// TransactionStatePartitions is Kafka's transaction.state.log.num.partitions
// (default 50): the transactional ids hash over that many partitions of
// __transaction_state, whose leaders coordinate them.
func TransactionStatePartitions(n int) Option {
	return func(c *config) { c.txnPartitions = n }
}

// OffsetsTopicPartitions is Kafka's offsets.topic.num.partitions (default
// 50): the groups hash over that many partitions of __consumer_offsets,
// whose leaders coordinate them (FindCoordinator, TxnOffsetCommit) and
// which AddOffsetsToTxn adds to a transaction.
func OffsetsTopicPartitions(n int) Option {
	return func(c *config) { c.offsetsPartitions = n }
}

// TransactionMaxTimeout is Kafka's transaction.max.timeout.ms (default 15
// minutes): InitProducerId asking a longer transaction timeout is
// answered INVALID_TRANSACTION_TIMEOUT.
func TransactionMaxTimeout(d time.Duration) Option {
	return func(c *config) { c.txnMaxTimeout = d }
}

// TransactionAbortCheck is Kafka's
// transaction.abort.timed.out.transaction.cleanup.interval.ms (default 10
// seconds): how often the coordinators abort the transactions left open
// past their timeout, bumping the producer's epoch.
func TransactionAbortCheck(d time.Duration) Option {
	return func(c *config) { c.txnAbortCheck = d }
}

// WithoutTxnVerification emulates brokers before Kafka 3.6 (KIP-890 part
// 1), which append a transactional batch without asking the coordinator
// whether its partition is in the producer's transaction: a batch to a
// partition never added is written, no marker ever ends it there, and its
// last stable offset stays behind it (a hanging transaction).
func WithoutTxnVerification() Option { return func(c *config) { c.noTxnVerify = true } }

// Brokers sets the number of brokers (ids 0..n-1). Default 1.
func Brokers(n int) Option { return func(c *config) { c.brokers = n } }

// Topic creates a topic with the given partition count and replication
// factor; replication 0 means min(3, brokers). Replicas are assigned round
// robin, the first replica of each partition leading it.
func Topic(name string, partitions int32, replication int) Option {
	return func(c *config) {
		c.topics = append(c.topics, topicSpec{name: name, partitions: partitions, replication: replication})
	}
}

// Seed makes every choice the simulator makes (producer id base, topic ids,
// the cluster id, replica placement) a function of seed. Default 1.
func Seed(seed int64) Option { return func(c *config) { c.seed = seed } }

// Logger sets the logger; the default discards.
func Logger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// Pre25 emulates brokers before Kafka 2.5: a producer the partition has no
// state for gets UNKNOWN_PRODUCER_ID unless its first sequence is 0.
func Pre25() Option { return func(c *config) { c.pre25 = true } }

// Kafka15591Fix emulates the KAFKA-15591 fix: on a partition that never held
// a record, an unknown producer's batch must start at sequence 0, else
// OUT_OF_ORDER_SEQUENCE_NUMBER.
func Kafka15591Fix() Option { return func(c *config) { c.fix15591 = true } }

// EpochPerProducer emulates brokers (such as franz-go's kfake) that keep one
// epoch per producer id for the whole cluster: once any partition accepted
// epoch E+1, batches of epoch E anywhere get INVALID_PRODUCER_EPOCH.
func EpochPerProducer() Option { return func(c *config) { c.epochPerProducer = true } }

// FollowerLag delays every follower's copy of a batch by d after the leader
// appended it (per broker: Cluster.SetFollowerLag).
func FollowerLag(d time.Duration) Option { return func(c *config) { c.followerLag = d } }

// Listen sets the first broker's listen address. With port 0 (the default,
// "127.0.0.1:0") every broker gets an ephemeral port; with port P, broker i
// listens on P+i. A restarted broker listens on the address it had.
func Listen(addr string) Option { return func(c *config) { c.listen = addr } }

// Network makes the brokers listen on an in-memory network instead of
// TCP: clients dial it (client.Dialer(n.Dial)), and inside a
// testing/synctest bubble the whole cluster runs on virtual time.
func Network(n *memnet.Network) Option { return func(c *config) { c.network = n } }

// SinkMode accepts and discards produced batches: they are validated and
// acknowledged with increasing offsets but neither stored, replicated nor
// deduplicated. For benchmarks of a client, not of the simulator.
func SinkMode() Option { return func(c *config) { c.sink = true } }

// LoseStateOnRestart makes a restarted broker forget all producer state
// instead of rebuilding it from its log.
func LoseStateOnRestart() Option { return func(c *config) { c.loseStateOnRestart = true } }

// ProducerIDExpiration is the brokers' producer.id.expiration.ms (default
// a day). As in Kafka, it is measured from the producer's last batch's
// largest record timestamp (CreateTime, set by the client), not from when
// the batch arrived: a broker that restarts drops, while loading its
// producer-state snapshot, every producer whose last batch is stamped that
// long ago — and then accepts that producer's next batch at any sequence.
func ProducerIDExpiration(d time.Duration) Option { return func(c *config) { c.pidExpiration = d } }

// ProducerIDExpirationCheck is the brokers'
// producer.id.expiration.check.interval.ms (default 10 minutes): how often
// every running broker drops the producers ProducerIDExpiration applies to
// (by their last batch's record timestamps) from every replica it hosts.
// <= 0 turns the periodic check off (a restart still applies it).
func ProducerIDExpirationCheck(d time.Duration) Option {
	return func(c *config) { c.pidExpiryCheck = d }
}

// AutoCreateTopics turns on Kafka's auto.create.topics.enable: a Metadata
// request naming a topic the cluster does not have creates it, with
// partitions partitions and replication replicas (Kafka's num.partitions
// and default.replication.factor; 0 takes min(3, brokers)), when the
// request allows it — allow_auto_topic_creation true, or any request
// before v4, which has no such field — and the name is a legal one
// (letters, digits, '.', '_', '-'; at most 249). As Kafka does, that
// answer says LEADER_NOT_AVAILABLE for the topic, and the next one gives
// its partitions; an illegal name is INVALID_TOPIC_EXCEPTION. Off by
// default (unlike Kafka): an unknown topic stays unknown.
func AutoCreateTopics(partitions int32, replication int) Option {
	return func(c *config) { c.autoCreate = &topicSpec{partitions: partitions, replication: replication} }
}

// RecorderLimit bounds how many request/response exchanges, produce
// records and SASL authentications the Recorder keeps (the oldest go
// first). Default 10000; <= 0 keeps everything.
func RecorderLimit(n int) Option { return func(c *config) { c.recorderLimit = n } }

// MaxBatchBytes sets the largest record batch accepted (Kafka's
// message.max.bytes, default 1048588); larger ones get MESSAGE_TOO_LARGE.
func MaxBatchBytes(n int) Option { return func(c *config) { c.maxBatchBytes = n } }

// WithoutDescribeProducers emulates brokers before Kafka 2.8, which lack
// DescribeProducers (API key 61): it is not advertised in ApiVersions and a
// request for it closes the connection. Pre25 implies it.
func WithoutDescribeProducers() Option { return func(c *config) { c.noDescribe = true } }

// WithoutTopicIDs emulates brokers before Kafka 2.8, which have no topic
// ids (KIP-516): Metadata is served up to v9 (no TopicID field), and
// DescribeTopicPartitions (Kafka 3.8+) is not advertised. Pre25 implies it.
// A client then cannot tell a deleted and re-created topic from the one
// it knew by its id.
func WithoutTopicIDs() Option { return func(c *config) { c.noTopicIDs = true } }

// MinInsyncReplicas gives topic name (created with Topic)
// min.insync.replicas=n. While fewer than n of a partition's replicas are
// in sync, its leader answers an acks=all produce NOT_ENOUGH_REPLICAS
// without writing it (acks=0 and 1 are written), and its high watermark
// does not advance, so what is written then is not readable until enough
// replicas are back in sync; an acks=all batch whose high watermark is
// reached while fewer are in sync is answered
// NOT_ENOUGH_REPLICAS_AFTER_APPEND. As Apache Kafka 4.4 does
// (kafkacheck.MinInsync). Default 1.
func MinInsyncReplicas(name string, n int) Option {
	return func(c *config) {
		if c.minInsync == nil {
			c.minInsync = map[string]int{}
		}
		c.minInsync[name] = n
	}
}

// CompactTopic gives topic name (created with Topic) cleanup.policy=compact:
// its produced records must have a key (else INVALID_RECORD, as Kafka
// answers), and Cluster.Compact cleans it.
func CompactTopic(name string) Option {
	return func(c *config) {
		if c.compacted == nil {
			c.compacted = map[string]bool{}
		}
		c.compacted[name] = true
	}
}

// TLS makes every broker serve TLS with cfg (nil: plain TCP, the
// default). cfg must hold a certificate (Certificates, GetCertificate or
// GetConfigForClient); it is cloned. NewTestCA makes one for tests.
func TLS(cfg *tls.Config) Option {
	return func(c *config) {
		c.sec.tls = nil
		if cfg != nil {
			c.sec.tls = cfg.Clone()
		}
	}
}

// SASL requires every connection to authenticate with SASL before any
// request other than ApiVersions and SaslHandshake, and adds a user for
// mech (MechPlain, MechScramSHA256 or MechScramSHA512). It is repeatable:
// the mechanisms enabled are those given, each with its own users. SCRAM
// credentials are salted with a random salt and 4096 iterations; the
// password is not kept. Passwords are used as given (no SASLprep).
func SASL(mech, user, password string) Option {
	return func(c *config) {
		c.sec.users = append(c.sec.users, saslUser{mech: mech, user: user, password: password})
	}
}

// SessionLifetime sets the SASL session lifetime (KIP-368, Kafka's
// connections.max.reauth.ms): SaslAuthenticate v1+ answers it in
// SessionLifetimeMillis, and once it has passed the broker closes the
// connection on its next request unless the client re-authenticated on it
// (a new SaslHandshake and SaslAuthenticate, same mechanism and user)
// before. Like Kafka, the lifetime is enforced on v0 clients too. Zero
// (the default) means sessions never expire and re-authentication is
// refused. It needs SASL.
func SessionLifetime(d time.Duration) Option {
	return func(c *config) { c.sec.lifetime = d }
}

// ProducerEpochStart makes InitProducerId answer every new producer id with
// epoch e instead of 0, so a test reaches epoch exhaustion (32767) without
// bumping 32767 times. Negative values mean 0.
func ProducerEpochStart(e int16) Option {
	return func(c *config) { c.initEpoch = max(e, 0) }
}

// ACL grants SASL user the operations ops on topic ("*": every topic), as
// kafka-acls --allow-principal User:user does; it is repeatable and needs
// SASL. Once any ACL or SuperUser is given the brokers authorize every
// request as Kafka's StandardAuthorizer does (allow.everyone.if.no.acl.found
// false): a user may do on a topic only what it was granted, READ and WRITE
// each implying DESCRIBE, and is refused TOPIC_AUTHORIZATION_FAILED
// otherwise — Produce needs WRITE; Fetch and DescribeProducers need READ;
// ListOffsets, OffsetForLeaderEpoch and Metadata need DESCRIBE.
// InitProducerId (idempotent) needs WRITE on some topic (KIP-679). ACL
// with no operations grants nothing but turns authorization on.
func ACL(user, topic string, ops ...Operation) Option {
	return func(c *config) {
		for _, op := range ops {
			c.acls.grants = append(c.acls.grants, aclGrant{user: user, topic: topic, op: op})
		}
		if len(ops) == 0 {
			c.acls.on = true
		}
	}
}

// TransactionalIDACL grants SASL user WRITE (and so DESCRIBE) on
// transactional id ("*": every one), as a Kafka ACL on a TRANSACTIONAL_ID
// resource does, and turns authorization on. With authorization on, a
// user without it is refused TRANSACTIONAL_ID_AUTHORIZATION_FAILED by
// FindCoordinator (for that id), InitProducerId, AddPartitionsToTxn,
// AddOffsetsToTxn, EndTxn, TxnOffsetCommit and a transactional Produce.
// Groups are not authorized: any user may name any group.
func TransactionalIDACL(user, id string) Option {
	return func(c *config) {
		c.acls.txnGrants = append(c.acls.txnGrants, aclGrant{user: user, topic: id, op: OpWrite})
	}
}

// SuperUser exempts SASL user from authorization (Kafka's super.users) and
// turns authorization on, as ACL does.
func SuperUser(user string) Option {
	return func(c *config) { c.acls.super = append(c.acls.super, user) }
}

// describeProducers reports whether the brokers serve DescribeProducers.
func (c *config) describeProducers() bool { return !c.noDescribe && !c.pre25 }

// describeTopicPartitions reports whether the brokers serve
// DescribeTopicPartitions (Kafka 3.8+: not a Pre25 broker).
func (c *config) describeTopicPartitions() bool { return !c.pre25 && !c.noTopicIDs }

// txnFeature reports whether the brokers know the feature
// transaction.version (Kafka 3.8+: neither Pre25 nor WithoutTxnVerification).
func (c *config) txnFeature() bool { return !c.pre25 && !c.noTxnVerify }

// txnV2 reports whether the cluster serves transactions v2.
func (c *config) txnV2() bool { return c.txnFeature() && c.txnVersion >= 2 }

// topicIDs reports whether the brokers know topic ids (Metadata v10+).
func (c *config) topicIDs() bool { return !c.pre25 && !c.noTopicIDs }
