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

// linearQueue is how many batches an outbox may hold before pump tracks
// the partitions a request already carries in a map.
const linearQueue = 32

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
		i, _ := slices.BinarySearch(l.outboxIDs, broker)
		l.outboxIDs = slices.Insert(l.outboxIDs, i, broker)
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
	var seen map[idempotence.TopicPartition]bool
	for ob.inFlight < l.p.cfg.maxInFlight && len(ob.queue) > 0 {
		var round []outgoing
		round, ob.queue, seen = nextRequest(ob.queue, seen)
		for _, o := range round {
			// The partition's next batch, held open while this one
			// waited, may close now.
			if bs := l.batches[o.id]; bs != nil {
				l.p.acc.Sent(bs.b)
			} else if bs := l.pinned[o.id]; bs != nil {
				l.p.acc.Sent(bs.b)
			}
		}
		ob.inFlight++
		rounds = append(rounds, round)
	}
	l.sender(broker).push(rounds)
}

// pumpAll pumps every broker with batches waiting, in ascending order of
// broker id (one order for the deterministic simulation).
func (l *loop) pumpAll() {
	for _, b := range l.outboxIDs {
		l.pump(b)
	}
}

// nextRequest takes the batches of one produce request from queue: the
// first batch of each partition in it, in queue order, up to
// maxRequestBytes (at least one batch; a partition whose first batch does
// not fit sends nothing in this request). rest keeps the others in their
// order. seen is scratch space for long queues, returned for reuse.
func nextRequest(queue []outgoing, seen map[idempotence.TopicPartition]bool) (round, rest []outgoing, _ map[idempotence.TopicPartition]bool) {
	long := len(queue) > linearQueue
	if long {
		if seen == nil {
			seen = make(map[idempotence.TopicPartition]bool, len(queue))
		} else {
			clear(seen)
		}
	}
	size := 0
	for i, o := range queue {
		var has bool
		if long {
			has = seen[o.tp]
			seen[o.tp] = true
		} else {
			// An earlier batch of the partition, taken or held back.
			has = slices.ContainsFunc(queue[:i], func(x outgoing) bool { return x.tp == o.tp })
		}
		if has || (len(round) > 0 && size+len(o.bytes) > maxRequestBytes) {
			rest = append(rest, o)
			continue
		}
		round = append(round, o)
		size += len(o.bytes)
	}
	return round, rest, seen
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
	for _, broker := range l.outboxIDs {
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
