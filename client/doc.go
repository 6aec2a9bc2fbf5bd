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
//   - ErrOutcomeUnknown: possibly in the log; the broker could not show
//     whether (still in flight at the delivery deadline, or on a broker
//     without DescribeProducers). Such a record is never written twice.
//   - ErrDeliveryTimeout (with one of the two above), ErrRecordTooLarge,
//     ErrUnknownTopic, ErrUnknownPartition, ErrBrokersUnreachable,
//     ErrInvalidRecord, ErrAuthorization, ErrAuthentication (with
//     ErrTokenRejected for a refused OAUTHBEARER token), ErrTokenProvider
//     (SASLOAuthBearer's provider failed), ErrBufferFull (TryProduce),
//     ErrClosed, ErrPurged (Purge), ErrPartitionStopped (StopOnDataLoss),
//     ErrTopicRecreated (the topic deleted and created again);
//     each also matches ErrNotWritten or ErrOutcomeUnknown.
//
// Errors are one line, prefixed "rollsafe: ". Produce never waits for the
// cluster: records for a topic whose metadata is unknown are queued, in
// order, and their outcome comes through the callback.
//
// With TransactionalID the producer is transactional: InitTransactions
// once, then BeginTransaction, Produce, CommitTransaction (or
// AbortTransaction). A transaction's records reach read_committed
// consumers all together when it commits and never when it aborts; their
// callbacks run when it ends (nil at their offsets, or ErrAborted).
// SendOffsetsToTransaction commits a consumer group's offsets with the
// transaction (consume-transform-produce). Produce
// with no transaction open fails ErrNoTransaction. A failed transaction
// call says to retry it (its context ended), to abort and go on
// (ErrTxnAbortable), or that the producer is done (ErrTxnFatal, ErrFenced).
// The decisions are the transaction machine's, in package idempotence; the
// loop hands its coordinator requests (FindCoordinator, InitProducerId,
// AddPartitionsToTxn v1-v3, EndTxn) to goroutines that post the answers
// (txn_io.go, loop_txn.go).
//
// Acknowledged records that later vanish from a partition (an unclean
// leader election) are reported through OnDataLoss with their offsets.
//
// Purge fails what the producer holds without waiting for the cluster
// (what is not sent yet, and with PurgeInFlight what is); Metadata,
// Watermarks and OffsetForTime ask the cluster about topics and offsets.
//
// Defaults: idempotent, acks=all, five requests in flight per partition,
// linger 5ms, gzip, murmur2 (Java-compatible) for keyed records, uniform
// sticky partitioning (KIP-794) for the others. WithPartitioner takes
// RoundRobinPartitioner, LeastBackupPartitioner (the partition with the
// fewest records outstanding), StickyKeyPartitioner (a key hash of your
// own) or a Partitioner of yours.
//
// # Architecture
//
// One goroutine, the loop (loop.go), owns the producer's state, and
// nothing else touches it: the idempotence machine; every closed batch
// until it is released (senders only read the bytes of the batches handed
// to them); the outboxes, the senders and each partition's lane; the
// records held for their topic's metadata; the metadata it routes by (the
// newest snapshot of the metadata view it has been sent, with the leader
// hints it applied); the leader each partition was last told, and the
// partitions awaiting a refresh; the brokers suspected of being frozen;
// failure streaks and cancelled records. Only the loop steps the machine,
// numbers and routes batches and resolves records, and no lock guards
// that state. Everything that happens reaches the loop as an input on its
// inbox (an unbounded queue, so posting never blocks), carrying its data;
// connection readers, batching workers and background goroutines only
// post. The loop steps the machine with the input, then carries out what
// the machine made ready. What is shared, each piece behind a lock of its
// own, is on the I/O side of the loop or Produce's: the accumulator's open
// batches (Produce and the batching workers), the metadata view (written
// by refreshes and by the leader hints the loop applies; read by Produce
// for partition counts, the connection pools for addresses, the tail
// readers and Metadata/Watermarks), the topics to refresh (the loop adds,
// the metadata loop reads), Produce's side of the held topics, the
// callback queue:
//
//	Produce ─► accumulator ─► batching workers (encode, compress) ─┐
//	                                                               │ batch closed
//	conn readers (produce answers, timeouts, KIP-951 hints) ───────┤
//	tail readers (DescribeProducers + leader-epoch Fetch) ─────────┤
//	every refresh (metadata snapshots), metadata loop ─────────────┤─► inbox ─► loop
//	InitProducerId, transaction coordinator requests ──────────────┤            │ Step(input)
//	timer at NextWake (deadlines, backoffs), Close ────────────────┘            │ Ready()
//	                                                                            ▼
//	        Sends ─► outbox per broker connection (ProduceConnections per
//	                 broker, each partition kept to one; ≤ MaxInFlight requests
//	                 per connection, each the next batch of every partition)
//	                 ─► senders ─► connection
//	        Delivered/Failed ─► callback queue ─► your callbacks (one goroutine, in order)
//	        ReadTail ─► tail reader · RefreshMetadata ─► metadata loop · NeedSplit ─► split
//	        NeedProducerID ─► InitProducerId · DataLoss/EpochBumped ─► hooks, logs
//
// The loop never blocks on I/O: senders, readers and the metadata loop do
// the network work and post back. A request that fails on the way (the
// broker unreachable, its connection lost) fails every request queued
// behind it on that sender until the machine has had its answers, as one
// TCP pipeline would: nothing built before the machine knew goes out on a
// new connection ahead of a batch it must resend. The metadata loop,
// InitProducerId, topic waits and tail reads start each refresh, request or
// read when the loop gives them their turn (loop_turns.go), after it has
// acted on its inputs. Hooks and logging run without a lock.
// ProduceSync's outcomes skip the callback queue, so ProduceSync works
// inside a callback; Flush and Close there fail with ErrInCallback.
//
// At slog level LevelTrace the loop logs every input it steps into the
// machine ("in", with its time) and every Ready ("out": sends and events):
// a transcript of the execution.
//
// # Deterministic simulation
//
// The same producer runs unchanged inside a testing/synctest bubble, on the
// bubble's virtual clock, against sim's brokers on an in-memory network
// (sim/memnet: latencies drawn from a seed, the write's time and bytes):
//
//	n := memnet.New(seed)
//	c, _ := sim.NewCluster(sim.Network(n))
//	p, _ := client.NewProducer(client.Brokers(c.Addrs()...), client.Dialer(n.Dial), client.SyncTest(synctest.Wait))
//
// SyncTest(synctest.Wait) gives the loop the bubble's barrier: the loop
// waits until every other goroutine of the bubble is blocked before it
// takes its inputs, applies the inputs of one instant in a canonical order,
// and gives the turns of one instant one at a time in that order, waiting
// for the barrier before each. No sleep orders anything: one seed, one
// execution, the same transcript on every run (TestChaosReplay). The
// conformance scenarios and the chaos schedules run this way by default
// (client/conformance: -conformance.wall and TestChaosSockets keep runs
// over sockets and the wall clock).
//
// See docs/guarantees.md (what each outcome means and how the producer learns
// it), docs/architecture.md (the loop) and the README's option table in the
// repository.
package client
