package idempotence

import "time"

// Sendable returns the batches of tp to write now, in order, each with the
// header it must carry and the broker it goes to, and marks them in flight.
// The caller must write them in this order on one connection. It returns
// nothing while the partition holds: no identity or leader yet, backing off,
// one batch already in flight after an error or with records stamped long
// ago (Config.ProducerIDExpiration), batches still in flight to a
// previous leader, draining for a tail read or an epoch change, or waiting
// for a Split.
func (pr *Producer) sendable(tp TopicPartition, now time.Time) []Send {
	p := pr.parts[tp]
	if p == nil {
		return nil
	}
	pr.observe(now)
	pr.expire(p, now)
	pr.settle(p)
	if p.stopped != nil || !p.hasID || !p.hasLeader || now.Before(p.retryAt) ||
		!p.state.sendingOK() || // a bump owed also covers a pending Split
		(pr.txn != nil && !pr.txnReleased(tp)) { // added to the transaction first
		return nil
	}
	if p.state == psDraining {
		if p.inFlight > 0 {
			return nil
		}
		p.on(evDrained)
	}
	behind := !pr.hasID || p.pid != pr.pid || p.epoch != pr.epoch
	var out []Send
	numbered := p.numbered()
	// A batch stamped long ago goes alone: a broker that forgot the
	// producer would append a later batch ahead of an earlier one it
	// refused, so neither goes while the other is in flight.
	limit, guard := pr.forgetLimit()
	alone := false
	for _, b := range p.batches {
		alone = alone || (guard && b.st != stAcked && forgettable(b, limit))
		if (p.cautious || alone) && (p.inFlight > 0 || len(out) > 0) {
			break
		}
		switch b.st {
		case stAcked, stInFlight:
			continue
		case stQueued:
			// A fresh number only under the current identity, and only
			// while the broker's dedup window covers every numbered batch.
			if behind || numbered >= pr.cfg.MaxInFlight {
				return out
			}
			p.number(b)
			numbered++
		case stNotAppended, stMaybeAppended:
			if b.reported {
				return out // its bytes are gone; a read or bump settles it first
			}
			// resent unchanged
		default:
			return out
		}
		b.st = stInFlight
		p.inFlight++
		s := Send{TP: p.tp, ID: b.id, ProducerID: b.pid, Epoch: b.epoch, BaseSequence: b.seq, Broker: p.leader, LeaderEpoch: p.leaderEpoch}
		if b.pid < 0 { // not idempotent
			s.ProducerID, s.Epoch, s.BaseSequence = -1, -1, -1
		}
		out = append(out, s)
	}
	return out
}
