// Package sim runs an in-process multi-broker Kafka cluster on the real wire
// protocol, with replication, per-partition producer state and the faults
// real clusters have, for testing Kafka clients.
package sim
