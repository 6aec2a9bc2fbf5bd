package idempotence

import "slices"

// A topic deleted and created again under the same name is a new topic:
// new partitions (their count may differ), empty logs, no producer state,
// leader epochs from 0. The caller tells it by LeaderChanged.Incarnation
// (a new topic id, Metadata v10+; see there for brokers without ids).
// recreated ends what the partition held for the old topic and starts the
// new one afresh:
//
//   - up to the last batch that is, or may be, in the old log (acknowledged,
//     in flight, or with an unknown outcome), every batch finishes as it
//     stands there: acknowledged ones are delivered (in order, at their
//     offset in the old log); one in flight is reported ErrOutcomeUnknown
//     at once and never sent again (its request may still land, in the old
//     log or, read by the broker before the re-creation, in the new one),
//     and leaves when answered, whatever the answer; one with an unknown
//     outcome fails ErrOutcomeUnknown; one never written fails
//     ErrNotWritten (the batches after it went to the old topic);
//   - the batches after it were never written anywhere: they go to the new
//     topic, numbered afresh from sequence 0 under a fresh epoch (requests
//     of the old topic may land in the new log under the old epoch), one
//     at a time until the first success, once the old requests are
//     answered;
//   - what the partition remembered of the old log (acknowledged batches,
//     log start, a pending read, a loss found and held for this very
//     check — see reportLoss —, a stop after data loss) is dropped: the
//     new log starts at offset 0 and shares nothing with the old one.
func (pr *Producer) recreated(p *partition) {
	last := -1
	for i, b := range p.batches {
		if b.st == stAcked || b.st == stInFlight || b.unknown || b.reported {
			last = i
		}
	}
	for _, b := range slices.Clone(p.batches[:last+1]) {
		switch {
		case b.st == stAcked:
			b.old = true // delivered in order, as it stands
		case b.st == stInFlight:
			b.old, b.expired = true, true
			if !b.reported {
				b.reported = true
				pr.emit(Failed{TP: p.tp, ID: b.id, Err: errRecreatedUnknown})
			}
		case b.st == stAwaitSplit:
			// The caller splits it at once (NeedSplit): its parts go to
			// the new topic.
		case b.unknown || b.reported:
			pr.fail(p, b, errRecreatedUnknown)
		default:
			pr.fail(p, b, errRecreatedNotWritten)
		}
	}
	for _, b := range p.batches {
		if b.old || b.st == stAwaitSplit {
			continue
		}
		if b.numbered {
			p.nNumbered--
		}
		b.numbered, b.st, b.corrupt = false, stQueued, 0
	}
	// A bump waits for the old requests (drained), and a read under way
	// is of the old log (dropped when it comes).
	p.on(evRecreated)
	p.knownEpoch, p.leaderEpoch = false, -1
	p.desync, p.stopped = false, nil
	p.cautious, p.fails = true, 0
	p.hasAckedPID, p.hasAckedSeq, p.hasAnchor, p.anchorGap = false, false, false, 0
	p.history, p.forgot, p.heldLoss = nil, forgotRun{}, nil
	p.shortReads, p.heldReads, p.openReads, p.wideRead, p.logStart = 0, 0, 0, false, -1
}

// answeredOld takes the answer of a batch in flight to a deleted topic:
// whatever it says, the batch leaves (its caller heard its outcome is
// unknown).
func (pr *Producer) answeredOld(p *partition, b *batch) {
	p.inFlight--
	p.remove(b)
	pr.settle(p)
}
