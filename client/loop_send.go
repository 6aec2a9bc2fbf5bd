package client

import (
	"slices"

	"github.com/rollsafe/rollsafe/idempotence"
)

// Produce requests per broker connection. Kafka reads one request from a
// connection, handles it (an acks=all produce waits in purgatory until the
// followers have the batches) and answers before it reads the next, so a
// request queued on the connection waits for every request before it:
// pipelining more than a few requests adds only latency. The loop keeps a
// broker's batches in its outbox and hands its sender at most MaxInFlight
// requests at a time (Java's max.in.flight.requests.per.connection, kgo's
// and librdkafka's five per broker), each carrying the next batch of every
// partition waiting, so a partition's answer never waits behind a long
// queue of other partitions' requests — a leadership change is answered
// after a few round trips, not after dozens — and batches still in the
// outbox when their partition moves to another leader go there at once.

// maxRequestBytes bounds the batches merged into one produce request (a
// single batch may exceed it and goes alone).
const maxRequestBytes = 16 << 20

// outbox is one broker's batches the machine made ready and the loop has
// not yet handed to the broker's sender, and the requests in flight there.
type outbox struct {
	queue    []outgoing // in the machine's order per partition
	inFlight int        // requests handed to the sender and not yet answered
}

// dispatch queues the machine's Sends in the outboxes of their brokers and
// hands out what the connections can take.
func (l *loop) dispatch(sends []idempotence.Send) {
	if len(sends) == 0 {
		return
	}
	var touched []int32
	for _, snd := range sends {
		bs := l.batches[snd.ID]
		if bs == nil {
			continue
		}
		tp := idempotence.TopicPartition{Topic: bs.b.TP.Topic, Partition: bs.b.TP.Partition}
		bs.b.SetProducer(snd.ProducerID, snd.Epoch, snd.BaseSequence)
		o := outgoing{tp: tp, id: snd.ID, bytes: bs.b.Bytes(), n: bs.b.Records, retry: bs.sent}
		bs.sent = true
		bs.outstanding = true
		ob := l.outbox(snd.Broker)
		ob.queue = append(ob.queue, o)
		if !slices.Contains(touched, snd.Broker) {
			touched = append(touched, snd.Broker)
		}
	}
	for _, b := range touched {
		l.pump(b)
	}
}

func (l *loop) outbox(broker int32) *outbox {
	ob := l.outboxes[broker]
	if ob == nil {
		ob = &outbox{}
		l.outboxes[broker] = ob
	}
	return ob
}

// pump hands broker's sender requests from its outbox while fewer than
// MaxInFlight are in flight there. Each request carries the first waiting
// batch of every partition (Kafka takes one batch per partition per
// request), so each partition's batches go out in order on one pipeline.
func (l *loop) pump(broker int32) {
	ob := l.outboxes[broker]
	if ob == nil || len(ob.queue) == 0 || ob.inFlight >= l.p.cfg.maxInFlight {
		return
	}
	var rounds [][]outgoing
	for ob.inFlight < l.p.cfg.maxInFlight && len(ob.queue) > 0 {
		var round, rest []outgoing
		size := 0
		for _, o := range ob.queue {
			taken := slices.ContainsFunc(round, func(x outgoing) bool { return x.tp == o.tp })
			if taken || (len(round) > 0 && size+len(o.bytes) > maxRequestBytes) {
				rest = append(rest, o)
				continue
			}
			round = append(round, o)
			size += len(o.bytes)
		}
		for _, o := range round {
			if bs := l.batches[o.id]; bs != nil {
				// The partition's next batch, held open while this one
				// waited, may close now.
				l.p.acc.Sent(bs.b)
			}
		}
		ob.queue = rest
		ob.inFlight++
		rounds = append(rounds, round)
	}
	l.sender(broker).push(rounds)
}

// pumpAll pumps every broker with batches waiting.
func (l *loop) pumpAll() {
	for _, b := range l.outboxBrokers() {
		l.pump(b)
	}
}

// outboxBrokers returns the brokers with an outbox, in ascending order
// (one order for the deterministic simulation).
func (l *loop) outboxBrokers() []int32 {
	ids := make([]int32, 0, len(l.outboxes))
	for b := range l.outboxes {
		ids = append(ids, b)
	}
	slices.Sort(ids)
	return ids
}

// requestAnswered records that one of broker's requests in flight was
// answered (or failed) and hands out what waits.
func (l *loop) requestAnswered(broker int32) {
	if ob := l.outboxes[broker]; ob != nil && ob.inFlight > 0 {
		ob.inFlight--
	}
}

// unqueue takes tp's batches out of the outboxes of every broker but
// leader, the partition's leader now, and answers them as never written:
// they are resent to the new leader without waiting behind the old one's
// queue. Batches already handed to a sender stay: they are answered by the
// broker they went to.
func (l *loop) unqueue(tp idempotence.TopicPartition, leader int32) {
	for _, broker := range l.outboxBrokers() {
		ob := l.outboxes[broker]
		if broker == leader || len(ob.queue) == 0 {
			continue
		}
		kept := ob.queue[:0]
		for _, o := range ob.queue {
			if o.tp != tp {
				kept = append(kept, o)
				continue
			}
			if bs := l.batches[o.id]; bs != nil {
				bs.outstanding = false
			}
			l.step(idempotence.Answer{TP: tp, ID: o.id, Response: idempotence.Response{
				Code: idempotence.CodeTransport, Class: idempotence.NotAppended, BaseOffset: -1, LogStartOffset: -1}})
		}
		clear(ob.queue[len(kept):])
		ob.queue = kept
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
