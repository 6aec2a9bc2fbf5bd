package idempotence

// Withdrawable reports whether batch id of tp holds no sequence number now
// (it is queued: never sent, or sent only under a numbering the log was
// shown not to hold and since cleared by an epoch bump), so that Withdraw
// can take records out of it without leaving a hole in the partition's
// sequence. It changes nothing.
func (pr *Producer) Withdrawable(tp TopicPartition, id BatchID) bool {
	p := pr.parts[tp]
	if p == nil || pr.closed {
		return false
	}
	b := p.byID[id]
	return b != nil && b.st == stQueued && !b.numbered && !b.reported
}

// withdraw applies Withdraw: a batch holding no sequence is replaced by
// its parts, in its place (none: removed). Nothing is reported for it: the
// caller settles the records it took out. It reports false, changing
// nothing, when the batch is not Withdrawable.
func (pr *Producer) withdraw(tp TopicPartition, id BatchID, parts []Part) bool {
	if !pr.Withdrawable(tp, id) {
		return false
	}
	p := pr.parts[tp]
	b := p.byID[id]
	if len(parts) == 0 {
		p.remove(b)
	} else {
		pr.replace(p, b, parts)
	}
	pr.wake(p)
	pr.settle(p)
	return true
}
