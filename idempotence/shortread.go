package idempotence

// Reads whose high watermark is short of what was acknowledged: a leader
// just elected whose high watermark trails, or a truncated log. With the
// leader's log end (OffsetForLeaderEpoch v3, Kafka 2.3+) the two are told
// apart by uncommitted; without it, only what the read proves counts.

// maxShortReads is how many reads whose high watermark trails what was
// acknowledged are repeated before the shorter log is believed (a new
// leader's high watermark catches up within a replication round trip; a
// truncated log stays short).
const maxShortReads = 5

// maxHeldReads is how many times a read is repeated while the leader holds
// a batch of ours that the read does not show (not committed yet).
const maxHeldReads = 20

// incomplete reports a read that cannot be believed yet — its high
// watermark is below the end of what was acknowledged — and asks again.
// After maxShortReads such reads the shorter log is believed (a
// truncation) only if the leader showed its log end: a broker before
// Kafka 2.3 cannot (LogEndOffset -1), and a new leader's trailing high
// watermark looks the same as a truncated log, so such a read is never
// believed — unless it proves a truncation (proveShort) — it is repeated up to
// maxOpenReads times, then counts as a failed read (an unknown outcome
// stays unknown; nothing is reported lost or written again on a guess).
func (pr *Producer) incomplete(p *partition, t Tail) bool {
	if t.HighWatermark >= p.ackedEnd() {
		return false
	}
	if t.LogEndOffset < 0 {
		switch proveShort(p, t, pr.mayBeForgotten(p)) {
		case shortTruncated:
			return pr.shortRead(p)
		case shortWiden:
			if p.readFrom >= 0 {
				// Where the leader's batch of ours lies is unknown: read
				// from the log start, which shows it if committed.
				pr.askTail(p, -1)
				p.wideRead = true
				return true
			}
		}
		return pr.openRead(p, &p.shortReads)
	}
	return pr.shortRead(p)
}

// openRead repeats a read that proves nothing up to maxOpenReads times
// (counted in *n), then counts it as a failed read.
func (pr *Producer) openRead(p *partition, n *int) bool {
	if *n < maxOpenReads {
		*n++
		pr.readAgain(p)
		return true
	}
	*n = 0
	pr.tailFailed(p)
	pr.settle(p)
	return true
}

// shortRead repeats a read short of what was acknowledged up to
// maxShortReads times, then believes it (false).
func (pr *Producer) shortRead(p *partition) bool {
	if p.shortReads >= maxShortReads {
		return false
	}
	p.shortReads++
	pr.readAgain(p)
	return true
}

// shortProof is what a read short of what was acknowledged, from a broker
// that cannot show its log end, proves.
type shortProof uint8

const (
	shortUnknown   shortProof = iota // a trailing high watermark or a truncation: nothing
	shortWiden                       // the leader holds a batch of ours the read does not locate: read from the log start
	shortTruncated                   // truncated: the leader lacks the last acknowledged batch, and the read reaches what it holds
)

// proveShort says what a short read without the log end proves. The last
// batch acknowledged with an offset is gone when the read shows a batch of
// ours written after it (a later epoch, or a later sequence of its epoch)
// at or below its offsets: in an intact log ours lie in that order. Or the
// leader's producer state (DescribeProducers, which counts appends not yet
// committed) lacks it — the producer id at an older epoch, or at its
// epoch with a last sequence before the batch's — and the read shows the
// last batch of ours the leader does hold (else its high watermark trails
// too). A producer id the leader does not know proves the same, unless the
// partition's batches are stamped long enough ago for the broker to have
// expired it (forgotten).
func proveShort(p *partition, t Tail, forgotten bool) shortProof {
	if !t.Described {
		return shortUnknown
	}
	rem := p.remembered()
	if len(rem) == 0 {
		return shortUnknown
	}
	last := rem[0]
	for _, a := range rem {
		if a.end() > last.end() {
			last = a
		}
	}
	for _, tb := range t.Batches {
		for _, a := range rem {
			if a.records > 0 && tb.ProducerID == a.key.pid && tb.BaseOffset <= a.end() && writtenAfter(tb.Epoch, tb.BaseSequence, a) {
				return shortTruncated
			}
		}
	}
	for _, s := range t.Producers {
		if s.ProducerID != last.key.pid {
			continue
		}
		b := batch{pid: last.key.pid, epoch: last.key.epoch, seq: last.key.seq, records: last.records}
		if s.Epoch > last.key.epoch {
			return shortWiden // where that later batch lies decides
		}
		if s.Epoch == last.key.epoch && leaderHolds(t.Producers, &b) {
			return shortUnknown
		}
		// It lacks it. The read must also show the last batch the leader
		// holds of ours, or its high watermark trails too.
		for _, tb := range t.Batches {
			if tb.ProducerID == s.ProducerID && tb.Epoch == s.Epoch && addSeq(tb.BaseSequence, tb.Records-1) == s.LastSequence {
				return shortTruncated
			}
		}
		// (Or it lies below the read's high watermark: d sequences before
		// the anchor, of one producer id and epoch, it ends at least d
		// offsets before it — our records between fill consecutive
		// offsets, another producer's only push it lower.)
		if p.hasAnchor && p.anchor.key.pid == s.ProducerID && p.anchor.key.epoch == s.Epoch {
			d := (int64(p.anchor.key.seq) - int64(s.LastSequence) + (1 << 31)) % (1 << 31)
			if d > 0 && d < 1<<30 && p.anchor.base-d < t.HighWatermark {
				return shortTruncated
			}
		}
		// (Or where the partition remembers it, under the high watermark.)
		for _, a := range rem {
			if a.key.pid == s.ProducerID && a.key.epoch == s.Epoch && addSeq(a.key.seq, a.records-1) == s.LastSequence && a.records > 0 {
				if a.end() < t.HighWatermark {
					return shortTruncated
				}
				return shortUnknown
			}
		}
		return shortWiden
	}
	if forgotten {
		return shortUnknown
	}
	return shortTruncated
}

// writtenAfter reports whether a batch of a's producer id at (epoch, seq)
// comes after a in that producer's order.
func writtenAfter(epoch int16, seq int32, a ackRec) bool {
	if epoch != a.key.epoch {
		return epoch > a.key.epoch
	}
	d := (int64(seq) - int64(a.key.seq) + (1 << 31)) % (1 << 31)
	return d >= int64(a.records) && d < 1<<30
}
