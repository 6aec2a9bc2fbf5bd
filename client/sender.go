package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/idempotence"
	"github.com/rollsafe/rollsafe/kafkaerr"
	"github.com/rollsafe/rollsafe/protocol"
)

// sender writes the produce requests for the partitions one broker leads
// (those of one lane, with ProduceConnections), pipelined on that
// connection. The loop hands it rounds of
// batches already numbered; it writes them in order and posts every answer
// back to the loop, with what it says of the broker (a timeout, leaders
// the broker named). It never touches the idempotence machine, nor the
// loop's view of the cluster.
type sender struct {
	p      *Producer
	route  route
	broker int32

	mu     sync.Mutex
	rounds []queued
	// fence counts this sender's failures on the way (the broker
	// unreachable, a connection lost): see queued.seen.
	fence uint64
	// last is the connection the sender last took to write on (only
	// its goroutine touches it): see connect.
	last   *protocol.Conn
	signal chan struct{}
	done   chan struct{}
	once   sync.Once
}

func newSender(p *Producer, r route) *sender {
	return &sender{
		p:      p,
		route:  r,
		broker: r.broker,
		signal: make(chan struct{}, 1),
		done:   make(chan struct{}),
	}
}

func (s *sender) stop() { s.once.Do(func() { close(s.done) }) }

// push queues rounds to write, in order; seen is how many of the sender's
// failures the machine had had when the loop built them.
func (s *sender) push(rounds [][]outgoing, seen uint64) {
	s.mu.Lock()
	for _, r := range rounds {
		s.rounds = append(s.rounds, queued{r, seen})
	}
	s.mu.Unlock()
	select {
	case s.signal <- struct{}{}:
	default:
	}
}

func (s *sender) takeRounds() []queued {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.rounds
	s.rounds = nil
	return r
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
		queue := s.takeRounds()
		if len(queue) == 0 {
			select {
			case <-s.done:
				return
			case <-p.ctx.Done():
				return
			case <-s.signal:
			}
			continue
		}
		var conn *protocol.Conn
		for i, q := range queue {
			if s.stale(q) { // an earlier request failed while this one waited
				s.behind(q)
				continue
			}
			if conn == nil {
				var err error
				if conn, err = s.connect(); err != nil {
					if p.ctx.Err() != nil {
						return
					}
					s.unsent(queue[i:], err)
					break
				}
				// The dial may have replaced a connection that failed
				// since the check above; connect returns once the old
				// one has failed every request it carried, so the fence
				// now counts its failures. Checked again before the
				// first write on the connection.
				if s.stale(q) {
					s.behind(q)
					continue
				}
			}
			s.send(conn, q.round)
		}
	}
}

// dial returns the route's connection, dialling it if needed. It takes no
// turn (loop_turns.go): the sender is the only user of its route's
// connection but for InitProducerId, whose turn comes after the senders
// the loop woke have written.
func (s *sender) dial() (*protocol.Conn, error) {
	p := s.p
	ctx, cancel := context.WithTimeout(p.ctx, p.cfg.dialTimeout)
	defer cancel()
	return p.pools[s.route.lane].Conn(ctx, s.broker)
}

// errBehindFailure: a request was not written because one the sender
// wrote or tried before it failed after the loop built it.
var errBehindFailure = errors.New("not written: an earlier request on its connection failed first")

// neverWritten answers a batch that never left: retried by the machine
// after its backoff.
var neverWritten = idempotence.Response{Code: kafkaerr.Transport, Class: idempotence.NotAppended, BaseOffset: -1, LogStartOffset: -1}

// answerAll answers every batch of round with r and err; failure marks
// the last answer of one of the sender's failures (answersIn).
func (s *sender) answerAll(round []outgoing, r idempotence.Response, err error, failure bool) {
	resps := make([]idempotence.Response, len(round))
	errs := make([]error, len(round))
	for i := range resps {
		resps[i], errs[i] = r, err
	}
	s.p.loop.in.post(answersIn{route: s.route, round: round, resps: resps, errs: errs, failure: failure})
}

// unsent answers the requests of queue, which could not be written
// because the broker could not be reached: never written. Refused
// credentials are final (SASL authentication failed); anything else is
// retried by the machine after its backoff and a metadata refresh.
func (s *sender) unsent(queue []queued, err error) {
	p := s.p
	s.failed()
	r := neverWritten
	if errors.Is(err, ErrAuthentication) {
		p.log.Error("rollsafe: broker refused authentication", "broker", s.broker, "err", err)
		r = idempotence.Response{Code: kafkaerr.SaslAuthenticationFailed, Class: idempotence.NotAppendedFatal, BaseOffset: -1, LogStartOffset: -1}
	} else {
		p.log.Debug("rollsafe: cannot reach broker", "broker", s.broker, "err", err)
		p.kickMetadata()
	}
	failed := fmt.Errorf("connect to broker %d: %w", s.broker, err)
	for i, q := range queue {
		s.answerAll(q.round, r, failed, i == len(queue)-1)
	}
}

// send writes one produce request; its response (or failure) comes back
// through respond.
func (s *sender) send(conn *protocol.Conn, round []outgoing) {
	p := s.p
	req := kmsg.NewPtrProduceRequest()
	req.Acks = p.cfg.acks
	if p.cfg.txnID != "" {
		req.TransactionID = &p.cfg.txnID
	}
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

// transportClass says what a failed request means for its batches.
func transportClass(err error) idempotence.Class {
	if errors.Is(err, protocol.ErrNotWritten) {
		return idempotence.NotAppended
	}
	return idempotence.MaybeAppended
}

// respond turns a produce response (or the request's failure) into one
// answer per batch and posts them to the loop. It runs on the connection's
// reader goroutine, and only reads: what the response says of the broker
// and its partitions' leaders goes to the loop with the answers.
func (s *sender) respond(round []outgoing, resp kmsg.Response, err error) {
	p := s.p
	var pr *kmsg.ProduceResponse
	if err == nil && resp != nil {
		pr, _ = resp.(*kmsg.ProduceResponse)
	}
	if pr != nil && pr.ThrottleMillis > 0 {
		p.hooks.BrokerThrottle(s.broker, time.Duration(pr.ThrottleMillis)*time.Millisecond)
	}
	heard := livenessUnknown
	switch {
	case errors.Is(err, protocol.ErrResponseTimeout):
		heard = brokerTimedOut
	case err == nil:
		heard = brokerAnswered
	}
	var got responseIndex
	got.init(pr)
	kick := false
	var hints []leaderHint
	var errs []error // allocated at the first failed attempt
	var lost error   // the request's failure, one error for all its batches
	if err != nil {
		lost = fmt.Errorf("produce to broker %d: %w", s.broker, err)
	}
	failed := func(i int, err error) {
		if errs == nil {
			errs = make([]error, len(round))
		}
		errs[i] = err
	}
	resps := make([]idempotence.Response, len(round))
	for i, o := range round {
		var r idempotence.Response
		switch {
		case err != nil:
			r = idempotence.Response{Code: kafkaerr.Transport, Class: transportClass(err), BaseOffset: -1, LogStartOffset: -1}
			failed(i, lost)
			kick = true
		case p.cfg.acks == AcksNone:
			r = idempotence.Response{Code: kafkaerr.None, Class: idempotence.Appended, BaseOffset: -1, LogStartOffset: -1}
		default:
			part := got.find(o.tp.Topic, o.tp.Partition)
			if part == nil {
				// The broker answered without this partition: treat as unknown.
				r = idempotence.Response{Code: kafkaerr.Transport, Class: idempotence.MaybeAppended, BaseOffset: -1, LogStartOffset: -1}
				failed(i, fmt.Errorf("broker %d answered without %s[%d]", s.broker, o.tp.Topic, o.tp.Partition))
				break
			}
			r = idempotence.Response{Code: kafkaerr.Code(part.ErrorCode), BaseOffset: part.BaseOffset, LogStartOffset: part.LogStartOffset}
			if part.ErrorCode != 0 {
				failed(i, protocol.PartitionError(part.ErrorCode, o.tp.Topic, o.tp.Partition, brokerMessage(part.ErrorMessage)))
				kick = true
				if l := part.CurrentLeader; l.LeaderID >= 0 && l.LeaderEpoch >= 0 {
					// KIP-951: the broker named the partition's current leader.
					hints = append(hints, leaderHint{o.tp, l.LeaderID, l.LeaderEpoch, endpoint(pr, l.LeaderID)})
				}
			}
		}
		resps[i] = r
	}
	if err != nil {
		s.failed()
	}
	p.loop.in.post(answersIn{route: s.route, round: round, resps: resps, hints: hints, errs: errs, failure: err != nil, heard: heard})
	if kick {
		p.kickMetadata()
	}
}

// leaderHint is a partition's current leader as a produce response (v10+)
// reported it; the loop applies it (loop.applyHints).
type leaderHint struct {
	tp     idempotence.TopicPartition
	leader int32
	epoch  int32
	addr   string // the leader's endpoint in the response, "" if none
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

// brokerMessage is a response's optional error message, "" when absent.
func brokerMessage(m *string) string {
	if m == nil {
		return ""
	}
	return *m
}
