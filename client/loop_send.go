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

// route is one produce connection: a broker and one of its lanes. With
// ProduceConnections(n) the loop keeps n connections to every broker and a
// partition keeps to one of them (laneOf), so its batches stay in order on
// one pipeline while the broker, which reads each connection one request
// at a time, handles the lanes' requests side by side.
type route struct {
	broker int32
	lane   int32
}

func compareRoute(a, b route) int {
	if a.broker != b.broker {
		return int(a.broker) - int(b.broker)
	}
	return int(a.lane) - int(b.lane)
}

// laneKey is a partition at one broker.
type laneKey struct {
	broker int32
	tp     idempotence.TopicPartition
}

// laneOf is the lane tp uses at broker: given the first time tp goes there
// (the lane with fewest of the broker's partitions, lowest first) and kept
// for good, so that a partition's batches at a broker never go out on two
// connections. Balancing per broker matters: Kafka places leaders round
// robin, so a fixed function of the partition number (p mod n) would put
// all of a broker's partitions on one lane whenever n shares a factor with
// the number of brokers.
func (l *loop) laneOf(broker int32, tp idempotence.TopicPartition) int32 {
	n := l.p.cfg.connections
	if n <= 1 {
		return 0
	}
	k := laneKey{broker, tp}
	if lane, ok := l.lanes[k]; ok {
		return lane
	}
	load := l.laneLoad[broker]
	if load == nil {
		load = make([]int, n)
		l.laneLoad[broker] = load
	}
	lane := int32(0)
	for i := range load {
		if load[i] < load[lane] {
			lane = int32(i)
		}
	}
	load[lane]++
	l.lanes[k] = lane
	return lane
}

// outbox is one route's batches the machine made ready and the loop has
// not yet handed to the route's sender, and the requests in flight there.
type outbox struct {
	queue    []outgoing // in the machine's order per partition
	inFlight int        // requests handed to the sender and not yet answered
	heard    uint64     // the sender's failures whose answers the machine has had
}

// dispatch queues the machine's Sends in the outboxes of their brokers and
// hands out what the connections can take.
func (l *loop) dispatch(sends []idempotence.Send) {
	if len(sends) == 0 {
		return
	}
	var touched []route
	for _, snd := range sends {
		bs := l.batches[snd.ID]
		if bs == nil {
			// Finished in the same Ready, before its Send was acted on
			// (Purge of what is in flight reports a batch whose Send it
			// has just emitted): it never leaves, and the machine, which
			// waits for every Send's answer, hears so.
			l.later = append(l.later, idempotence.Answer{TP: snd.TP, ID: snd.ID, Response: neverWritten})
			continue
		}
		tp := idempotence.TopicPartition{Topic: bs.b.TP.Topic, Partition: bs.b.TP.Partition}
		bs.b.SetProducer(snd.ProducerID, snd.Epoch, snd.BaseSequence)
		o := outgoing{tp: tp, id: snd.ID, bytes: bs.b.Bytes(), n: bs.b.Records, retry: bs.sent}
		bs.sent = true
		bs.outstanding = true
		r := route{broker: snd.Broker, lane: l.laneOf(snd.Broker, tp)}
		ob := l.outbox(r)
		ob.queue = append(ob.queue, o)
		if !slices.Contains(touched, r) {
			touched = append(touched, r)
		}
	}
	for _, r := range touched {
		l.pump(r)
	}
}

func (l *loop) outbox(r route) *outbox {
	ob := l.outboxes[r]
	if ob == nil {
		ob = &outbox{}
		l.outboxes[r] = ob
		i, _ := slices.BinarySearchFunc(l.outboxIDs, r, compareRoute)
		l.outboxIDs = slices.Insert(l.outboxIDs, i, r)
	}
	return ob
}

// pump hands r's sender requests from its outbox while fewer than
// MaxInFlight are in flight there. Each request carries the first waiting
// batch of every partition (Kafka takes one batch per partition per
// request), so each partition's batches go out in order on one pipeline.
func (l *loop) pump(r route) {
	ob := l.outboxes[r]
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
	l.sender(r).push(rounds, ob.heard)
}

// pumpAll pumps every route with batches waiting, in ascending order of
// broker id and lane (one order for the deterministic simulation).
func (l *loop) pumpAll() {
	for _, r := range l.outboxIDs {
		l.pump(r)
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

// requestAnswered records that one of r's requests in flight was
// answered (or failed) and hands out what waits.
func (l *loop) requestAnswered(r route) {
	if ob := l.outboxes[r]; ob != nil && ob.inFlight > 0 {
		ob.inFlight--
	}
}

// failureHeard records that the machine has had every answer of one more
// of r's sender's failures.
func (l *loop) failureHeard(r route) {
	if ob := l.outboxes[r]; ob != nil {
		ob.heard++
	}
}

// unqueue takes tp's batches out of the outboxes of every broker but
// leader, the partition's leader now, and answers them as never written:
// they are resent to the new leader without waiting behind the old one's
// queue. Batches already handed to a sender stay: they are answered by the
// broker they went to. The answer ends the attempt as a sender's would
// (answered): a batch already reported (pinned) is released.
func (l *loop) unqueue(tp idempotence.TopicPartition, leader int32) {
	for _, r := range l.outboxIDs {
		ob := l.outboxes[r]
		if r.broker == leader || len(ob.queue) == 0 {
			continue
		}
		kept := ob.queue[:0]
		for _, o := range ob.queue {
			if o.tp != tp {
				kept = append(kept, o)
				continue
			}
			l.answered(o.id)
			l.step(idempotence.Answer{TP: tp, ID: o.id, Response: neverWritten})
		}
		clear(ob.queue[len(kept):])
		ob.queue = kept
	}
}

// sender returns r's sender, starting it on first use.
func (l *loop) sender(r route) *sender {
	s := l.senders[r]
	if s == nil {
		s = newSender(l.p, r)
		l.senders[r] = s
		l.p.wg.Add(1)
		go func() { defer l.p.wg.Done(); s.run() }()
	}
	return s
}
