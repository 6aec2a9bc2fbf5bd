package client

import (
	"github.com/rollsafe/rollsafe/idempotence"
)

// dispatch hands the machine's Sends to the senders of their brokers, as
// requests: the k-th request to a broker carries the k-th batch of each of
// its partitions (Kafka takes one batch per partition per request), so each
// partition's batches go out in order on one pipeline.
func (l *loop) dispatch(sends []idempotence.Send) {
	if len(sends) == 0 {
		return
	}
	type key struct {
		broker int32
		tp     idempotence.TopicPartition
	}
	rank := make(map[key]int, len(sends))
	var order []int32
	rounds := make(map[int32][][]outgoing)
	for _, snd := range sends {
		bs := l.batches[snd.ID]
		if bs == nil {
			continue
		}
		tp := idempotence.TopicPartition{Topic: bs.b.TP.Topic, Partition: bs.b.TP.Partition}
		bs.b.SetProducer(snd.ProducerID, snd.Epoch, snd.BaseSequence)
		o := outgoing{tp: tp, id: snd.ID, bytes: bs.b.Bytes(), n: bs.b.Records, retry: bs.sent}
		if !bs.sent {
			// The partition's next batch, held open while this one waited,
			// may close now.
			l.p.acc.Sent(bs.b)
		}
		bs.sent = true
		k := key{snd.Broker, tp}
		r := rank[k]
		rank[k] = r + 1
		rs, seen := rounds[snd.Broker]
		if !seen {
			order = append(order, snd.Broker)
		}
		if r == len(rs) {
			rs = append(rs, nil)
		}
		rs[r] = append(rs[r], o)
		rounds[snd.Broker] = rs
	}
	for _, b := range order {
		l.sender(b).push(rounds[b])
	}
}

// sender returns broker's sender, starting it on first use.
func (l *loop) sender(broker int32) *sender {
	s := l.senders[broker]
	if s == nil {
		s = newSender(l.p, broker)
		l.senders[broker] = s
		l.p.wg.Add(1)
		go func() { defer l.p.wg.Done(); s.run() }()
	}
	return s
}
