package idempotence

// close finishes every unfinished batch (see Close).
func (pr *Producer) close() {
	if pr.closed {
		return
	}
	pr.closed = true
	if pr.txn != nil {
		pr.txn.ending = true // the failures below end the transaction (txnClosed)
	}
	for _, p := range pr.order {
		for len(p.batches) > 0 {
			b := p.batches[0]
			if b.st == stAcked {
				// In the log: held only until a pending read could report
				// a loss. Delivered as acknowledged.
				pr.deliverAcked(p)
				continue
			}
			err := errClosed
			if b.st == stInFlight || b.unknown {
				err = errClosedUnknown
			}
			pr.fail(p, b, err)
		}
		p.inFlight = 0
		p.on(evClosed)
	}
	if pr.txn != nil {
		pr.txnClosed()
	}
}
