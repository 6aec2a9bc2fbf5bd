package client

import (
	"context"
	"errors"
	"maps"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/idempotence"
	"github.com/rollsafe/rollsafe/kafkaerr"
	"github.com/rollsafe/rollsafe/protocol"
)

// The requests of a transactional producer to its transaction coordinator
// (transactions v1: AddPartitionsToTxn names each partition). Each runs on
// a goroutine of its own, in its turn (loop_turns.go), and posts its
// answer to the loop as the machine's input; kafkaerr.Transport stands for
// no answer. The machine has at most one out at a time.

// API keys of the transaction requests.
const (
	keyProduce            = 0
	keyInitProducerID     = 22
	keyAddPartitionsToTxn = 24
	keyEndTxn             = 26
)

// txnProduceVersions caps Produce at v11 for a transactional producer:
// v12 is transactions v2 (KIP-890 part 2, partitions added implicitly),
// which this producer does not speak yet.
func txnProduceVersions(caps map[int16]int16) map[int16]int16 {
	m := maps.Clone(caps)
	if m == nil {
		m = map[int16]int16{}
	}
	if v, ok := m[keyProduce]; !ok || v > 11 {
		m[keyProduce] = 11
	}
	return m
}

// txnPoolConfig is the coordinator connections' configuration:
// AddPartitionsToTxn v1-v3 (v4 batches transactions, for brokers),
// EndTxn up to v4 (v5 returns the epoch of transactions v2), and
// AddOffsetsToTxn and TxnOffsetCommit up to v4: their v4 only lets the
// broker answer TRANSACTION_ABORTABLE (KIP-890 part 1), which kafkaerr
// maps to abortable; TxnOffsetCommit v5 is transactions v2 (it adds the
// group's partition itself, without AddOffsetsToTxn).
func txnPoolConfig(cfg protocol.PoolConfig) protocol.PoolConfig {
	m := maps.Clone(cfg.Conn.MaxVersions)
	if m == nil {
		m = map[int16]int16{}
	}
	m[keyAddPartitionsToTxn] = 3
	m[keyEndTxn] = 4
	m[keyAddOffsetsToTxn] = 4
	m[keyTxnOffsetCommit] = 4
	cfg.Conn.MaxVersions = m
	return cfg
}

// anyConn returns a connection to any broker, learning the brokers first
// if no metadata is known yet.
func (p *Producer) anyConn(ctx context.Context) (*protocol.Conn, error) {
	conn, err := p.readPool.Any(ctx)
	if errors.Is(err, protocol.ErrNoBroker) {
		if rerr := p.meta.Refresh(ctx); rerr != nil {
			return nil, errors.Join(err, rerr)
		}
		conn, err = p.readPool.Any(ctx)
	}
	return conn, err
}

// txnNoEpochBump reports whether the brokers' InitProducerId is before v3
// (Kafka before 2.5): the coordinator cannot give the current producer id
// a fresh epoch (KIP-360).
func (p *Producer) txnNoEpochBump(ctx context.Context) (bool, error) {
	conn, err := p.anyConn(ctx)
	if err != nil {
		return false, err
	}
	r, ok := conn.Versions().Broker(keyInitProducerID)
	return !ok || r.Max < 3, nil
}

// txnRequest runs do on a goroutine of its own in its turn, bounded by
// RequestTimeout, and posts what it returns unless the producer closed.
func (p *Producer) txnRequest(key string, do func(ctx context.Context) idempotence.Input) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		p.turn(turnTxn, key)
		if p.ctx.Err() != nil {
			return
		}
		ctx, cancel := context.WithTimeout(p.ctx, p.cfg.requestTimeout)
		in := do(ctx)
		cancel()
		if p.ctx.Err() == nil {
			p.loop.in.post(in)
		}
	}()
}

// coordRequest sends req (named name) to the coordinator broker in its
// turn (txnRequest) and posts answer's reading of the response, or lost when
// no connection or no answer came. refuse, when not nil, may answer
// instead of sending, from what the connection's broker supports.
func coordRequest[R kmsg.Response](p *Producer, name string, broker int32, req kmsg.Request, lost idempotence.Input,
	refuse func(*protocol.Conn) (idempotence.Input, bool), answer func(R) idempotence.Input) {
	p.txnRequest(name, func(ctx context.Context) idempotence.Input {
		conn, err := p.coordConn(ctx, broker)
		if err != nil {
			return lost
		}
		if refuse != nil {
			if in, ok := refuse(conn); ok {
				return in
			}
		}
		resp, err := conn.Request(ctx, req)
		if err != nil {
			p.log.Debug("rollsafe: "+name+" failed", "err", err)
			return lost
		}
		return answer(resp.(R))
	})
}

// findCoordinator asks any broker for the transaction coordinator.
func (p *Producer) findCoordinator() {
	p.txnRequest("FindCoordinator", func(ctx context.Context) idempotence.Input {
		broker, code, err := p.coordinatorOf(ctx, coordTransaction, p.cfg.txnID)
		if err != nil {
			p.log.Debug("rollsafe: FindCoordinator failed", "err", err)
			return idempotence.CoordinatorFound{Broker: -1, Code: code}
		}
		return idempotence.CoordinatorFound{Broker: broker}
	})
}

// coordTransaction is FindCoordinator's key type of a transactional id.
const coordTransaction = 1

// coordinatorOf asks any broker for the coordinator of key (of type typ):
// the broker, or the code answered (kafkaerr.Transport for no answer)
// and an error.
func (p *Producer) coordinatorOf(ctx context.Context, typ int8, key string) (int32, kafkaerr.Code, error) {
	conn, err := p.anyConn(ctx)
	if err != nil {
		return -1, kafkaerr.Transport, err
	}
	req := kmsg.NewPtrFindCoordinatorRequest()
	req.CoordinatorType = typ
	req.CoordinatorKey = key
	req.CoordinatorKeys = []string{key}
	resp, err := conn.Request(ctx, req)
	if err != nil {
		return -1, kafkaerr.Transport, err
	}
	r := resp.(*kmsg.FindCoordinatorResponse)
	code, node := r.ErrorCode, r.NodeID
	if r.Version >= 4 {
		if len(r.Coordinators) != 1 {
			return -1, kafkaerr.Transport, errors.New("FindCoordinator: no coordinator in the answer")
		}
		code, node = r.Coordinators[0].ErrorCode, r.Coordinators[0].NodeID
	}
	if err := protocol.ErrorForCode(code); err != nil {
		return -1, kafkaerr.Code(code), err
	}
	// The pool dials brokers by the addresses in the metadata: one it
	// does not know yet is learnt by a refresh.
	if _, known := p.meta.Snapshot().Broker(node); !known {
		_ = p.meta.Refresh(ctx)
	}
	return node, kafkaerr.None, nil
}

// coordConn returns the connection to the coordinator broker.
func (p *Producer) coordConn(ctx context.Context, broker int32) (*protocol.Conn, error) {
	return p.txnPool.Conn(ctx, broker)
}

// txnInitProducerID sends InitProducerId with the transactional id.
func (p *Producer) txnInitProducerID(e idempotence.InitProducerIDRequest) {
	req := kmsg.NewPtrInitProducerIDRequest()
	req.TransactionalID = &p.cfg.txnID
	req.TransactionTimeoutMillis = int32(p.cfg.txnTimeout.Milliseconds())
	req.ProducerID, req.ProducerEpoch = e.ProducerID, e.Epoch
	coordRequest(p, "InitProducerId", e.Broker, req, idempotence.InitProducerIDAnswer{Code: kafkaerr.Transport}, nil,
		func(r *kmsg.InitProducerIDResponse) idempotence.Input {
			return idempotence.InitProducerIDAnswer{Code: kafkaerr.Code(r.ErrorCode), ProducerID: r.ProducerID, Epoch: r.ProducerEpoch}
		})
}

// addPartitionsToTxn sends AddPartitionsToTxn (v1-v3) with the partitions.
func (p *Producer) addPartitionsToTxn(e idempotence.AddPartitionsRequest) {
	req := kmsg.NewPtrAddPartitionsToTxnRequest()
	req.TransactionalID = p.cfg.txnID
	req.ProducerID, req.ProducerEpoch = e.ProducerID, e.Epoch
	idx := map[string]int{}
	for _, tp := range e.Partitions {
		i, ok := idx[tp.Topic]
		if !ok {
			i = len(req.Topics)
			idx[tp.Topic] = i
			t := kmsg.NewAddPartitionsToTxnRequestTopic()
			t.Topic = tp.Topic
			req.Topics = append(req.Topics, t)
		}
		req.Topics[i].Partitions = append(req.Topics[i].Partitions, tp.Partition)
	}
	coordRequest(p, "AddPartitionsToTxn", e.Broker, req, idempotence.AddPartitionsAnswer{Code: kafkaerr.Transport}, nil,
		func(r *kmsg.AddPartitionsToTxnResponse) idempotence.Input {
			a := idempotence.AddPartitionsAnswer{Partitions: map[idempotence.TopicPartition]kafkaerr.Code{}}
			if r.Version >= 4 {
				// Not asked for (the version is capped at 3); a
				// top-level code alone says what happened.
				a.Code = kafkaerr.Code(r.ErrorCode)
			}
			for _, t := range r.Topics {
				for _, pt := range t.Partitions {
					a.Partitions[idempotence.TopicPartition{Topic: t.Topic, Partition: pt.Partition}] = kafkaerr.Code(pt.ErrorCode)
				}
			}
			return a
		})
}

// endTxn sends EndTxn.
func (p *Producer) endTxn(e idempotence.EndTxnRequest) {
	req := kmsg.NewPtrEndTxnRequest()
	req.TransactionalID = p.cfg.txnID
	req.ProducerID, req.ProducerEpoch = e.ProducerID, e.Epoch
	req.Commit = e.Commit
	coordRequest(p, "EndTxn", e.Broker, req, idempotence.EndTxnAnswer{Code: kafkaerr.Transport}, nil,
		func(r *kmsg.EndTxnResponse) idempotence.Input {
			return idempotence.EndTxnAnswer{Code: kafkaerr.Code(r.ErrorCode)}
		})
}
