package idempotence

import (
	"time"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

// Response applies the outcome of one produce attempt of batch id. A response
// for a batch that is not in flight (stale or repeated) is ignored.
func (pr *Producer) respond(tp TopicPartition, id BatchID, r Response, now time.Time) {
	p := pr.parts[tp]
	if p == nil {
		return
	}
	b := p.byID[id]
	if b == nil || b.st != stInFlight {
		return
	}
	pr.observe(now)
	if b.old {
		pr.answeredOld(p, b)
		return
	}
	p.inFlight--
	if r.LogStartOffset >= 0 {
		p.logStart = r.LogStartOffset
	}
	if pr.txn != nil && r.Code.TxnAction() == kafkaerr.TxnStaleEpoch {
		// KIP-588: the coordinator's timeout or a newer instance moved
		// the epoch; the abort tells which.
		pr.txnStale(r.Code)
	}
	switch corruptOutcome(b, classify(r, pr.cfg.LeaderAcks)) {
	case outAppended:
		pr.ack(p, b, r.BaseOffset)
	case outDuplicate:
		pr.ack(p, b, -1)
	case outNotApp:
		b.rejected()
		pr.retryLater(p, r.Code)
	case outMaybe:
		b.unknown = true
		b.rejected()
		pr.retryLater(p, r.Code)
	case outOutOfOrder:
		// At the head the broker's state and ours disagree: desynchronised.
		// Later in the queue it follows an earlier failure: retry in order.
		// A hole this partition already knows of (a failed batch) explains
		// it too: the bump that follows the drain handles both.
		head := p.head() == b
		b.rejected()
		p.cautious = true
		if head && !p.state.bumpOwed() {
			p.on(evNeedRead)
			p.desync = true
		}
	case outUnknownPID:
		b.rejected()
		p.cautious, p.desync = true, true
		p.on(evNeedRead)
	case outStaleEpoch:
		b.rejected()
		p.cautious = true
		if b.unknown {
			p.on(evNeedRead) // an earlier attempt may be in the log
			p.desync = true
		} else {
			p.on(evNeedBump) // written under a stale epoch: move on
		}
	case outTooLarge:
		p.cautious = true
		if b.unknown || b.reported {
			b.tooLarge = true
			b.rejected()
			p.on(evNeedRead)
		} else {
			b.st = stAwaitSplit
			p.on(evNeedBump) // the parts cannot reuse its sequences
			pr.emit(NeedSplit{TP: tp, ID: id})
		}
	case outFatal:
		p.cautious = true
		err := &CodeError{Code: r.Code, Err: ErrNotWritten}
		if b.unknown {
			b.fatal = err
			b.rejected()
			p.on(evNeedRead)
		} else {
			p.on(evNeedBump) // its sequence leaves a hole
			pr.fail(p, b, err)
		}
	}
	if b.unknown && b.st == stMaybeAppended && pr.mayBeForgotten(p) {
		// The broker may have dropped this producer's state (old record
		// timestamps) and would accept a copy at any sequence: the log, not
		// a resend, decides whether the earlier attempt landed.
		p.on(evNeedRead)
		if r.Code == kafkaerr.Transport {
			// No answer: the broker may have read the request (written at
			// the latest now) and still append it after a read taken now,
			// ahead of a resend it no longer recognises. Read once it would
			// have answered.
			p.retryAt = later(p.retryAt, pr.now.Add(pr.answerTimeout()))
		}
	}
	if b.expired && p.byID[id] == b {
		switch {
		case b.st == stAcked: // reported unknown, in fact written: settled
		case b.st == stAwaitSplit && !b.reported: // a split batch expires through its parts
		case b.unknown:
			p.on(evNeedRead)
		default:
			// Known not written: its sequence leaves a hole.
			if b.numbered {
				p.on(evNeedBump)
			}
			pr.fail(p, b, errTimeoutNotWritten) // silent if already reported
		}
	}
	pr.settle(p)
}

// ack records that b is in the log. A batch placed below where the
// acknowledged batches before it in the partition's order end (counting
// those acknowledged without an offset) means the log was truncated under us (an unclean leader election, a replica
// that lost its disk): the partition reads its tail to find which
// acknowledged records are gone. (Acknowledgements themselves may come out
// of order — a retried batch deduplicated after later ones — so only the
// order of the batches counts.)
func (pr *Producer) ack(p *partition, b *batch, base int64) {
	if next, ok := p.minNextOffset(b); ok && base >= 0 && base < next {
		p.cautious, p.desync = true, true
		p.on(evNeedRead)
	}
	overlap := base >= 0 && b.numbered && (p.overlapsRemembered(base, b.records, tailKey{b.pid, b.epoch, b.seq}) || p.rememberedAbove(b, base))
	if overlap {
		p.cautious, p.desync = true, true
		p.on(evNeedRead)
	}
	p.acked(b, base)
	if overlap {
		pr.reportLoss(p, p.truncatedUnder(b, base))
	}
	if p.cautious && p.state.sendingOK() {
		clean := true
		for _, x := range p.batches {
			if x.waitingResend() {
				clean = false
				break
			}
		}
		if clean {
			p.cautious = false
			pr.wake(p)
		}
	}
}

// retryLater puts the partition in single-flight mode, pauses it (longer
// after each failure in a row) and, for codes meaning the leader may have
// moved, asks for metadata.
func (pr *Producer) retryLater(p *partition, code kafkaerr.Code) {
	p.cautious = true
	pr.holdOff(p)
	if code.RefreshMetadata() && p.hasLeader {
		p.hasLeader = false
		pr.emit(RefreshMetadata{TP: p.tp})
	}
}

// mayBeForgotten reports a partition with a numbered, unacknowledged batch
// stamped long enough ago that a broker may have expired this producer's
// state by it (Config.ProducerIDExpiration): only such a batch, landed,
// becomes the broker's record of the producer.
func (pr *Producer) mayBeForgotten(p *partition) bool {
	limit, on := pr.forgetLimit()
	for _, b := range p.batches {
		if on && b.numbered && b.st != stAcked && forgettable(b, limit) {
			return true
		}
	}
	return false
}

// answerTimeout is Config.AnswerTimeout, defaulted.
func (pr *Producer) answerTimeout() time.Duration {
	if pr.cfg.AnswerTimeout > 0 {
		return pr.cfg.AnswerTimeout
	}
	return DefaultAnswerTimeout
}

// later returns the later of two times.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// forgetLimit returns the stamp before which a batch is forgettable —
// three quarters of Config.ProducerIDExpiration ago — and false when the
// guard is off. A broker may forget the producer by such a batch (Kafka's
// periodic expiry drops it while it writes) and then accepts this
// producer's next batch at any sequence: a resend as a second copy, a later
// batch ahead of an earlier refused one.
func (pr *Producer) forgetLimit() (time.Time, bool) {
	exp := pr.cfg.ProducerIDExpiration
	if exp < 0 {
		return time.Time{}, false
	}
	if exp == 0 {
		exp = DefaultProducerIDExpiration
	}
	return pr.now.Add(-exp / 4 * 3), true
}

// forgettable reports a batch stamped before limit (see forgetLimit).
func forgettable(b *batch, limit time.Time) bool {
	return !b.stamp.IsZero() && b.stamp.Before(limit)
}

// maxCorrupt is how many CORRUPT_MESSAGE answers a batch gets before it
// fails as not written.
const maxCorrupt = 3

// corruptOutcome bounds the retries of CORRUPT_MESSAGE (kafkaerr's
// RetryBounded). It means a CRC failure in transit, which a resend cures
// (Java's client retries it), but brokers before 2.4 also answer it for a
// keyless record on a compacted topic, which no resend cures: after
// maxCorrupt answers the batch fails, not written (the broker refused
// every attempt).
func corruptOutcome(b *batch, o outcome) outcome {
	if o != outCorrupt {
		return o
	}
	b.corrupt++
	if b.corrupt >= maxCorrupt {
		return outFatal
	}
	return outNotApp
}
