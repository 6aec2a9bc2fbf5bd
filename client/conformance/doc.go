// Package conformance holds rollsafe's conformance scenarios:
// simulator-driven tests that each reproduce one failure known from other
// Kafka clients (confluent-kafka-go#830, librdkafka#3584, #4438, #4953,
// KAFKA-15591, ...) against a 3-broker sim.Cluster, produce through the
// public client API, read every partition back and check that acknowledged
// records are present exactly once and in order, records reported failed
// are absent, production carries on, and data loss is reported exactly when
// the cluster truncated acknowledged records. TestChaos plays seeded random
// fault schedules (sim/scenario) with the same checks:
//
//	go test -race ./client/conformance
//	go test ./client/conformance -run Chaos -chaos.runs=10000
//	go test ./client/conformance -run Chaos -chaos.seed=1234 -v
//
// The package has no exported API: everything is in its tests.
//
// See docs/testing.md (the scenarios and the chaos schedules) in the
// repository.
package conformance
