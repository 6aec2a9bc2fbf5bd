package idempotence

import "math/rand/v2"

// recreate has the topic of w.tps[i] deleted and created again (the random
// walk's topic re-creation): the model broker's partition gets a new,
// empty log without producer state, its leader epoch starts over at 0,
// and metadata tells the producer so. Requests in flight stay on the wire
// and meet the new log when the broker processes them, as a request read
// before a re-creation and processed after it does in Kafka (it names the
// topic, not its id). Then one to three more batches are enqueued.
func (w *world) recreate(i int, rng *rand.Rand) {
	tp := w.tps[i]
	seen := map[BatchID]bool{}
	for _, b := range w.m.part(tp).log {
		if seen[b.id] {
			w.fail("duplicate of batch %d in the log of %v before its topic's deletion", b.id, tp)
		}
		seen[b.id] = true
	}
	if w.crossing == nil {
		w.crossing = map[BatchID]bool{}
	}
	for _, r := range w.net[tp] {
		w.crossing[r.send.ID] = true
	}
	w.m.recreate(tp)
	w.leaderEpoch[tp] = 0
	if w.recreated == nil {
		w.recreated = map[TopicPartition]int{}
	}
	w.recreated[tp]++
	w.logf("recreated p%d (incarnation %d)", i, w.recreated[tp])
	// A numbered batch may be numbered afresh for the new topic if it
	// was never written.
	for _, x := range w.wb {
		if x.tp == tp && x.numbered {
			x.mayRenum = true
		}
		if x.tp == tp && x.truncated {
			x.deleted = true
		}
	}
	w.errSince[tp] = true
	w.tellLeader(tp)
	w.pump()
	w.enqueueOn(tp, 1+rng.IntN(3), rng)
}

// tellLeader feeds the partition's current leader, as metadata shows it.
func (w *world) tellLeader(tp TopicPartition) {
	w.pr.leaderChangedIn(tp, 1+w.leaderEpoch[tp]%3, w.leaderEpoch[tp], uint64(1+w.recreated[tp]))
}
