// Package sim runs an in-process multi-broker Kafka cluster on the real wire
// protocol, with replication, per-partition producer state and the faults
// real clusters have, for testing Kafka clients.
//
// NewCluster starts brokers on loopback listeners. They serve ApiVersions,
// Metadata (with leader epochs), InitProducerId (idempotent producers only),
// Produce v3-v12 (record batch v2, CRC-32C checked, every codec decompressed
// and validated; acks 0, 1 and -1), Fetch v4-v12 (up to the high
// watermark, the stored bytes as produced), ListOffsets, FindCoordinator and
// OffsetForLeaderEpoch, flexible versions included. Requests on one
// connection are handled one at a time, as Kafka does.
//
// Every broker keeps its own replica of each partition's log and its own
// producer-state table. The leader appends; followers copy (after an
// optional lag) and rebuild producer state from what they copy; the high
// watermark is the smallest log end of the in-sync replicas, and acks=-1
// is answered once it covers the batch. Producer state follows Kafka 2.5+
// (a dedup window of five batches per producer; Pre25, Kafka15591Fix and
// EpochPerProducer emulate other brokers).
//
// Faults are methods usable mid-run: MoveLeader, StopBroker / StartBroker,
// UncleanElect (reporting the offsets lost), DropResponses,
// CloseConnAfterAppend, DelayResponses, InjectError, ExpireProducer,
// SetFollowerLag and PauseReplication. The Recorder keeps every exchange and
// every produced partition batch for assertions and for Dump.
//
// Security: TLS(cfg) serves TLS on every listener (NewTestCA makes a CA
// and a certificate for 127.0.0.1/localhost in tests). SASL(mech, user,
// password) enables SASL PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 (RFC
// 5802/7677) with its users: SaslHandshake v1, then SaslAuthenticate
// v0-v2. Before authentication only ApiVersions and SaslHandshake are
// served and anything else closes the connection; an unknown mechanism is
// answered UNSUPPORTED_SASL_MECHANISM with the enabled ones, a failed
// authentication SASL_AUTHENTICATION_FAILED, and both then close the
// connection. SessionLifetime(d) is KIP-368: the lifetime is announced in
// SaslAuthenticate v1+, and once it passed the next request closes the
// connection unless the client re-authenticated on it. User names and
// passwords never reach logs, errors or the Recorder.
//
// Not simulated: transactions, consumer groups, fetch sessions (every fetch
// is a full fetch), retention, topic ids in Produce/Fetch v13+.
package sim
