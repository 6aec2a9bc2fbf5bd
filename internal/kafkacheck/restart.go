package kafkacheck

import (
	"context"
	"errors"
	"fmt"

	"github.com/rollsafe/rollsafe/protocol"
)

// Killer is Replicas that can also kill a broker (kill -9: no controlled
// shutdown, no snapshot).
type Killer interface {
	Replicas
	Kill(ctx context.Context, id int32) error
}

// RestartWindow shows how much of an idempotent producer's history a
// broker remembers across a clean restart. A producer writes four batches
// (sequences 0, 2, 4, 6, two records each) to partition 0 of topic, new
// and on one replica; a retry of the second is answered as a duplicate
// (the window holds five batches). Then the broker restarts. Apache Kafka
// 4.4 rebuilds producer state from the snapshot its shutdown wrote, which
// keeps each producer's last batch only: a retry of the third batch is now
// OUT_OF_ORDER_SEQUENCE_NUMBER, a retry of the fourth a duplicate (its
// first write's offset), and the next sequence, 8, is taken at offset 8.
func RestartWindow(ctx context.Context, c Killer, topic string) error {
	return window(ctx, c, topic, false)
}

// CrashWindow is RestartWindow with the broker killed (kill -9) instead of
// shut down. No snapshot is written at the crash, but Apache Kafka 4.4's
// log recovery snapshots the producer state it rebuilt and reloads it, so
// here too only each producer's last batch is remembered: the same answers
// as after a clean restart.
func CrashWindow(ctx context.Context, c Killer, topic string) error {
	return window(ctx, c, topic, true)
}

func window(ctx context.Context, c Killer, topic string, crash bool) error {
	const p = 0
	leader, _, err := waitISR(ctx, c, 1)
	if err != nil {
		return err
	}
	conn, err := c.Dial(ctx, leader)
	if err != nil {
		return err
	}
	pid, epoch, err := initProducerID(ctx, conn)
	if err != nil {
		conn.Close()
		return err
	}
	send := func(conn *protocol.Conn, seq int32) (int64, error) {
		recs := recordsOf(fmt.Sprintf("s%d", seq), fmt.Sprintf("s%d", seq+1))
		return produce(ctx, conn, topic, p, producerBatch(recs, 2, 0, pid, epoch, seq))
	}
	for _, seq := range []int32{0, 2, 4, 6} {
		if base, err := send(conn, seq); err != nil || base != int64(seq) {
			conn.Close()
			return fmt.Errorf("sequence %d: base offset %d, %v; want %d", seq, base, err, seq)
		}
	}
	base, err := send(conn, 2)
	conn.Close()
	if err != nil || base != 2 {
		return fmt.Errorf("retry of sequence 2 before the restart: base offset %d, %v; Kafka answers its first write's, 2", base, err)
	}
	stop := c.Stop
	if crash {
		stop = c.Kill
	}
	if err := stop(ctx, leader); err != nil {
		return fmt.Errorf("stopping broker %d: %w", leader, err)
	}
	if err := c.Start(ctx, leader); err != nil {
		return fmt.Errorf("starting broker %d: %w", leader, err)
	}
	if err := untilLeader(ctx, c, leader); err != nil {
		return err
	}
	conn, err = c.Dial(ctx, leader)
	if err != nil {
		return err
	}
	defer conn.Close()
	// The first produce after the restart may meet a partition still being
	// loaded: wait out the retriable answers, which write nothing.
	base, err = retriable(ctx, func() (int64, error) { return send(conn, 4) })
	var errs []error
	if !errors.Is(err, protocol.ErrOutOfOrderSequenceNumber) {
		errs = append(errs, fmt.Errorf("retry of sequence 4 after the restart (crash: %v): %s (base offset %d); Kafka answers OUT_OF_ORDER_SEQUENCE_NUMBER", crash, answer(err), base))
	}
	if base, err := send(conn, 6); err != nil || base != 6 {
		errs = append(errs, fmt.Errorf("retry of sequence 6, the last batch, after the restart: base offset %d, %s; Kafka answers its first write's, 6", base, answer(err)))
	}
	if base, err := send(conn, 8); err != nil || base != 8 {
		errs = append(errs, fmt.Errorf("sequence 8 after the restart: base offset %d, %s; Kafka writes it at 8", base, answer(err)))
	}
	active, err := describeProducers(ctx, conn, topic, p)
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	var last []int32
	for _, a := range active {
		if a.ProducerID == pid {
			last = append(last, a.LastSequence)
		}
	}
	if len(last) != 1 || last[0] != 9 {
		errs = append(errs, fmt.Errorf("DescribeProducers: the producer's last sequence %v; Kafka reports 9", last))
	}
	return errors.Join(errs...)
}
