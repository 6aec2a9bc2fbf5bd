package idempotence

// purge applies Purge. queued takes the batches never sent under their
// numbering (no sequence moves, so nothing needs a bump); inFlight the
// others, as a delivery deadline takes them (expire): one every attempt of
// which was refused fails not written and leaves a hole the next epoch
// closes, one that may be in the log is reported unknown and settled by its
// answer or a read.
func (pr *Producer) purge(queued, inFlight bool) {
	if pr.closed {
		return
	}
	for _, p := range pr.order {
		for i := 0; i < len(p.batches); i++ {
			b := p.batches[i]
			switch {
			case b.st == stAcked, b.st == stAwaitSplit, b.reported:
				// In the log; the caller's to split; already told.
			case b.st == stQueued:
				if queued {
					pr.fail(p, b, errPurged)
					i--
				}
			case !inFlight:
				// Sent: it holds a sequence, so it counts as in flight.
			case b.st == stNotAppended:
				p.on(evNeedBump)
				pr.fail(p, b, errPurged)
				i--
			default:
				// In flight, or an attempt's outcome unknown: it may be
				// in the log or land there. Never sent again.
				b.expired = true
				b.reported = true
				pr.emit(Failed{TP: p.tp, ID: b.id, Err: errPurgedUnknown})
				if b.st != stInFlight {
					p.on(evNeedRead)
				}
			}
		}
		pr.settle(p)
	}
}
