package kafkacheck

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/kafkaerr"
	"github.com/rollsafe/rollsafe/protocol"
)

// DialFunc connects to broker id, capping the version of each API key in
// caps (protocol.ConnConfig.MaxVersions).
type DialFunc func(ctx context.Context, id int32, caps map[int16]int16) (*protocol.Conn, error)

// Version caps of Transactions: "v1" is a transactions v1 client of
// Kafka 3.x (Produce v11, InitProducerId v4, AddPartitionsToTxn v3,
// AddOffsetsToTxn v3, EndTxn v4, TxnOffsetCommit v3); "old" the oldest
// versions, before PRODUCER_FENCED and TRANSACTION_ABORTABLE (Produce v9,
// InitProducerId v3, AddPartitionsToTxn, AddOffsetsToTxn and EndTxn v1).
var (
	capsV1  = map[int16]int16{0: 11, 22: 4, 24: 3, 25: 3, 26: 4, 28: 3}
	capsOld = map[int16]int16{0: 9, 22: 3, 24: 1, 25: 1, 26: 1, 28: 3}
)

// txnSession is one transactional id's producer, speaking raw requests to
// its coordinator and the partitions' leaders.
type txnSession struct {
	dial    DialFunc
	id      string
	topic   string
	coord   int32
	leaders []int32
	pid     int64
	epoch   int16
	seq     map[int32]int32
	conns   map[string]*protocol.Conn
	timeout int32           // transaction.timeout.ms asked
	caps    map[int16]int16 // the versions when not old (nil: capsV1)
}

// conn is a connection to broker id with caps, dialed once.
func (s *txnSession) conn(ctx context.Context, id int32, old bool) (*protocol.Conn, error) {
	key := fmt.Sprintf("%d/%v", id, old)
	if c := s.conns[key]; c != nil {
		return c, nil
	}
	caps := capsV1
	if s.caps != nil {
		caps = s.caps
	}
	if old {
		caps = capsOld
	}
	c, err := s.dial(ctx, id, caps)
	if err != nil {
		return nil, err
	}
	s.conns[key] = c
	return c, nil
}

func (s *txnSession) close() {
	for _, c := range s.conns {
		c.Close()
	}
}

// code is a response's error code as kafkaerr's.
func code(c int16) kafkaerr.Code { return kafkaerr.Code(c) }

// findCoordinator asks broker at for the transactional id's coordinator,
// waiting out the retriable answers of a cluster creating
// __transaction_state.
func (s *txnSession) findCoordinator(ctx context.Context, at int32) error {
	conn, err := s.conn(ctx, at, false)
	if err != nil {
		return err
	}
	_, err = retriable(ctx, func() (int64, error) {
		req := kmsg.NewPtrFindCoordinatorRequest()
		req.CoordinatorType, req.CoordinatorKey, req.CoordinatorKeys = 1, s.id, []string{s.id}
		resp, err := conn.Request(ctx, req)
		if err != nil {
			return 0, err
		}
		r := resp.(*kmsg.FindCoordinatorResponse)
		node, c := r.NodeID, r.ErrorCode
		if r.Version >= 4 && len(r.Coordinators) == 1 {
			node, c = r.Coordinators[0].NodeID, r.Coordinators[0].ErrorCode
		}
		s.coord = node
		return 0, protocol.ErrorForCode(c)
	})
	return err
}

// initAt sends InitProducerId (naming the producer when named) and keeps
// the producer answered.
func (s *txnSession) initAt(ctx context.Context, old, named bool) (kafkaerr.Code, error) {
	conn, err := s.conn(ctx, s.coord, old)
	if err != nil {
		return 0, err
	}
	req := kmsg.NewPtrInitProducerIDRequest()
	req.TransactionalID = kmsg.StringPtr(s.id)
	req.TransactionTimeoutMillis = s.timeout
	if named {
		req.ProducerID, req.ProducerEpoch = s.pid, s.epoch
	}
	resp, err := conn.Request(ctx, req)
	if err != nil {
		return 0, fmt.Errorf("InitProducerId: %w", err)
	}
	r := resp.(*kmsg.InitProducerIDResponse)
	if r.ErrorCode == 0 {
		if r.ProducerID != s.pid || r.ProducerEpoch != s.epoch {
			s.seq = map[int32]int32{}
		}
		s.pid, s.epoch = r.ProducerID, r.ProducerEpoch
	}
	return code(r.ErrorCode), nil
}

// settle repeats f while it answers what a coordinator still loading or
// still completing a transaction answers (COORDINATOR_LOAD_IN_PROGRESS,
// CONCURRENT_TRANSACTIONS), as clients retry them.
func settle(ctx context.Context, f func() (kafkaerr.Code, error)) (kafkaerr.Code, error) {
	for {
		c, err := f()
		if err != nil || (c != kafkaerr.ConcurrentTransactions && c != kafkaerr.CoordinatorLoadInProgress) {
			return c, err
		}
		select {
		case <-ctx.Done():
			return c, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (s *txnSession) addAt(ctx context.Context, old bool, ps ...int32) (kafkaerr.Code, error) {
	conn, err := s.conn(ctx, s.coord, old)
	if err != nil {
		return 0, err
	}
	req := kmsg.NewPtrAddPartitionsToTxnRequest()
	req.TransactionalID, req.ProducerID, req.ProducerEpoch = s.id, s.pid, s.epoch
	rt := kmsg.NewAddPartitionsToTxnRequestTopic()
	rt.Topic, rt.Partitions = s.topic, ps
	req.Topics = append(req.Topics, rt)
	resp, err := conn.Request(ctx, req)
	if err != nil {
		return 0, fmt.Errorf("AddPartitionsToTxn: %w", err)
	}
	r := resp.(*kmsg.AddPartitionsToTxnResponse)
	if len(r.Topics) != 1 || len(r.Topics[0].Partitions) != len(ps) {
		return 0, fmt.Errorf("AddPartitionsToTxn: %d topics answered", len(r.Topics))
	}
	return code(r.Topics[0].Partitions[0].ErrorCode), nil
}

func (s *txnSession) endAt(ctx context.Context, at int32, old, commit bool) (kafkaerr.Code, error) {
	conn, err := s.conn(ctx, at, old)
	if err != nil {
		return 0, err
	}
	req := kmsg.NewPtrEndTxnRequest()
	req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Commit = s.id, s.pid, s.epoch, commit
	resp, err := conn.Request(ctx, req)
	if err != nil {
		return 0, fmt.Errorf("EndTxn: %w", err)
	}
	return code(resp.(*kmsg.EndTxnResponse).ErrorCode), nil
}

// produceAt writes n records to partition p (transactional or not),
// continuing the producer's sequence there when taken; it returns the
// code and base offset.
func (s *txnSession) produceAt(ctx context.Context, old bool, p int32, n int, txn bool) (kafkaerr.Code, int64, error) {
	conn, err := s.conn(ctx, s.leaders[p], old)
	if err != nil {
		return 0, -1, err
	}
	var attrs int16
	if txn {
		attrs = 0x10
	}
	vals := make([]string, n)
	for i := range vals {
		vals[i] = fmt.Sprintf("%s-%d-%d", s.id, p, int(s.seq[p])+i)
	}
	req := produceRequest(s.topic, p, producerBatch(recordsOf(vals...), int32(n), attrs, s.pid, s.epoch, s.seq[p]), -1)
	req.TransactionID = kmsg.StringPtr(s.id)
	resp, err := conn.Request(ctx, req)
	if err != nil {
		return 0, -1, fmt.Errorf("Produce: %w", err)
	}
	rp := resp.(*kmsg.ProduceResponse).Topics[0].Partitions[0]
	if rp.ErrorCode == 0 {
		s.seq[p] += int32(n)
	}
	return code(rp.ErrorCode), rp.BaseOffset, nil
}

func (s *txnSession) addOffsets(ctx context.Context, group string) (kafkaerr.Code, error) {
	conn, err := s.conn(ctx, s.coord, false)
	if err != nil {
		return 0, err
	}
	req := kmsg.NewPtrAddOffsetsToTxnRequest()
	req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Group = s.id, s.pid, s.epoch, group
	resp, err := conn.Request(ctx, req)
	if err != nil {
		return 0, fmt.Errorf("AddOffsetsToTxn: %w", err)
	}
	return code(resp.(*kmsg.AddOffsetsToTxnResponse).ErrorCode), nil
}

// commitOffset is TxnOffsetCommit of offset for partition 0 of the topic
// in group, at the group's coordinator gc.
func (s *txnSession) commitOffset(ctx context.Context, gc int32, group string, offset int64) (kafkaerr.Code, error) {
	conn, err := s.conn(ctx, gc, false)
	if err != nil {
		return 0, err
	}
	req := kmsg.NewPtrTxnOffsetCommitRequest()
	req.TransactionalID, req.Group, req.ProducerID, req.ProducerEpoch = s.id, group, s.pid, s.epoch
	rt := kmsg.NewTxnOffsetCommitRequestTopic()
	rt.Topic = s.topic
	rp := kmsg.NewTxnOffsetCommitRequestTopicPartition()
	rp.Offset = offset
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	resp, err := conn.Request(ctx, req)
	if err != nil {
		return 0, fmt.Errorf("TxnOffsetCommit: %w", err)
	}
	r := resp.(*kmsg.TxnOffsetCommitResponse)
	if len(r.Topics) != 1 || len(r.Topics[0].Partitions) != 1 {
		return 0, errors.New("TxnOffsetCommit: not one partition answered")
	}
	return code(r.Topics[0].Partitions[0].ErrorCode), nil
}

// groupCoordinator finds group's coordinator (FindCoordinator GROUP).
func (s *txnSession) groupCoordinator(ctx context.Context, group string) (int32, error) {
	conn, err := s.conn(ctx, s.coord, false)
	if err != nil {
		return -1, err
	}
	node, err := retriable(ctx, func() (int64, error) {
		req := kmsg.NewPtrFindCoordinatorRequest()
		req.CoordinatorKey, req.CoordinatorKeys = group, []string{group}
		resp, err := conn.Request(ctx, req)
		if err != nil {
			return -1, err
		}
		r := resp.(*kmsg.FindCoordinatorResponse)
		node, c := r.NodeID, r.ErrorCode
		if r.Version >= 4 && len(r.Coordinators) == 1 {
			node, c = r.Coordinators[0].NodeID, r.Coordinators[0].ErrorCode
		}
		return int64(node), protocol.ErrorForCode(c)
	})
	return int32(node), err
}

// committedRead is what a read_committed fetch of a partition from an
// offset returned: the last stable offset, the batches (base offset,
// control type: -1 data, 0 abort, 1 commit; producer epoch) and the
// aborted transactions' first offsets.
type committedRead struct {
	lso     int64
	batches []readBatch
	aborted []int64
}

type readBatch struct {
	base    int64
	control int16
	epoch   int16
}

// readCommitted fetches partition p of topic from offset with isolation
// level read_committed at its leader.
func readCommitted(ctx context.Context, conn *protocol.Conn, topic string, p int32, offset int64) (committedRead, error) {
	req := kmsg.NewPtrFetchRequest()
	req.ReplicaID, req.MaxBytes, req.IsolationLevel, req.SessionEpoch = -1, 1<<20, 1, -1
	rt := kmsg.NewFetchRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewFetchRequestTopicPartition()
	rp.Partition, rp.FetchOffset, rp.PartitionMaxBytes = p, offset, 1<<20
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	resp, err := conn.Request(ctx, req)
	if err != nil {
		return committedRead{}, fmt.Errorf("Fetch: %w", err)
	}
	fp := resp.(*kmsg.FetchResponse).Topics[0].Partitions[0]
	if fp.ErrorCode != 0 {
		return committedRead{}, fmt.Errorf("Fetch: %w", protocol.ErrorForCode(fp.ErrorCode))
	}
	out := committedRead{lso: fp.LastStableOffset}
	for _, a := range fp.AbortedTransactions {
		out.aborted = append(out.aborted, a.FirstOffset)
	}
	for raw := fp.RecordBatches; len(raw) >= 61; {
		var b kmsg.RecordBatch
		n := 12 + int(int32(uint32(raw[8])<<24|uint32(raw[9])<<16|uint32(raw[10])<<8|uint32(raw[11])))
		if n > len(raw) || b.ReadFrom(raw[:n]) != nil {
			return out, errors.New("Fetch: a batch cut short")
		}
		rb := readBatch{base: b.FirstOffset, control: -1, epoch: b.ProducerEpoch}
		if b.Attributes&0x20 != 0 {
			rb.control = controlType(b.Records)
		}
		out.batches = append(out.batches, rb)
		raw = raw[n:]
	}
	return out, nil
}

// controlType reads a control batch's type from its record's key (-2 if
// it has none).
func controlType(recs []byte) int16 {
	var r kmsg.Record
	if r.ReadFrom(recs) != nil || len(r.Key) < 4 {
		return -2
	}
	return int16(uint16(r.Key[2])<<8 | uint16(r.Key[3]))
}

// waitStable waits until partition p's last stable offset at its leader
// reaches lso (the markers are written after EndTxn is answered).
func (s *txnSession) waitStable(ctx context.Context, p int32, lso int64) (committedRead, error) {
	conn, err := s.conn(ctx, s.leaders[p], false)
	if err != nil {
		return committedRead{}, err
	}
	for {
		r, err := readCommitted(ctx, conn, s.topic, p, 0)
		if err != nil || r.lso >= lso {
			return r, err
		}
		select {
		case <-ctx.Done():
			return r, fmt.Errorf("last stable offset %d, waiting for %d: %w", r.lso, lso, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}
