package kafkacheck

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rollsafe/rollsafe/kafkaerr"
	"github.com/rollsafe/rollsafe/protocol"
)

// Mover is Replicas that can also move the partition's leadership to
// another in-sync replica (a preferred-leader election, a reassignment).
type Mover interface {
	Replicas
	Move(ctx context.Context, to int32) error
}

// LeaderMoveWindow shows that a new leader knows the producers the old one
// knew: its replica rebuilt their state from the batches it copied. A
// producer writes three batches (sequences 0, 2, 4, two records each,
// acks=all) to partition 0 of topic, on three replicas all in sync; the
// leadership moves to a follower. Apache Kafka 4.4's new leader answers a
// retry of each batch with its first write's offset, takes sequence 6 at
// offset 6 and lists the producer's last sequence as 7; the old leader
// answers NOT_LEADER_OR_FOLLOWER naming the new leader and its epoch
// (KIP-951).
func LeaderMoveWindow(ctx context.Context, c Mover, topic string) error {
	old, to, oc, err := inSync(ctx, c, 3)
	if err != nil {
		return err
	}
	defer oc.Close()
	pid, epoch, err := initProducerID(ctx, oc)
	if err != nil {
		return err
	}
	send := func(conn *protocol.Conn, seq int32) (int64, error) {
		recs := recordsOf(fmt.Sprintf("s%d", seq), fmt.Sprintf("s%d", seq+1))
		return produce(ctx, conn, topic, 0, producerBatch(recs, 2, 0, pid, epoch, seq))
	}
	for _, seq := range []int32{0, 2, 4} {
		if base, err := send(oc, seq); err != nil || base != int64(seq) {
			return fmt.Errorf("sequence %d: base offset %d, %v; want %d", seq, base, err, seq)
		}
	}
	if err := c.Move(ctx, to); err != nil {
		return fmt.Errorf("moving the leadership from %d to %d: %w", old, to, err)
	}
	if err := untilLeader(ctx, c, to); err != nil {
		return err
	}
	nc, err := c.Dial(ctx, to)
	if err != nil {
		return err
	}
	defer nc.Close()
	var errs []error
	for _, seq := range []int32{0, 2, 4} {
		// The new leader may not serve the partition the moment the
		// metadata names it: wait out retriable answers, which write
		// nothing.
		base, err := retriable(ctx, func() (int64, error) { return send(nc, seq) })
		if err != nil || base != int64(seq) {
			errs = append(errs, fmt.Errorf("retry of sequence %d on the new leader: base offset %d, %s; Kafka answers its first write's, %d", seq, base, answer(err), seq))
		}
	}
	if base, err := send(nc, 6); err != nil || base != 6 {
		errs = append(errs, fmt.Errorf("sequence 6 on the new leader: base offset %d, %s; Kafka writes it at 6", base, answer(err)))
	}
	recs := recordsOf("s8", "s9")
	if code, pr, err := produceAnswer(ctx, oc, topic, 0, producerBatch(recs, 2, 0, pid, epoch, 8)); err != nil || code != kafkaerr.NotLeaderOrFollower {
		errs = append(errs, fmt.Errorf("sequence 8 to the old leader: %v, %v; Kafka answers NOT_LEADER_OR_FOLLOWER", code, err))
	} else if err := checkHint(pr, to, 1); err != nil {
		errs = append(errs, fmt.Errorf("sequence 8 to the old leader: %w", err))
	}
	active, err := describeProducers(ctx, nc, topic, 0)
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	if len(active) != 1 || active[0].ProducerID != pid || active[0].LastSequence != 7 {
		errs = append(errs, fmt.Errorf("DescribeProducers on the new leader: %+v; Kafka lists producer %d with last sequence 7", active, pid))
	}
	return errors.Join(errs...)
}

// retriable calls f until it returns nil or an error that is not a
// retriable Kafka error, waiting 100 ms between calls, within ctx.
func retriable(ctx context.Context, f func() (int64, error)) (int64, error) {
	for {
		v, err := f()
		var ke *protocol.KafkaError
		if err == nil || !errors.As(err, &ke) || !ke.Retriable {
			return v, err
		}
		select {
		case <-ctx.Done():
			return v, fmt.Errorf("%w (last answer %v)", ctx.Err(), err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
