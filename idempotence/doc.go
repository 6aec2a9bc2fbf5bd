// Package idempotence holds the idempotent producer's pure state machines:
// the producer id and epoch, one sequence machine per partition, and the
// decision taken for every produce outcome. It does no I/O, starts no
// goroutines and reads no clock: inputs go in, decisions come out, in the
// style of etcd's raft.
//
// The caller (the client) owns a Producer on one goroutine and feeds it
// every input with Step, then acts on Ready and confirms with Advance, in
// the shape of etcd raft's node loop:
//
//	pr := idempotence.New(idempotence.Config{})
//	pr.Step(idempotence.SetIdentity{ProducerID: pid, Epoch: epoch}, now) // InitProducerId
//	pr.Step(idempotence.LeaderChanged{TP: tp, Broker: b, LeaderEpoch: le}, now)
//	pr.Step(idempotence.NewBatch{TP: tp, ID: id, Records: n, Deadline: d}, now)
//	rd := pr.Ready()
//	for _, s := range rd.Sends { /* patch header, write to s.Broker */ }
//	for _, ev := range rd.Events { /* Delivered, Failed, ReadTail, ... */ }
//	pr.Advance()
//	pr.Step(idempotence.Answer{TP: tp, ID: id, Response: r}, now)
//	if t, ok := pr.NextWake(); ok { /* Step(Tick{}) at t */ }
//
// Every Send must eventually get a Response (a dropped connection is
// kafkaerr.Transport with Class MaybeAppended). Batches whose outcome is unknown are
// retried unchanged and never renumbered; when a partition desynchronises
// from the broker it alone is quarantined, drained, and resolved by reading
// its log (ReadTail/TailRead) before anything is renumbered under a new
// epoch. No input makes an idempotent Producer fatal. A transactional one
// (Config.Transactional) adds a transaction machine above the partitions:
// its states in an explicit table (txn_state.go), the coordinator's
// requests as events, batch outcomes told when the transaction commits or
// aborts; it goes fatal only when fenced or refused. README.md in this
// directory has the state diagrams and the rule tables.
//
// See docs/architecture.md (where the machine sits) and docs/guarantees.md
// (what its decisions promise) in the repository.
package idempotence
