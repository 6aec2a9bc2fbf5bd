// Package idempotence holds the idempotent producer's pure state machines:
// the producer id and epoch, one sequence machine per partition, and the
// decision taken for every produce outcome. It does no I/O, starts no
// goroutines and reads no clock: inputs go in, decisions come out, in the
// style of etcd's raft.
//
// The caller (the client) owns a Producer behind a mutex and, after every
// input, drains Events and calls Sendable for the partitions it woke:
//
//	pr := idempotence.New(idempotence.Config{})
//	pr.SetIdentity(pid, epoch)              // InitProducerId
//	pr.LeaderChanged(tp, broker, leaderEpoch)
//	pr.Enqueue(tp, id, records, deadline)
//	for _, s := range pr.Sendable(tp, now) { /* patch header, write */ }
//	pr.Response(tp, s.ID, idempotence.Response{...}, now)
//	for _, ev := range pr.Events() { /* Delivered, Failed, ReadTail, ... */ }
//
// Every Send must eventually get a Response (a dropped connection is
// Code -1 with Class MaybeAppended). Batches whose outcome is unknown are
// retried unchanged and never renumbered; when a partition desynchronises
// from the broker it alone is quarantined, drained, and resolved by reading
// its log (ReadTail/TailRead) before anything is renumbered under a new
// epoch. No input makes the Producer fatal. README.md in this directory has
// the state diagram and the rule table.
package idempotence
