package kafkacheck

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/rollsafe/rollsafe/kafkaerr"
	"github.com/rollsafe/rollsafe/protocol"
)

// Transactions plays a transactional producer's requests (transactions
// v1, as Kafka 3.x clients send them) against partitions 0 and 1 of
// topic, which must be new, through dial (broker 0 answering metadata),
// and checks every answer and what read_committed reads against what
// Apache Kafka 4.4 gives:
//
//   - InitProducerId: epoch 0, then 1; EndTxn with nothing ongoing
//     INVALID_TXN_STATE, at another broker NOT_COORDINATOR;
//   - a transactional batch to a partition not added: INVALID_TXN_STATE
//     (Produce v9), TRANSACTION_ABORTABLE (v11); a plain batch of the
//     producer inside its transaction INVALID_TXN_STATE;
//   - while open, read_committed stops at the transaction (last stable
//     offset 0); a commit's marker follows its records; a retried commit
//     is NONE, an abort after it INVALID_TXN_STATE; an aborted
//     transaction is listed to read_committed readers;
//   - a second instance fences the first mid-transaction
//     (CONCURRENT_TRANSACTIONS, then the epoch two above: the abort
//     marker carries the one between); the zombie's writes are
//     INVALID_PRODUCER_EPOCH, its AddPartitionsToTxn and EndTxn
//     PRODUCER_FENCED (INVALID_PRODUCER_EPOCH at v1);
//   - KIP-360: InitProducerId naming the current epoch bumps it, a retry
//     naming the same one gets the same answer, a stale one is fenced
//     (INVALID_PRODUCER_EPOCH before v4);
//   - TxnOffsetCommit before AddOffsetsToTxn INVALID_TXN_STATE, after it
//     NONE;
//   - a transaction left open past its timeout (1 s) is aborted within
//     abortCheck (the coordinators'
//     transaction.abort.timed.out.transaction.cleanup.interval.ms) at the
//     epoch above the producer's, whose next requests are fenced.
func Transactions(ctx context.Context, dial DialFunc, topic string, abortCheck time.Duration) error {
	s := &txnSession{dial: dial, id: "kafkacheck-txn", topic: topic, seq: map[int32]int32{},
		conns: map[string]*protocol.Conn{}, timeout: 60000}
	defer s.close()
	brokers, err := s.locate(ctx)
	if err != nil {
		return err
	}
	var errs []error
	expect := func(what string, got, want kafkaerr.Code) {
		if got != want {
			errs = append(errs, fmt.Errorf("%s: the broker answered %s; Kafka answers %s", what, got, want))
		}
	}
	if err := s.init(ctx); err != nil {
		return err
	}
	first := s.epoch
	if err := s.init(ctx); err != nil {
		return err
	}
	if first != 0 || s.epoch != 1 {
		errs = append(errs, fmt.Errorf("InitProducerId twice: epochs %d and %d; Kafka gives 0 and 1", first, s.epoch))
	}
	steps := []struct {
		what string
		f    func() (kafkaerr.Code, error)
		want kafkaerr.Code
	}{
		{"EndTxn(commit) with no transaction", func() (kafkaerr.Code, error) { return s.endAt(ctx, s.coord, false, true) }, kafkaerr.InvalidTxnState},
		{"EndTxn at a broker not coordinating", func() (kafkaerr.Code, error) {
			return s.endAt(ctx, (s.coord+1)%int32(brokers), false, true)
		}, kafkaerr.NotCoordinator},
		{"AddPartitionsToTxn(0)", func() (kafkaerr.Code, error) { return s.addAt(ctx, false, 0) }, kafkaerr.None},
		{"Produce v9 to partition 1, not added", func() (kafkaerr.Code, error) { c, _, err := s.produceAt(ctx, true, 1, 1, true); return c, err }, kafkaerr.InvalidTxnState},
		{"Produce v11 to partition 1, not added", func() (kafkaerr.Code, error) { c, _, err := s.produceAt(ctx, false, 1, 1, true); return c, err }, kafkaerr.TransactionAbortable},
		{"Produce to partition 0", func() (kafkaerr.Code, error) { c, _, err := s.produceAt(ctx, false, 0, 3, true); return c, err }, kafkaerr.None},
		{"a plain batch of the producer inside its transaction", func() (kafkaerr.Code, error) { c, _, err := s.produceAt(ctx, false, 0, 1, false); return c, err }, kafkaerr.InvalidTxnState},
	}
	for _, st := range steps {
		got, err := st.f()
		if err != nil {
			return fmt.Errorf("%s: %w", st.what, err)
		}
		expect(st.what, got, st.want)
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	open, err := s.waitStable(ctx, 0, 0)
	if err != nil {
		return err
	}
	if open.lso != 0 || len(open.batches) != 0 || len(open.aborted) != 0 {
		errs = append(errs, fmt.Errorf("read_committed with the transaction open: %+v; Kafka: last stable offset 0, nothing", open))
	}
	if err := s.commitAndAbort(ctx, expect); err != nil {
		return err
	}
	zombie := s.epoch
	fresh, err := s.fence(ctx, expect)
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	defer fresh.close()
	if err := fresh.recover(ctx, expect); err != nil {
		return errors.Join(append(errs, err)...)
	}
	if err := fresh.offsets(ctx, expect); err != nil {
		return errors.Join(append(errs, err)...)
	}
	e := fresh.epoch
	want := []readBatch{{0, -1, 1}, {3, 1, 1}, {4, -1, 1}, {6, 0, 1}, {7, -1, zombie}, {8, 0, zombie + 1}, {9, -1, e}, {10, 1, e}}
	final, err := s.waitStable(ctx, 0, 11)
	if err != nil {
		return err
	}
	if !slices.Equal(final.batches, want) || !slices.Equal(final.aborted, []int64{4, 7}) {
		errs = append(errs, fmt.Errorf("read_committed of partition 0: batches %v, aborted %v; Kafka's log: %v, aborted [4 7]", final.batches, final.aborted, want))
	}
	if err := timeoutAbort(ctx, s, abortCheck, expect); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// locate finds the partitions' leaders and the transactional id's
// coordinator; it returns the number of brokers.
func (s *txnSession) locate(ctx context.Context) (int, error) {
	conn, err := s.conn(ctx, 0, false)
	if err != nil {
		return 0, err
	}
	md, err := metadataOf(ctx, conn, s.topic)
	if err != nil {
		return 0, err
	}
	ps := md[s.topic]
	if len(ps) < 2 {
		return 0, fmt.Errorf("topic %s: %d partitions, want 2", s.topic, len(ps))
	}
	for _, p := range ps[:2] {
		s.leaders = append(s.leaders, p.Leader)
	}
	brokers, err := brokerCount(ctx, conn)
	if err != nil {
		return 0, err
	}
	return brokers, s.findCoordinator(ctx, 0)
}

// init is InitProducerId until it is answered NONE, finding the
// coordinator again if it moved.
func (s *txnSession) init(ctx context.Context) error {
	for {
		c, err := settle(ctx, func() (kafkaerr.Code, error) { return s.initAt(ctx, false, false) })
		switch {
		case err != nil:
			return err
		case c == kafkaerr.None:
			return nil
		case c == kafkaerr.NotCoordinator || c == kafkaerr.CoordinatorNotAvailable:
			if err := s.findCoordinator(ctx, 0); err != nil {
				return err
			}
		default:
			return fmt.Errorf("InitProducerId(%s): %s", s.id, c)
		}
	}
}
