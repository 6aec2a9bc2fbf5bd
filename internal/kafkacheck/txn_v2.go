package kafkacheck

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/kafkaerr"
	"github.com/rollsafe/rollsafe/protocol"
)

// capsV2 are a transactions v2 client's versions (Kafka 4.x): Produce
// v12, InitProducerId v5, AddOffsetsToTxn v4, EndTxn v5, TxnOffsetCommit
// v5 (AddPartitionsToTxn stays at v3: v4 and up are between brokers).
var capsV2 = map[int16]int16{0: 12, 22: 5, 24: 3, 25: 4, 26: 5, 28: 5}

// TransactionsV2 plays a transactions v2 producer's requests (KIP-890
// part 2, as Kafka 4.x clients send them when the cluster finalizes
// transaction.version 2) against partitions 0 and 1 of topic, which must
// be new, through dial, and checks every answer and what read_committed
// reads against what Apache Kafka 4.4 gives:
//
//   - ApiVersions finalizes transaction.version at 2;
//   - Produce v12 adds its partition to the transaction itself, no
//     AddPartitionsToTxn (Produce v11 there: TRANSACTION_ABORTABLE);
//   - EndTxn v5 bumps the epoch at every commit and abort and answers the
//     producer id and the new epoch; the marker carries the new epoch; a
//     retry at the previous epoch is NONE with the current one, the other
//     outcome INVALID_TXN_STATE; a commit at the new epoch with nothing
//     ongoing INVALID_TXN_STATE, an abort bumps the epoch again;
//   - the old epoch's Produce is INVALID_PRODUCER_EPOCH;
//   - TxnOffsetCommit v5 adds the group's partition itself (v4 without
//     AddOffsetsToTxn: TRANSACTION_ABORTABLE);
//   - a second instance fences the first mid-transaction (the abort
//     marker one above the zombie's epoch, the new instance two above);
//     the zombie's EndTxn then PRODUCER_FENCED;
//   - a transaction past its timeout is aborted at the epoch above; the
//     producer's abort at its old epoch is then answered as a retry (NONE,
//     the abort's epoch, once the abort is complete), its commit
//     INVALID_TXN_STATE, and it goes on at the new epoch.
func TransactionsV2(ctx context.Context, dial DialFunc, topic string, abortCheck time.Duration) error {
	s := &txnSession{dial: dial, id: "kafkacheck-txn-v2", topic: topic, seq: map[int32]int32{},
		conns: map[string]*protocol.Conn{}, timeout: 60000, caps: capsV2}
	defer s.close()
	if _, err := s.locate(ctx); err != nil {
		return err
	}
	conn, err := s.conn(ctx, s.coord, false)
	if err != nil {
		return err
	}
	if tv, err := transactionVersion(ctx, conn); err != nil || tv != 2 {
		return fmt.Errorf("finalized transaction.version %d (%v); Kafka 4.4 finalizes 2", tv, err)
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
	pid, e0 := s.pid, s.epoch
	for _, st := range []struct {
		what string
		p    int32
		n    int
		old  bool
		want kafkaerr.Code
	}{
		{"Produce v12 to partition 0, not added", 0, 3, false, kafkaerr.None},
		{"Produce v11 to partition 1, not added", 1, 1, true, kafkaerr.TransactionAbortable},
		{"Produce v12 to partition 1, not added", 1, 1, false, kafkaerr.None},
	} {
		if err := step(expect, st.what, st.want, func() (kafkaerr.Code, error) {
			if st.old {
				return s.produceCapped(ctx, st.p, st.n, map[int16]int16{0: 11})
			}
			c, _, err := s.produceAt(ctx, false, st.p, st.n, true)
			return c, err
		}); err != nil {
			return errors.Join(append(errs, err)...)
		}
	}
	if open, err := s.waitStable(ctx, 0, 0); err != nil {
		return err
	} else if open.lso != 0 || len(open.batches) != 0 {
		errs = append(errs, fmt.Errorf("read_committed with the transaction open: %+v; Kafka: last stable offset 0, nothing", open))
	}
	if err := s.endDone(ctx, expect, "EndTxn v5(commit)", true, e0, pid, e0+1); err != nil {
		return errors.Join(append(errs, err)...)
	}
	for _, st := range []struct {
		what   string
		epoch  int16
		commit bool
		want   kafkaerr.Code
	}{
		{"EndTxn v5(abort) at the old epoch after the commit", e0, false, kafkaerr.InvalidTxnState},
		{"EndTxn v5(commit) at the new epoch, nothing ongoing", e0 + 1, true, kafkaerr.InvalidTxnState},
	} {
		wantPID, wantEpoch := int64(-1), int16(-1)
		if st.want == kafkaerr.None {
			wantPID, wantEpoch = pid, e0+1
		}
		if err := s.endV2(ctx, expect, st.what, st.commit, st.epoch, st.want, wantPID, wantEpoch); err != nil {
			return errors.Join(append(errs, err)...)
		}
	}
	if err := step(expect, "Produce v12 at the epoch before the commit", kafkaerr.InvalidProducerEpoch, func() (kafkaerr.Code, error) {
		c, _, err := s.produceAt(ctx, false, 1, 1, true)
		return c, err
	}); err != nil {
		return errors.Join(append(errs, err)...)
	}
	s.epoch, s.seq = e0+1, map[int32]int32{}
	if err := step(expect, "Produce v12 at the new epoch", kafkaerr.None, func() (kafkaerr.Code, error) {
		c, _, err := s.produceAt(ctx, false, 0, 1, true)
		return c, err
	}); err != nil {
		return errors.Join(append(errs, err)...)
	}
	if err := s.endDone(ctx, expect, "EndTxn v5(abort)", false, e0+1, pid, e0+2); err != nil {
		return errors.Join(append(errs, err)...)
	}
	if err := s.endDone(ctx, expect, "EndTxn v5(abort) with nothing ongoing", false, e0+2, pid, e0+3); err != nil {
		return errors.Join(append(errs, err)...)
	}
	s.epoch, s.seq = e0+3, map[int32]int32{}
	if err := s.offsetsV2(ctx, expect, pid); err != nil {
		return errors.Join(append(errs, err)...)
	}
	zombie := s.epoch
	if err := step(expect, "Produce v12 before a second instance", kafkaerr.None, func() (kafkaerr.Code, error) {
		c, _, err := s.produceAt(ctx, false, 0, 1, true)
		return c, err
	}); err != nil {
		return errors.Join(append(errs, err)...)
	}
	fresh := &txnSession{dial: dial, id: s.id, topic: topic, seq: map[int32]int32{}, conns: map[string]*protocol.Conn{},
		timeout: 60000, caps: capsV2, coord: s.coord, leaders: s.leaders}
	defer fresh.close()
	if err := fresh.init(ctx); err != nil {
		return errors.Join(append(errs, err)...)
	}
	if fresh.pid != pid || fresh.epoch != zombie+2 {
		errs = append(errs, fmt.Errorf("InitProducerId fencing an ongoing transaction: producer %d epoch %d; Kafka: %d epoch %d", fresh.pid, fresh.epoch, pid, zombie+2))
	}
	if err := s.endV2(ctx, expect, "the fenced instance's EndTxn v5(commit)", true, zombie, kafkaerr.ProducerFenced, -1, -1); err != nil {
		return errors.Join(append(errs, err)...)
	}
	if err := step(expect, "the fenced instance's Produce v12", kafkaerr.InvalidProducerEpoch, func() (kafkaerr.Code, error) {
		c, _, err := s.produceAt(ctx, false, 0, 1, true)
		return c, err
	}); err != nil {
		return errors.Join(append(errs, err)...)
	}
	e := e0
	want := []readBatch{{0, -1, e}, {3, 1, e + 1}, {4, -1, e + 1}, {5, 0, e + 2}, {6, -1, zombie}, {7, 0, zombie + 1}}
	if final, err := s.waitStable(ctx, 0, 8); err != nil {
		return errors.Join(append(errs, err)...)
	} else if !slices.Equal(final.batches, want) || !slices.Equal(final.aborted, []int64{4, 6}) {
		errs = append(errs, fmt.Errorf("read_committed of partition 0: batches %v, aborted %v; Kafka's log: %v, aborted [4 6]", final.batches, final.aborted, want))
	}
	if err := timeoutAbortV2(ctx, s, abortCheck, expect); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// endV2 sends EndTxn v5 at epoch and checks its code, producer id and
// epoch.
func (s *txnSession) endV2(ctx context.Context, expect expectFunc, what string, commit bool, epoch int16, want kafkaerr.Code, wantPID int64, wantEpoch int16) error {
	conn, err := s.conn(ctx, s.coord, false)
	if err != nil {
		return err
	}
	req := kmsg.NewPtrEndTxnRequest()
	req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Commit = s.id, s.pid, epoch, commit
	resp, err := conn.Request(ctx, req)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	r := resp.(*kmsg.EndTxnResponse)
	if r.Version < 5 {
		return fmt.Errorf("%s: EndTxn v%d, not v5", what, r.Version)
	}
	expect(what, code(r.ErrorCode), want)
	if code(r.ErrorCode) == want && (r.ProducerID != wantPID || r.ProducerEpoch != wantEpoch) {
		expect(fmt.Sprintf("%s: producer %d epoch %d (Kafka: %d epoch %d)", what, r.ProducerID, r.ProducerEpoch, wantPID, wantEpoch),
			kafkaerr.UnknownServerError, kafkaerr.None)
	}
	return nil
}

// endDone is endV2 expecting NONE and the producer id and epoch given,
// then the same end retried at the same epoch until the coordinator has
// completed it (CONCURRENT_TRANSACTIONS while its markers are written),
// which answers NONE with that producer id and epoch again.
func (s *txnSession) endDone(ctx context.Context, expect expectFunc, what string, commit bool, epoch int16, wantPID int64, wantEpoch int16) error {
	if err := s.endV2(ctx, expect, what, commit, epoch, kafkaerr.None, wantPID, wantEpoch); err != nil {
		return err
	}
	for {
		c, err := s.endCode(ctx, commit, epoch)
		if err != nil {
			return fmt.Errorf("%s, retried: %w", what, err)
		}
		if c != kafkaerr.ConcurrentTransactions {
			return s.endV2(ctx, expect, what+", retried once complete", commit, epoch, kafkaerr.None, wantPID, wantEpoch)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: still completing: %w", what, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// endCode is EndTxn v5's code alone.
func (s *txnSession) endCode(ctx context.Context, commit bool, epoch int16) (kafkaerr.Code, error) {
	conn, err := s.conn(ctx, s.coord, false)
	if err != nil {
		return 0, err
	}
	req := kmsg.NewPtrEndTxnRequest()
	req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Commit = s.id, s.pid, epoch, commit
	resp, err := conn.Request(ctx, req)
	if err != nil {
		return 0, err
	}
	return code(resp.(*kmsg.EndTxnResponse).ErrorCode), nil
}

// produceCapped is produceAt (a transactional batch) over a connection
// to the leader capped at caps.
func (s *txnSession) produceCapped(ctx context.Context, p int32, n int, caps map[int16]int16) (kafkaerr.Code, error) {
	saved := s.caps
	s.caps = caps
	key := fmt.Sprintf("%d/%v", s.leaders[p], false)
	main := s.conns[key]
	delete(s.conns, key)
	defer func() {
		if c := s.conns[key]; c != nil {
			c.Close()
		}
		s.caps, s.conns[key] = saved, main
		if main == nil {
			delete(s.conns, key)
		}
	}()
	c, _, err := s.produceAt(ctx, false, p, n, true)
	return c, err
}

// offsetsV2 checks TxnOffsetCommit under transactions v2: v4 without
// AddOffsetsToTxn is TRANSACTION_ABORTABLE, v5 adds the group's partition
// itself; the transaction then commits (epoch up one).
func (s *txnSession) offsetsV2(ctx context.Context, expect expectFunc, pid int64) error {
	const group = "kafkacheck-txn-v2-group"
	gc, err := s.groupCoordinator(ctx, group)
	if err != nil {
		return err
	}
	saved := s.caps
	s.caps = map[int16]int16{28: 4}
	key := fmt.Sprintf("%d/%v", gc, false)
	main := s.conns[key]
	delete(s.conns, key)
	c4, err := settle(ctx, func() (kafkaerr.Code, error) { return s.commitOffset(ctx, gc, group, 1) })
	if c := s.conns[key]; c != nil {
		c.Close()
	}
	s.caps = saved
	delete(s.conns, key)
	if main != nil {
		s.conns[key] = main
	}
	if err != nil {
		return err
	}
	expect("TxnOffsetCommit v4 with nothing ongoing, no AddOffsetsToTxn", c4, kafkaerr.TransactionAbortable)
	if err := step(expect, "TxnOffsetCommit v5 with nothing ongoing, no AddOffsetsToTxn", kafkaerr.None, func() (kafkaerr.Code, error) {
		// A new cluster's group coordinator may still be loading.
		return settle(ctx, func() (kafkaerr.Code, error) { return s.commitOffset(ctx, gc, group, 2) })
	}); err != nil {
		return err
	}
	if err := s.endDone(ctx, expect, "EndTxn v5(commit) of the offsets", true, s.epoch, pid, s.epoch+1); err != nil {
		return err
	}
	s.epoch++
	return nil
}

// timeoutAbortV2 checks the timeout abort under transactions v2 with a
// producer of its own on partition 1 (1 s transaction timeout).
func timeoutAbortV2(ctx context.Context, base *txnSession, abortCheck time.Duration, expect expectFunc) error {
	s := &txnSession{dial: base.dial, id: base.id + "-timeout", topic: base.topic, leaders: base.leaders,
		seq: map[int32]int32{}, conns: map[string]*protocol.Conn{}, timeout: 1000, caps: capsV2}
	defer s.close()
	if err := s.findCoordinator(ctx, 0); err != nil {
		return err
	}
	if err := s.init(ctx); err != nil {
		return err
	}
	epoch := s.epoch
	c, base1, err := s.produceAt(ctx, false, 1, 1, true)
	if err != nil || c != kafkaerr.None {
		return fmt.Errorf("Produce v12 to partition 1 in the timed transaction: %v, %v", c, err)
	}
	wctx, cancel := context.WithTimeout(ctx, time.Second+2*abortCheck+10*time.Second)
	defer cancel()
	r, err := s.waitStable(wctx, 1, base1+2)
	if err != nil {
		return fmt.Errorf("the timed-out transaction was not aborted: %w", err)
	}
	if want := []readBatch{{base1, -1, epoch}, {base1 + 1, 0, epoch + 1}}; !slices.Equal(r.batches[len(r.batches)-2:], want) {
		expect(fmt.Sprintf("the timed-out transaction read back: %v (Kafka ends with %v)", r.batches, want), kafkaerr.UnknownServerError, kafkaerr.None)
	}
	if err := step(expect, "Produce v12 after the timeout", kafkaerr.InvalidProducerEpoch, func() (kafkaerr.Code, error) {
		c, _, err := s.produceAt(ctx, false, 1, 1, true)
		return c, err
	}); err != nil {
		return err
	}
	// CONCURRENT_TRANSACTIONS until the coordinator has completed the
	// abort, as Kafka 4.4 answers.
	if _, err := settle(ctx, func() (kafkaerr.Code, error) { return s.endCode(ctx, false, epoch) }); err != nil {
		return err
	}
	if err := s.endDone(ctx, expect, "EndTxn v5(abort) after the timeout", false, epoch, s.pid, epoch+1); err != nil {
		return err
	}
	if err := s.endV2(ctx, expect, "EndTxn v5(commit) after the timeout's abort", true, epoch, kafkaerr.InvalidTxnState, -1, -1); err != nil {
		return err
	}
	s.epoch, s.seq = epoch+1, map[int32]int32{}
	if err := step(expect, "Produce v12 at the abort's epoch", kafkaerr.None, func() (kafkaerr.Code, error) {
		c, _, err := s.produceAt(ctx, false, 1, 1, true)
		return c, err
	}); err != nil {
		return err
	}
	return s.endV2(ctx, expect, "EndTxn v5(commit) at the abort's epoch", true, epoch+1, kafkaerr.None, s.pid, epoch+2)
}
