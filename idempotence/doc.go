// Package idempotence holds the idempotent producer's pure state machines:
// the producer id and epoch, one sequence machine per partition, and the
// decision taken for every produce outcome. It does no I/O, starts no
// goroutines and reads no clock: inputs go in, decisions come out.
package idempotence
