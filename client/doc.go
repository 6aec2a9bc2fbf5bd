// Package client is rollsafe's public idempotent Kafka producer.
//
// A Producer writes each record exactly once, in order per partition, and
// keeps doing so through what clusters do: leaders moving, brokers
// restarting and taking leadership back, responses lost, producer state
// expiring. NOT_LEADER_OR_FOLLOWER, UNKNOWN_PRODUCER_ID and
// OUT_OF_ORDER_SEQUENCE_NUMBER are never fatal: a desynchronised partition
// is quarantined alone, its log is read back to find which batches are
// already there, and only batches proven absent are resent under a new
// producer epoch (KIP-360). The decisions live in package idempotence.
//
// Every record's callback runs exactly once, on one goroutine, in offset
// order per partition. Its error says what is known about the record:
//
//   - nil: acknowledged; Record.Partition and Record.Offset say where.
//   - ErrNotWritten: certainly not in the log; resending cannot duplicate.
//   - ErrOutcomeUnknown: possibly in the log; the producer could not read
//     the log in time to find out.
//   - ErrDeliveryTimeout (with one of the two above), ErrRecordTooLarge,
//     ErrUnknownTopic, ErrUnknownPartition, ErrBrokersUnreachable,
//     ErrInvalidRecord, ErrAuthorization, ErrAuthentication, ErrBufferFull
//     (TryProduce), ErrClosed, ErrPartitionStopped (StopOnDataLoss); each
//     also matches ErrNotWritten or ErrOutcomeUnknown.
//
// Errors are one line, prefixed "rollsafe: ". Produce never waits for the
// cluster: records for a topic whose metadata is unknown are queued, in
// order, and their outcome comes through the callback.
//
// Acknowledged records that later vanish from a partition (an unclean
// leader election) are reported through OnDataLoss with their offsets.
//
// Defaults: idempotent, acks=all, five requests in flight per partition,
// linger 5ms, gzip, murmur2 (Java-compatible) for keyed records, uniform
// sticky partitioning (KIP-794) for the others.
package client
