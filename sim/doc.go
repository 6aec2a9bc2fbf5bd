// Package sim runs an in-process multi-broker Kafka cluster on the real wire
// protocol, with replication, per-partition producer state and the faults
// real clusters have, for testing Kafka clients.
//
// NewCluster starts brokers on loopback listeners. They serve ApiVersions,
// Metadata (with leader epochs), InitProducerId, the transactional APIs
// (below), Produce v3-v12 (record batch v2, CRC-32C checked, every codec decompressed
// and validated; acks 0, 1 and -1 — an acks=0 produce it refuses closes
// the connection, as Kafka does), Fetch v4-v12 (up to the answering
// replica's high watermark, the stored bytes as produced), ListOffsets,
// FindCoordinator, OffsetForLeaderEpoch, DescribeProducers (KIP-664;
// WithoutDescribeProducers and Pre25 emulate brokers without it) and
// DescribeTopicPartitions (KIP-966: ISR, eligible leader replicas and last
// known ELR, paged by a cursor; not on Pre25 brokers), flexible versions
// included. Requests on one connection are handled one at a time,
// as Kafka does; a request read is processed even if its client is gone.
//
// Every broker keeps its own replica of each partition's log and its own
// producer-state table. The leader appends; followers copy (after an
// optional lag) and rebuild producer state from what they copy; the high
// watermark is the smallest log end of the in-sync replicas as the leader
// learns them from their fetches, and acks=-1 is answered once it covers
// the batch (REQUEST_TIMED_OUT after the produce timeout, the batch staying
// in the log to commit later). As in Kafka, a follower or deposed leader
// answers Fetch v11+ from its own, trailing high watermark (the epoch
// checked first: FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH); a new leader
// starts from its own high watermark, which moves on once its followers
// fetch from it, and ListOffsets answers OFFSET_NOT_AVAILABLE until it
// reaches the leader epoch's start. MinInsyncReplicas gives a topic
// min.insync.replicas: with fewer in sync, acks=-1 is NOT_ENOUGH_REPLICAS
// and the high watermark stays, and replicas leaving the ISR become
// eligible leader replicas (KIP-966's ELR). As in Kafka 4.4, the ISR of a
// partition without a leader is empty, its last in-sync replica eligible
// too: the first eligible replica back is elected, unless it crashed; with
// none eligible left, the last leader is, crashed or not. Its
// controller needs no quorum: any number of brokers may be down. Producer state follows Kafka 2.5+
// (a dedup window of five batches per producer; Pre25, Kafka15591Fix and
// EpochPerProducer emulate other brokers).
//
// What a broker answers and keeps is checked against Apache Kafka 4.4 by
// internal/kafkacheck, whose checks run on both (TestKafkaChecks here,
// kafkatest's TestCluster there): record and batch rules and their error
// codes, idempotence answer by answer, reads, restarts, followers,
// min.insync.replicas, ELR elections and the ISR and ELR they show,
// DescribeTopicPartitions, transactions.
//
// Faults are methods usable mid-run: MoveLeader, StopBroker (a controlled
// shutdown), KillBroker (a host crash: the unreplicated tail lost with the
// page cache), CutPower (a power cut with nothing flushed: every batch no
// other replica holds lost, acknowledged ones of a leader alone in the ISR
// too), KillProcess (kill -9: the log kept whole), VanishBroker (a
// host gone from the network: its connections stay open and silent),
// StartBroker, StartBrokerAt (the same broker id back on a new address),
// UncleanElect (reporting the offsets lost), DropRequests, DropResponses,
// CloseConnAfterAppend, ProcessAfterDisconnect and DelayProcessing (a
// request processed after its client lost it), DelayResponses,
// ThrottleProduce (a produce quota exceeded, KIP-219),
// InjectError, InjectErrorAfterAppend, ExpireProducer, SetFollowerLag,
// PauseReplication and Compact (on a CompactTopic: whole batches removed,
// the log start unmoved). The Recorder keeps every exchange and
// every produced partition batch for assertions and for Dump.
//
// Transactions are simulated as Kafka 4.4 has them: transactions v1
// (KIP-98, KIP-360, KIP-447, with KIP-890 part 1's verification of Kafka
// 3.6+) and, at the finalized feature transaction.version 2 that
// ApiVersions advertises by default (TransactionVersion), transactions v2
// (KIP-890 part 2, below). FindCoordinator finds a transactional id's coordinator,
// the leader of its __transaction_state partition (Java's
// String.hashCode of the id modulo TransactionStatePartitions; partition
// p's replicas are brokers p, p+1 and p+2, the first running one taking
// over, at a higher coordinator epoch, when its leader stops), and a
// group's likewise over __consumer_offsets (OffsetsTopicPartitions).
// InitProducerId with a transactional id allocates or keeps its producer
// id and bumps its epoch — KIP-360's named producer too: the current
// epoch bumps, a retry naming it again gets the same answer, a stale one
// is PRODUCER_FENCED (INVALID_PRODUCER_EPOCH before v4); an exhausted
// epoch moves to a new producer id — and fences an ongoing transaction:
// aborted at the epoch above, CONCURRENT_TRANSACTIONS until its markers
// are written. AddPartitionsToTxn v0-v3, AddOffsetsToTxn v0-v3 and EndTxn
// v0-v4 follow Kafka's states (Empty, Ongoing, PrepareCommit and
// PrepareAbort, CompleteCommit and CompleteAbort; PrepareEpochFence only
// passed through) with Kafka's error codes version by version. Once
// EndTxn is answered, the coordinator writes a control batch (a commit or
// abort marker, acks=all) to each partition's leader, again after a
// leader down or an election that lost it, and completes the transaction
// once every marker is replicated. A transactional Produce is refused
// unless its partition is in the producer's transaction
// (INVALID_TXN_STATE, TRANSACTION_ABORTABLE from v11, and v12 without
// transactions v2; WithoutTxnVerification emulates brokers
// before 3.6, which take it, the transaction then hanging there). The
// coordinator aborts transactions open past their timeout
// (transaction.timeout.ms, at most TransactionMaxTimeout) every
// TransactionAbortCheck, bumping the epoch (at transaction.version 2 the
// old epoch is kept as the last: a retry naming it gets the new one).
// Transactions v2: a transactional Produce v12 adds its partition to the
// transaction (the leader asks the coordinator, as Kafka's
// AddPartitionsToTxn v5 between brokers), TxnOffsetCommit v5 the group's;
// EndTxn v5 bumps the epoch at every commit and abort and answers it (a
// new producer id at epoch 0 once 32766 is reached), the markers carrying
// it; a retry at the previous epoch is answered the current producer, and
// an abort with nothing ongoing bumps the epoch. Every replica keeps its open
// and completed transactions: the last stable offset, which Fetch and
// ListOffsets with read_committed stop at, Fetch's aborted transactions,
// DescribeProducers' transaction start offsets, restarts and truncations
// included. TxnOffsetCommit v0-v5, at the group's coordinator, is minimal
// but faithful: the group is a simple one (consumer groups are not
// simulated), the offsets count only once the transaction commits
// (Cluster.CommittedOffsets; OffsetFetch is not served) and are dropped
// if it aborts. Cluster.DescribeTransaction, TransactionCoordinator and
// GroupCoordinator show the coordinators. TransactionalIDACL authorizes
// transactional ids.
// Not simulated: transactional id expiration, TxnOffsetCommit v6, a
// transaction log that loses writes or is loading
// (COORDINATOR_LOAD_IN_PROGRESS), DescribeTransactions and
// ListTransactions, group ACLs.
//
// Security: TLS(cfg) serves TLS on every listener (NewTestCA makes a CA
// and a certificate for 127.0.0.1/localhost in tests). SASL(mech, user,
// password) enables SASL PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 (RFC
// 5802/7677) with its users: SaslHandshake v1, then SaslAuthenticate
// v0-v2; or, as Kafka serves clients asking for it, SaslHandshake v0 and
// then the mechanism's raw tokens as size-prefixed frames (no
// SaslAuthenticate, no session lifetime told, no re-authentication; a
// refused credential closes the connection). SaslHandshake is advertised
// from v0, which librdkafka (kcat) requires before it speaks v1. Before authentication only ApiVersions and SaslHandshake are
// served and anything else closes the connection; an unknown mechanism is
// answered UNSUPPORTED_SASL_MECHANISM with the enabled ones, a failed
// authentication SASL_AUTHENTICATION_FAILED, and both then close the
// connection. ACL(user, topic, ops...) and SuperUser(user) authorize
// requests per SASL principal as Kafka's authorizer does (Produce needs
// WRITE, Fetch and DescribeProducers READ, ListOffsets, Metadata and
// DescribeTopicPartitions DESCRIBE; TOPIC_AUTHORIZATION_FAILED otherwise). SessionLifetime(d) is KIP-368: the lifetime is announced in
// SaslAuthenticate v1+, and once it passed the next request closes the
// connection unless the client re-authenticated on it. SASLOAuthBearer()
// enables OAUTHBEARER with Kafka's default unsecured JWS validator (alg
// none, a sub, an exp in the future; UnsecuredJWT makes such tokens): a
// refused token gets RFC 7628's error JSON, and the session ends when the
// token expires. User names, passwords and tokens never reach logs, errors
// or the Recorder.
//
// Not simulated: consumer groups, fetch sessions (every fetch
// is a full fetch), retention, topic ids in Produce/Fetch v13+, a
// preferred read replica (replica.selector.class), ISR shrinking on
// replica.lag.time.max.ms (PauseReplication does it at once).
//
// See docs/simulator.md (rollsafe sim, the sim in any client's tests, the
// checks against Kafka) in the repository.
package sim
