package kafkacheck

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/protocol"
)

// seqStep is one idempotent produce of Sequences: n records at base
// sequence seq with the producer's epoch plus epochUp, by the first
// producer or (second) the second; want is the answer (nil: taken), at
// the base offset at (when taken; -1: a new write, at the log end).
type seqStep struct {
	what    string
	second  bool
	epochUp int16
	seq     int32
	n       int
	want    error
	at      int64
}

// Sequences plays the broker's idempotence rules on partition p of topic,
// which must be new and empty, over conn to its leader, with two producer
// ids from InitProducerId: a nonzero first sequence on a partition that
// never held a record (taken: Kafka 4.4 takes any first sequence from a
// producer it holds no state for; 4.5 will not, KAFKA-15591, which the
// sim's Kafka15591Fix emulates), in-order batches, a retry of one of the
// last five batches (answered with its first write's offset, not written
// again), a gap, a retry older than the last five, a batch sharing a
// retained batch's first sequence but not its last, a new epoch starting
// above 0 and at 0, the old epoch after it, and a second producer starting
// at a nonzero sequence. It checks each answer and offset against what
// Apache Kafka 4.4 gives, then reads the log back (only the first writes,
// in order, at consecutive offsets) and asks DescribeProducers for each
// producer's epoch and last sequence.
func Sequences(ctx context.Context, conn *protocol.Conn, topic string, p int32) error {
	pids, epochs, err := twoProducers(ctx, conn)
	if err != nil {
		return err
	}
	oos, fenced := protocol.ErrOutOfOrderSequenceNumber, protocol.ErrInvalidProducerEpoch
	steps := []seqStep{
		{what: "first batch at sequence 5 on a partition that never held a record", seq: 5, n: 2, at: -1},
		{what: "sequence 0 after 6", seq: 0, n: 2, want: oos},
		{what: "sequence 7", seq: 7, n: 2, at: -1},
		{what: "retry of sequence 5", seq: 5, n: 2, at: 0},
		{what: "gap: sequence 11 after 8", seq: 11, n: 2, want: oos},
		{what: "sequence 9", seq: 9, n: 2, at: -1},
		{what: "sequence 11", seq: 11, n: 2, at: -1},
		{what: "sequence 13", seq: 13, n: 2, at: -1},
		{what: "sequence 15", seq: 15, n: 2, at: -1},
		{what: "retry of sequence 5, six batches back", seq: 5, n: 2, want: oos},
		{what: "retry of sequence 7, five batches back", seq: 7, n: 2, at: 2},
		{what: "sequence 15 again with one record (its last sequence differs)", seq: 15, n: 1, want: oos},
		{what: "sequence 17", seq: 17, n: 2, at: -1},
		{what: "new epoch at sequence 3", epochUp: 1, seq: 3, n: 2, want: oos},
		{what: "new epoch at sequence 0", epochUp: 1, seq: 0, n: 2, at: -1},
		{what: "old epoch after the new one", seq: 19, n: 2, want: fenced},
		{what: "retry of the new epoch's sequence 0", epochUp: 1, seq: 0, n: 2, at: 14},
		{what: "new epoch, sequence 2", epochUp: 1, seq: 2, n: 1, at: -1},
		{what: "second producer's first batch at sequence 7", second: true, seq: 7, n: 2, at: -1},
		{what: "second producer, sequence 9", second: true, seq: 9, n: 1, at: -1},
		{what: "second producer's retry of sequence 7", second: true, seq: 7, n: 2, at: 17},
	}
	var want []logRecord
	var errs []error
	next := int64(0)
	for i, st := range steps {
		who := 0
		if st.second {
			who = 1
		}
		var values []string
		for j := range st.n {
			values = append(values, fmt.Sprintf("step%d-%d", i, j))
		}
		recs := recordsOf(values...)
		raw := producerBatch(recs, int32(st.n), 0, pids[who], epochs[who]+st.epochUp, st.seq)
		base, err := produce(ctx, conn, topic, p, raw)
		switch {
		case st.want != nil && !errors.Is(err, st.want):
			errs = append(errs, fmt.Errorf("step %d, %s: the broker answered %s (base offset %d); Kafka answers %s", i, st.what, answer(err), base, answer(st.want)))
		case st.want == nil && err != nil:
			errs = append(errs, fmt.Errorf("step %d, %s: the broker answered %s; Kafka takes it", i, st.what, answer(err)))
		case st.want == nil && st.at >= 0 && base != st.at:
			errs = append(errs, fmt.Errorf("step %d, %s: answered base offset %d; Kafka answers the first write's, %d", i, st.what, base, st.at))
		case st.want == nil && st.at < 0:
			if base != next {
				errs = append(errs, fmt.Errorf("step %d, %s: written at %d; Kafka writes it at the log end, %d", i, st.what, base, next))
			}
			for j, v := range values {
				want = append(want, logRecord{next + int64(j), v})
			}
			next += int64(st.n)
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	got, _, hw, err := readLog(ctx, conn, topic, p, 0, next)
	if err != nil {
		return err
	}
	if hw != next {
		return fmt.Errorf("high watermark %d after acks=all writes of %d records", hw, next)
	}
	if !slices.Equal(got, want) {
		return fmt.Errorf("read back (offset, value) %v; Kafka's log holds %v", got, want)
	}
	active, err := describeProducers(ctx, conn, topic, p)
	if err != nil {
		return err
	}
	type state struct {
		epoch   int16
		lastSeq int32
	}
	gotState := map[int64]state{}
	for _, a := range active {
		gotState[a.ProducerID] = state{int16(a.ProducerEpoch), a.LastSequence}
	}
	wantState := map[int64]state{pids[0]: {epochs[0] + 1, 2}, pids[1]: {epochs[1], 9}}
	if len(gotState) != 2 || gotState[pids[0]] != wantState[pids[0]] || gotState[pids[1]] != wantState[pids[1]] {
		return fmt.Errorf("DescribeProducers: %v; Kafka reports %v", gotState, wantState)
	}
	return nil
}

// initProducerID asks for a producer id without a transactional id,
// waiting out the retriable answers of a broker still starting (a fresh
// Kafka cluster answers COORDINATOR_LOAD_IN_PROGRESS at first).
func initProducerID(ctx context.Context, conn *protocol.Conn) (int64, int16, error) {
	for {
		req := kmsg.NewPtrInitProducerIDRequest()
		req.TransactionTimeoutMillis = 60000
		req.ProducerID, req.ProducerEpoch = -1, -1
		resp, err := conn.Request(ctx, req)
		if err != nil {
			return -1, -1, fmt.Errorf("InitProducerId: %w", err)
		}
		r := resp.(*kmsg.InitProducerIDResponse)
		if r.ErrorCode == 0 {
			return r.ProducerID, r.ProducerEpoch, nil
		}
		err = protocol.ErrorForCode(r.ErrorCode)
		var ke *protocol.KafkaError
		if !errors.As(err, &ke) || !ke.Retriable {
			return -1, -1, fmt.Errorf("InitProducerId: %w", err)
		}
		select {
		case <-ctx.Done():
			return -1, -1, fmt.Errorf("InitProducerId: %w (last answer %v)", ctx.Err(), err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// describeProducers returns the active producers DescribeProducers lists
// for partition p of topic.
func describeProducers(ctx context.Context, conn *protocol.Conn, topic string, p int32) ([]kmsg.DescribeProducersResponseTopicPartitionActiveProducer, error) {
	req := kmsg.NewPtrDescribeProducersRequest()
	rt := kmsg.NewDescribeProducersRequestTopic()
	rt.Topic, rt.Partitions = topic, []int32{p}
	req.Topics = []kmsg.DescribeProducersRequestTopic{rt}
	resp, err := conn.Request(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("DescribeProducers: %w", err)
	}
	var out []kmsg.DescribeProducersResponseTopicPartitionActiveProducer
	for _, t := range resp.(*kmsg.DescribeProducersResponse).Topics {
		for _, pp := range t.Partitions {
			if pp.ErrorCode != 0 {
				return nil, fmt.Errorf("DescribeProducers: %w", protocol.ErrorForCode(pp.ErrorCode))
			}
			out = append(out, pp.ActiveProducers...)
		}
	}
	return out, nil
}

// twoProducers asks InitProducerId for two producer ids.
func twoProducers(ctx context.Context, conn *protocol.Conn) (pids [2]int64, epochs [2]int16, err error) {
	for i := range pids {
		if pids[i], epochs[i], err = initProducerID(ctx, conn); err != nil {
			return pids, epochs, err
		}
	}
	return pids, epochs, nil
}
