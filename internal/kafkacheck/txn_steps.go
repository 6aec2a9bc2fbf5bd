package kafkacheck

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/kafkaerr"
	"github.com/rollsafe/rollsafe/protocol"
)

// expectFunc records a step's answer against Kafka's.
type expectFunc func(what string, got, want kafkaerr.Code)

// step runs f and records its answer; a transport error is returned.
func step(expect expectFunc, what string, want kafkaerr.Code, f func() (kafkaerr.Code, error)) error {
	got, err := f()
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	expect(what, got, want)
	return nil
}

// commitAndAbort commits the open transaction (three records at 0 on
// partition 0), checks a retried commit and an abort after it, then
// writes and aborts a second transaction (two records at 4).
func (s *txnSession) commitAndAbort(ctx context.Context, expect expectFunc) error {
	produce := func(p int32, n int) func() (kafkaerr.Code, error) {
		return func() (kafkaerr.Code, error) { c, _, err := s.produceAt(ctx, false, p, n, true); return c, err }
	}
	end := func(commit bool) func() (kafkaerr.Code, error) {
		return func() (kafkaerr.Code, error) { return s.endAt(ctx, s.coord, false, commit) }
	}
	if err := step(expect, "EndTxn(commit)", kafkaerr.None, end(true)); err != nil {
		return err
	}
	if _, err := s.waitStable(ctx, 0, 4); err != nil {
		return err
	}
	for _, st := range []struct {
		what string
		want kafkaerr.Code
		f    func() (kafkaerr.Code, error)
	}{
		{"EndTxn(commit) retried", kafkaerr.None, func() (kafkaerr.Code, error) { return settle(ctx, end(true)) }},
		{"EndTxn(abort) after the commit", kafkaerr.InvalidTxnState, end(false)},
		{"AddPartitionsToTxn(0) for a second transaction", kafkaerr.None, func() (kafkaerr.Code, error) {
			return settle(ctx, func() (kafkaerr.Code, error) { return s.addAt(ctx, false, 0) })
		}},
		{"Produce to partition 0 in the second transaction", kafkaerr.None, produce(0, 2)},
		{"EndTxn(abort)", kafkaerr.None, end(false)},
	} {
		if err := step(expect, st.what, st.want, st.f); err != nil {
			return err
		}
	}
	_, err := s.waitStable(ctx, 0, 7)
	return err
}

// fence opens a third transaction (one record at 7), then a second
// instance of the transactional id fences it; it checks what both are
// answered and returns the new instance.
func (s *txnSession) fence(ctx context.Context, expect expectFunc) (*txnSession, error) {
	if err := step(expect, "AddPartitionsToTxn(0) for a third transaction", kafkaerr.None, func() (kafkaerr.Code, error) {
		return settle(ctx, func() (kafkaerr.Code, error) { return s.addAt(ctx, false, 0) })
	}); err != nil {
		return nil, err
	}
	if err := step(expect, "Produce to partition 0 in the third transaction", kafkaerr.None, func() (kafkaerr.Code, error) {
		c, _, err := s.produceAt(ctx, false, 0, 1, true)
		return c, err
	}); err != nil {
		return nil, err
	}
	f := &txnSession{dial: s.dial, id: s.id, topic: s.topic, coord: s.coord, leaders: s.leaders,
		seq: map[int32]int32{}, conns: map[string]*protocol.Conn{}, timeout: s.timeout}
	if err := step(expect, "InitProducerId of a second instance over the open transaction", kafkaerr.ConcurrentTransactions, func() (kafkaerr.Code, error) {
		return f.initAt(ctx, false, false)
	}); err != nil {
		f.close()
		return nil, err
	}
	if err := f.init(ctx); err != nil {
		f.close()
		return nil, err
	}
	if f.pid != s.pid || f.epoch != s.epoch+2 {
		expect(fmt.Sprintf("the second instance's producer %d, epoch %d (Kafka: %d, %d)", f.pid, f.epoch, s.pid, s.epoch+2), kafkaerr.UnknownServerError, kafkaerr.None)
	}
	for _, st := range []struct {
		what string
		want kafkaerr.Code
		f    func() (kafkaerr.Code, error)
	}{
		{"the zombie's Produce to partition 0", kafkaerr.InvalidProducerEpoch, func() (kafkaerr.Code, error) { c, _, err := s.produceAt(ctx, false, 0, 1, true); return c, err }},
		{"the zombie's Produce to partition 1", kafkaerr.InvalidProducerEpoch, func() (kafkaerr.Code, error) { c, _, err := s.produceAt(ctx, false, 1, 1, true); return c, err }},
		{"the zombie's AddPartitionsToTxn v3", kafkaerr.ProducerFenced, func() (kafkaerr.Code, error) { return s.addAt(ctx, false, 1) }},
		{"the zombie's AddPartitionsToTxn v1", kafkaerr.InvalidProducerEpoch, func() (kafkaerr.Code, error) { return s.addAt(ctx, true, 1) }},
		{"the zombie's EndTxn v4", kafkaerr.ProducerFenced, func() (kafkaerr.Code, error) { return s.endAt(ctx, s.coord, false, true) }},
		{"the zombie's EndTxn v1", kafkaerr.InvalidProducerEpoch, func() (kafkaerr.Code, error) { return s.endAt(ctx, s.coord, true, true) }},
	} {
		if err := step(expect, st.what, st.want, st.f); err != nil {
			f.close()
			return nil, err
		}
	}
	if _, err := s.waitStable(ctx, 0, 9); err != nil {
		f.close()
		return nil, err
	}
	return f, nil
}

// recover plays KIP-360's InitProducerId naming the producer: the
// current epoch bumps it, a retry naming it again gets the same answer,
// an older one is fenced.
func (s *txnSession) recover(ctx context.Context, expect expectFunc) error {
	prev := s.epoch
	if err := step(expect, "InitProducerId naming the current epoch", kafkaerr.None, func() (kafkaerr.Code, error) { return s.initAt(ctx, false, true) }); err != nil {
		return err
	}
	s.epoch = prev
	if err := step(expect, "InitProducerId naming it again (a retry)", kafkaerr.None, func() (kafkaerr.Code, error) { return s.initAt(ctx, false, true) }); err != nil {
		return err
	}
	if s.epoch != prev+1 {
		expect(fmt.Sprintf("KIP-360: epoch %d after a bump from %d and its retry", s.epoch, prev), kafkaerr.UnknownServerError, kafkaerr.None)
	}
	cur := s.epoch
	for _, old := range []bool{false, true} {
		want := kafkaerr.ProducerFenced
		if old {
			want = kafkaerr.InvalidProducerEpoch
		}
		s.epoch = prev - 1
		if err := step(expect, fmt.Sprintf("InitProducerId naming a stale epoch (v3: %v)", old), want, func() (kafkaerr.Code, error) { return s.initAt(ctx, old, true) }); err != nil {
			return err
		}
	}
	s.epoch = cur
	return nil
}

// offsets commits a fourth transaction (one record at 9 on partition 0)
// with a group's offset: TxnOffsetCommit needs AddOffsetsToTxn first.
func (s *txnSession) offsets(ctx context.Context, expect expectFunc) error {
	const group = "kafkacheck-group"
	gc, err := s.groupCoordinator(ctx, group)
	if err != nil {
		return err
	}
	for _, st := range []struct {
		what string
		want kafkaerr.Code
		f    func() (kafkaerr.Code, error)
	}{
		{"AddPartitionsToTxn(0) for a fourth transaction", kafkaerr.None, func() (kafkaerr.Code, error) {
			return settle(ctx, func() (kafkaerr.Code, error) { return s.addAt(ctx, false, 0) })
		}},
		{"Produce to partition 0 in the fourth transaction", kafkaerr.None, func() (kafkaerr.Code, error) { c, _, err := s.produceAt(ctx, false, 0, 1, true); return c, err }},
		{"TxnOffsetCommit before AddOffsetsToTxn", kafkaerr.InvalidTxnState, func() (kafkaerr.Code, error) {
			return settle(ctx, func() (kafkaerr.Code, error) { return s.commitOffset(ctx, gc, group, 9) })
		}},
		{"AddOffsetsToTxn", kafkaerr.None, func() (kafkaerr.Code, error) { return s.addOffsets(ctx, group) }},
		{"TxnOffsetCommit", kafkaerr.None, func() (kafkaerr.Code, error) {
			return settle(ctx, func() (kafkaerr.Code, error) { return s.commitOffset(ctx, gc, group, 9) })
		}},
		{"EndTxn(commit) of the fourth transaction", kafkaerr.None, func() (kafkaerr.Code, error) { return s.endAt(ctx, s.coord, false, true) }},
	} {
		if err := step(expect, st.what, st.want, st.f); err != nil {
			return err
		}
	}
	return nil
}

// timeoutAbort leaves a transaction of another transactional id (timeout
// 1 s) open on partition 1 until its coordinator aborts it, then checks
// the abort and what the producer is answered.
//
// The coordinator aborts at the epoch above the producer's. KIP-360's
// InitProducerId naming the producer's epoch then depends on the
// cluster's transaction.version: at 0 or 1 (Kafka 3.x) the fence forgot
// that epoch and answers PRODUCER_FENCED; at 2 (a Kafka 4.x cluster
// created so) the coordinator aborts as transactions v2 do, remembering
// it, and answers NONE with the abort's epoch, which Kafka 4.4 showed.
func timeoutAbort(ctx context.Context, base *txnSession, abortCheck time.Duration, expect expectFunc) error {
	s := &txnSession{dial: base.dial, id: base.id + "-timeout", topic: base.topic, leaders: base.leaders,
		seq: map[int32]int32{}, conns: map[string]*protocol.Conn{}, timeout: 1000}
	defer s.close()
	if err := s.findCoordinator(ctx, 0); err != nil {
		return err
	}
	if err := s.init(ctx); err != nil {
		return err
	}
	epoch := s.epoch
	if err := step(expect, "AddPartitionsToTxn(1), 1 s timeout", kafkaerr.None, func() (kafkaerr.Code, error) { return s.addAt(ctx, false, 1) }); err != nil {
		return err
	}
	c, base1, err := s.produceAt(ctx, false, 1, 1, true)
	if err != nil || c != kafkaerr.None {
		return fmt.Errorf("Produce to partition 1 in the timed transaction: %v, %v", c, err)
	}
	wctx, cancel := context.WithTimeout(ctx, time.Second+2*abortCheck+10*time.Second)
	defer cancel()
	r, err := s.waitStable(wctx, 1, base1+2)
	if err != nil {
		return fmt.Errorf("the timed-out transaction was not aborted: %w", err)
	}
	if want := []readBatch{{base1, -1, epoch}, {base1 + 1, 0, epoch + 1}}; !slices.Equal(r.batches, want) || !slices.Equal(r.aborted, []int64{base1}) {
		expect(fmt.Sprintf("the timed-out transaction read back: %v, aborted %v (Kafka: %v, aborted [%d])", r.batches, r.aborted, want, base1), kafkaerr.UnknownServerError, kafkaerr.None)
	}
	for _, st := range []struct {
		what string
		want kafkaerr.Code
		f    func() (kafkaerr.Code, error)
	}{
		{"Produce after the timeout", kafkaerr.InvalidProducerEpoch, func() (kafkaerr.Code, error) { c, _, err := s.produceAt(ctx, false, 1, 1, true); return c, err }},
		{"AddPartitionsToTxn after the timeout", kafkaerr.ProducerFenced, func() (kafkaerr.Code, error) {
			return settle(ctx, func() (kafkaerr.Code, error) { return s.addAt(ctx, false, 1) })
		}},
		{"EndTxn(abort) after the timeout", kafkaerr.ProducerFenced, func() (kafkaerr.Code, error) { return s.endAt(ctx, s.coord, false, false) }},
	} {
		if err := step(expect, st.what, st.want, st.f); err != nil {
			return err
		}
	}
	conn, err := s.conn(ctx, s.coord, false)
	if err != nil {
		return err
	}
	tv, err := transactionVersion(ctx, conn)
	if err != nil {
		return err
	}
	what := fmt.Sprintf("InitProducerId naming the timed-out epoch (transaction.version %d)", tv)
	if tv < 2 {
		if err := step(expect, what, kafkaerr.ProducerFenced, func() (kafkaerr.Code, error) { return s.initAt(ctx, false, true) }); err != nil {
			return err
		}
	} else {
		if err := step(expect, what, kafkaerr.None, func() (kafkaerr.Code, error) { return s.initAt(ctx, false, true) }); err != nil {
			return err
		}
		if s.epoch != epoch+1 {
			expect(fmt.Sprintf("%s: epoch %d (Kafka: the abort's, %d)", what, s.epoch, epoch+1), kafkaerr.UnknownServerError, kafkaerr.None)
		}
	}
	if err := s.init(ctx); err != nil {
		return err
	}
	if s.epoch != epoch+2 {
		expect(fmt.Sprintf("InitProducerId after the timeout: epoch %d (Kafka: %d)", s.epoch, epoch+2), kafkaerr.UnknownServerError, kafkaerr.None)
	}
	return nil
}

// transactionVersion is the cluster's finalized transaction.version
// feature level as ApiVersions (v3+) tells it; 0 when not told.
func transactionVersion(ctx context.Context, conn *protocol.Conn) (int16, error) {
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName, req.ClientSoftwareVersion = "kafkacheck", "1"
	resp, err := conn.Request(ctx, req)
	if err != nil {
		return 0, fmt.Errorf("ApiVersions: %w", err)
	}
	for _, f := range resp.(*kmsg.ApiVersionsResponse).FinalizedFeatures {
		if f.Name == "transaction.version" {
			return f.MaxVersionLevel, nil
		}
	}
	return 0, nil
}

// brokerCount is how many brokers Metadata lists.
func brokerCount(ctx context.Context, conn *protocol.Conn) (int, error) {
	resp, err := conn.Request(ctx, kmsg.NewPtrMetadataRequest())
	if err != nil {
		return 0, fmt.Errorf("metadata: %w", err)
	}
	return len(resp.(*kmsg.MetadataResponse).Brokers), nil
}
