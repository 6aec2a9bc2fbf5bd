package client

import (
	"context"
	"errors"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/idempotence"
	"github.com/rollsafe/rollsafe/protocol"
)

// sender writes the produce requests for the partitions one broker leads,
// pipelined on that broker's connection.
type sender struct {
	p      *Producer
	broker int32

	mu     sync.Mutex
	ready  map[idempotence.TopicPartition]struct{}
	signal chan struct{}
	done   chan struct{}
	once   sync.Once
}

func newSender(p *Producer, broker int32) *sender {
	return &sender{
		p:      p,
		broker: broker,
		ready:  make(map[idempotence.TopicPartition]struct{}),
		signal: make(chan struct{}, 1),
		done:   make(chan struct{}),
	}
}

func (s *sender) stop() { s.once.Do(func() { close(s.done) }) }

// wake marks tp as possibly having something to send.
func (s *sender) wake(tp idempotence.TopicPartition) {
	s.mu.Lock()
	s.ready[tp] = struct{}{}
	s.mu.Unlock()
	select {
	case s.signal <- struct{}{}:
	default:
	}
}

// take returns the partitions marked ready and clears the marks.
func (s *sender) take() []idempotence.TopicPartition {
	s.mu.Lock()
	defer s.mu.Unlock()
	tps := make([]idempotence.TopicPartition, 0, len(s.ready))
	for tp := range s.ready {
		tps = append(tps, tp)
		delete(s.ready, tp)
	}
	return tps
}

// outgoing is one batch in one produce request.
type outgoing struct {
	tp    idempotence.TopicPartition
	id    idempotence.BatchID
	bytes []byte
	n     int
	retry bool
}

func (s *sender) run() {
	p := s.p
	for {
		tps := s.take()
		if len(tps) == 0 {
			select {
			case <-s.done:
				return
			case <-p.ctx.Done():
				return
			case <-s.signal:
			}
			continue
		}
		ctx, cancel := context.WithTimeout(p.ctx, p.cfg.dialTimeout)
		conn, err := p.pool.Conn(ctx, s.broker)
		cancel()
		if err != nil {
			if p.ctx.Err() != nil {
				return
			}
			if errors.Is(err, ErrAuthentication) {
				// The broker refused our credentials: retrying cannot help.
				// Fail what may be sent now (never written) and let the
				// rest meet the same answer.
				p.log.Error("rollsafe: broker refused authentication", "broker", s.broker, "err", err)
				s.refuse(tps)
				select {
				case <-s.done:
					return
				case <-p.ctx.Done():
					return
				case <-time.After(time.Second):
				}
				continue
			}
			p.log.Debug("rollsafe: cannot reach broker", "broker", s.broker, "err", err)
			// The partitions stay with this sender until metadata moves
			// them; try again after the refresh or a pause.
			p.kickMetadata()
			select {
			case <-s.done:
				return
			case <-p.ctx.Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
			s.mu.Lock()
			for _, tp := range tps {
				s.ready[tp] = struct{}{}
			}
			s.mu.Unlock()
			continue
		}
		for _, round := range s.collect(tps) {
			s.send(conn, round)
		}
	}
}

// collect asks the idempotence machine what each partition may send now
// and groups the batches into requests: the k-th request carries the k-th
// batch of every partition (Kafka takes one batch per partition per
// request), so each partition's batches go out in order on one pipeline.
func (s *sender) collect(tps []idempotence.TopicPartition) [][]outgoing {
	p := s.p
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	var rounds [][]outgoing
	for _, tp := range tps {
		pt := p.parts[tp]
		if pt == nil || pt.leader != s.broker {
			continue
		}
		for k, snd := range p.idem.Sendable(tp, now) {
			bs := p.batches[snd.ID]
			if bs == nil {
				continue
			}
			bs.b.SetProducer(snd.ProducerID, snd.Epoch, snd.BaseSequence)
			o := outgoing{tp: tp, id: snd.ID, bytes: bs.b.Bytes(), n: bs.b.Records, retry: bs.sent}
			bs.sent = true
			if k == len(rounds) {
				rounds = append(rounds, nil)
			}
			rounds[k] = append(rounds[k], o)
		}
	}
	p.processEventsLocked()
	return rounds
}

// send writes one produce request; its response (or failure) comes back
// through respond.
func (s *sender) send(conn *protocol.Conn, round []outgoing) {
	p := s.p
	req := kmsg.NewPtrProduceRequest()
	req.Acks = p.cfg.acks
	req.TimeoutMillis = int32(p.cfg.requestTimeout / time.Millisecond)
	var topicIdx map[string]int // only for requests of many topics
	for _, o := range round {
		i := requestTopic(req, topicIdx, o.tp.Topic)
		if i < 0 {
			i = len(req.Topics)
			t := kmsg.NewProduceRequestTopic()
			t.Topic = o.tp.Topic
			req.Topics = append(req.Topics, t)
			if topicIdx != nil {
				topicIdx[o.tp.Topic] = i
			} else if len(req.Topics) > linearTopics {
				topicIdx = make(map[string]int, 2*len(req.Topics))
				for j := range req.Topics {
					topicIdx[req.Topics[j].Topic] = j
				}
			}
		}
		pr := kmsg.NewProduceRequestTopicPartition()
		pr.Partition = o.tp.Partition
		pr.Records = o.bytes
		req.Topics[i].Partitions = append(req.Topics[i].Partitions, pr)
		p.hooks.BatchSent(o.tp.Topic, o.tp.Partition, s.broker, o.n, len(o.bytes), o.retry)
	}
	start := time.Now()
	err := conn.Send(p.ctx, req, func(resp kmsg.Response, err error) {
		p.hooks.RequestLatency(s.broker, time.Since(start))
		s.respond(round, resp, err)
	})
	if err != nil {
		s.respond(round, nil, err)
	}
}

// linearTopics is how many topics a request's topic list is searched
// linearly for before send indexes it with a map.
const linearTopics = 8

// requestTopic returns the index of topic in req.Topics, or -1.
func requestTopic(req *kmsg.ProduceRequest, idx map[string]int, topic string) int {
	if idx != nil {
		if i, ok := idx[topic]; ok {
			return i
		}
		return -1
	}
	for i := len(req.Topics) - 1; i >= 0; i-- {
		if req.Topics[i].Topic == topic {
			return i
		}
	}
	return -1
}

// refuse fails every batch the partitions may send now as refused by the
// broker's authentication (never written).
func (s *sender) refuse(tps []idempotence.TopicPartition) {
	p := s.p
	now := time.Now()
	for _, round := range s.collect(tps) {
		p.mu.Lock()
		for _, o := range round {
			p.idem.Response(o.tp, o.id, idempotence.Response{Code: codeSaslAuthenticationFailed, Class: idempotence.NotAppendedFatal, BaseOffset: -1, LogStartOffset: -1}, now)
		}
		p.processEventsLocked()
		p.mu.Unlock()
	}
}

// transportClass says what a failed request means for its batches.
func transportClass(err error) idempotence.Class {
	if errors.Is(err, protocol.ErrNotWritten) {
		return idempotence.NotAppended
	}
	return idempotence.MaybeAppended
}

// respond feeds a produce response (or the request's failure) to the
// idempotence machine, batch by batch.
func (s *sender) respond(round []outgoing, resp kmsg.Response, err error) {
	p := s.p
	now := time.Now()
	var pr *kmsg.ProduceResponse
	if err == nil && resp != nil {
		pr, _ = resp.(*kmsg.ProduceResponse)
	}
	var got responseIndex
	got.init(pr)
	p.mu.Lock()
	defer p.mu.Unlock()
	kick := false
	var hints []leaderHint
	for _, o := range round {
		var r idempotence.Response
		switch {
		case err != nil:
			r = idempotence.Response{Code: -1, Class: transportClass(err), BaseOffset: -1, LogStartOffset: -1}
			kick = true
		case p.cfg.acks == AcksNone:
			r = idempotence.Response{Code: 0, Class: idempotence.Appended, BaseOffset: -1, LogStartOffset: -1}
		default:
			part := got.find(o.tp.Topic, o.tp.Partition)
			if part == nil {
				// The broker answered without this partition: treat as unknown.
				r = idempotence.Response{Code: -1, Class: idempotence.MaybeAppended, BaseOffset: -1, LogStartOffset: -1}
				break
			}
			r = idempotence.Response{Code: part.ErrorCode, Class: p.classOf(part.ErrorCode), BaseOffset: part.BaseOffset, LogStartOffset: part.LogStartOffset}
			if part.ErrorCode != 0 {
				kick = true
				if l := part.CurrentLeader; l.LeaderID >= 0 && l.LeaderEpoch >= 0 {
					p.meta.ApplyLeaderHint(o.tp.Topic, o.tp.Partition, l.LeaderID, l.LeaderEpoch, endpoint(pr, l.LeaderID))
					hints = append(hints, leaderHint{o.tp, l.LeaderID, l.LeaderEpoch})
				}
			}
		}
		p.idem.Response(o.tp, o.id, r, now)
		p.wakeLocked(o.tp)
	}
	p.processEventsLocked()
	// KIP-951: the broker named the partition's current leader. Move the
	// partition there now instead of waiting for a metadata round trip.
	for _, h := range hints {
		if pt := p.parts[h.tp]; pt != nil {
			if _, known := p.meta.Broker(h.leader); known {
				p.setLeaderLocked(pt, h.leader, h.epoch)
			}
		}
	}
	if len(hints) > 0 {
		p.processEventsLocked()
	}
	if kick {
		p.kickMetadata()
	}
}

// leaderHint is a partition's current leader as a produce response (v10+)
// reported it.
type leaderHint struct {
	tp     idempotence.TopicPartition
	leader int32
	epoch  int32
}

// endpoint returns the address a KIP-951 produce response gives for a
// broker, or "" if it gives none.
func endpoint(pr *kmsg.ProduceResponse, id int32) string {
	for _, b := range pr.Brokers {
		if b.NodeID == id {
			return net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port)))
		}
	}
	return ""
}

// classOf maps a Kafka error code on a produce response to what it means
// for the batch. Codes such as NOT_LEADER_OR_FOLLOWER can come after the
// old leader appended (acks=all, leadership moved while waiting for
// replication), so they count as maybe appended: retried unchanged, never
// reported as not written.
func (p *Producer) classOf(code int16) idempotence.Class {
	_, retriable, _ := protocol.CodeInfo(code)
	switch protocol.ProduceOutcome(code, p.cfg.acks) {
	case protocol.OutcomeAppended:
		return idempotence.Appended
	case protocol.OutcomeMaybeAppended:
		return idempotence.MaybeAppended
	case protocol.OutcomeNotAppended:
		if retriable {
			return idempotence.NotAppended
		}
		return idempotence.NotAppendedFatal
	}
	return idempotence.MaybeAppended
}

// responseIndex finds a partition's answer in a produce response. Brokers
// answer in request order, so the next position is tried first and a full
// search (through a map, for large responses) is the fallback: no
// allocation for the usual response.
type responseIndex struct {
	pr     *kmsg.ProduceResponse
	ti, pi int // where the next partition's answer is expected
	byKey  map[respKey]*kmsg.ProduceResponseTopicPartition
}

type respKey struct {
	topic string
	part  int32
}

// linearResponse is how many partitions a response may hold before
// lookups out of order go through a map.
const linearResponse = 16

func (x *responseIndex) init(pr *kmsg.ProduceResponse) { *x = responseIndex{pr: pr} }

// find returns the answer for topic's partition, or nil if the response
// has none (or there is no response).
func (x *responseIndex) find(topic string, part int32) *kmsg.ProduceResponseTopicPartition {
	pr := x.pr
	if pr == nil {
		return nil
	}
	// Expected position: the current topic's next partition, or the next
	// topic's first.
	for x.ti < len(pr.Topics) {
		t := &pr.Topics[x.ti]
		if x.pi < len(t.Partitions) {
			if t.Topic == topic && t.Partitions[x.pi].Partition == part {
				x.pi++
				return &t.Partitions[x.pi-1]
			}
			break
		}
		x.ti, x.pi = x.ti+1, 0
	}
	return x.search(topic, part)
}

func (x *responseIndex) search(topic string, part int32) *kmsg.ProduceResponseTopicPartition {
	pr := x.pr
	if x.byKey == nil {
		n := 0
		for i := range pr.Topics {
			n += len(pr.Topics[i].Partitions)
		}
		if n <= linearResponse {
			for i := range pr.Topics {
				t := &pr.Topics[i]
				if t.Topic != topic {
					continue
				}
				for j := range t.Partitions {
					if t.Partitions[j].Partition == part {
						return &t.Partitions[j]
					}
				}
			}
			return nil
		}
		x.byKey = make(map[respKey]*kmsg.ProduceResponseTopicPartition, n)
		for i := range pr.Topics {
			t := &pr.Topics[i]
			for j := range t.Partitions {
				x.byKey[respKey{t.Topic, t.Partitions[j].Partition}] = &t.Partitions[j]
			}
		}
	}
	return x.byKey[respKey{topic, part}]
}
