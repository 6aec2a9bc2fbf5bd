// Package conformance runs rollsafe's producer against a real Apache Kafka
// cluster (kafkatest) through the faults real clusters have — controlled
// shutdown and preferred-leader election (the seed, confluent-kafka-go#830),
// kill -9, rolling restarts, a paused zombie leader, a network blackhole,
// MESSAGE_TOO_LARGE, producer-id expiry, a min.insync.replicas outage —
// and reads every partition back to prove nothing was lost, duplicated or
// reordered. Tests only.
//
// ROLLSAFE_TRACE=DIR writes each test producer's transcript (every input
// of its state machine, every decision, its logs) to DIR/<topic>.trace;
// a subtest's producer to DIR/<topic>-<subtest>.trace (TestRandomFaults:
// random-seed=S.trace, one per schedule).
package conformance
