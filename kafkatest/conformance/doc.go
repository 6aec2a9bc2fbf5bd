// Package conformance runs rollsafe's producer against a real Apache Kafka
// cluster (kafkatest) through the faults real clusters have — controlled
// shutdown and preferred-leader election (the seed, confluent-kafka-go#830),
// kill -9, rolling restarts, a paused zombie leader, a network blackhole,
// MESSAGE_TOO_LARGE, producer-id expiry, a min.insync.replicas outage, a
// topic deleted and created again — and reads every partition back to prove nothing was lost, duplicated or
// reordered. The transactional producer plays its own (TestTxn…: the
// coordinator killed mid-commit, a leader rolled mid-transaction, a
// zombie instance fenced, a transaction timed out by the coordinator, a
// record over max.message.bytes), read back as a read_committed consumer
// reads. Tests only.
//
// They run on Kafka 4.4 (the default); TestKafkaVersions plays seed,
// kill, zombie, recreated and txn-coordinator on 3.9.2 (KRaft) and 2.8.1
// (ZooKeeper mode), and the first four on 2.2.2, each on a cluster of its
// own. ROLLSAFE_KAFKA_VERSIONS plays more on demand: "all" (every older
// version) or a list such as "2.8" or "3.9,4.4" runs clean, seed, kill,
// zombie, recreated, rolling, blackhole, toolarge, mininsync, restart (a
// leader killed and started at once), unclean and the five transactional
// scenarios (txn-coordinator, txn-leader, txn-zombie, txn-timeout,
// txn-toolarge; not on 2.2.2, before KIP-360) on each; "none" skips them.
// ROLLSAFE_TXN_ROUNDS=N plays N rounds of the coordinator kill (each at
// another moment of the commit) and of the leader roll (default 1).
//
// ROLLSAFE_TRACE=DIR writes each test producer's transcript (every input
// of its state machine, every decision, its logs) to DIR/<topic>.trace;
// a subtest's producer to DIR/<topic>-<subtest>.trace (TestRandomFaults:
// random-seed=S.trace, one per schedule); a transactional producer to
// DIR/<topic>-<transactional id>.trace.
//
// See docs/real-kafka.md (what the real-cluster suite plays and how to run
// it) in the repository.
package conformance
