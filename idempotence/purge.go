package idempotence

// purge applies Purge: what is certainly not in the log fails as not
// written, and with inFlight what may be in it is reported unknown, as a
// delivery deadline does (expire), with ErrPurged.
func (pr *Producer) purge(inFlight bool) {
	if pr.closed {
		return
	}
	for _, p := range pr.order {
		for i := 0; i < len(p.batches); i++ {
			b := p.batches[i]
			switch {
			case b.st == stAcked, b.st == stAwaitSplit, b.reported:
				// In the log; the caller's to split; already told.
			case b.st == stQueued || b.st == stNotAppended:
				// Never sent under its numbering, or every attempt
				// refused: not written. A sequence it held leaves a
				// hole the next epoch closes.
				if b.numbered {
					p.needBump = true
				}
				pr.fail(p, b, errPurged)
				i--
			case inFlight:
				// In flight, or an attempt's outcome unknown: it may be
				// in the log or land there. Never sent again; its answer
				// or a read settles its sequence (see expire).
				b.expired = true
				b.reported = true
				pr.emit(Failed{TP: p.tp, ID: b.id, Err: errPurgedUnknown})
				if b.st != stInFlight {
					p.needRead = true
				}
			}
		}
		pr.settle(p)
	}
}
