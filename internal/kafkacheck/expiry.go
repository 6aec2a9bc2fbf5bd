package kafkacheck

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/rollsafe/rollsafe/protocol"
)

// StampedExpiry shows that a broker expires producers by their records'
// timestamps, not by when they last wrote. Two producers write three
// batches each to partition p of topic over conn (its leader): one with
// records stamped two days ago (historical events), one stamped now. The
// broker's periodic expiry check (every check; producer.id.expiration.ms
// at its default, one day) then runs at least twice. Apache Kafka 4.4
// forgets the first producer — DescribeProducers lists only the second —
// so a retry of the first producer's second batch is written again as new
// records (a duplicate in the log), while the same retry from the second
// producer is answered with its first write's offset.
func StampedExpiry(ctx context.Context, conn *protocol.Conn, topic string, p int32, check time.Duration) error {
	pids, epochs, err := twoProducers(ctx, conn)
	if err != nil {
		return err
	}
	now := time.Now()
	stamps := [2]int64{now.Add(-48 * time.Hour).UnixMilli(), now.UnixMilli()}
	send := func(who int, seq int32) (int64, error) {
		raw := producerBatch(recordsOf(fmt.Sprintf("p%d-%d", who, seq)), 1, 0, pids[who], epochs[who], seq)
		binary.BigEndian.PutUint64(raw[27:], uint64(stamps[who])) // first timestamp
		binary.BigEndian.PutUint64(raw[35:], uint64(stamps[who])) // max timestamp
		recrc(raw)
		return produce(ctx, conn, topic, p, raw)
	}
	next := int64(0)
	for seq := int32(0); seq < 3; seq++ {
		for who := range pids {
			if base, err := send(who, seq); err != nil || base != next {
				return fmt.Errorf("producer %d sequence %d: base offset %d, %v; want %d", who, seq, base, err, next)
			}
			next++
		}
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(2*check + check/2):
	}
	active, err := describeProducers(ctx, conn, topic, p)
	if err != nil {
		return err
	}
	var listed []int64
	for _, a := range active {
		listed = append(listed, a.ProducerID)
	}
	var errs []error
	if !slices.Equal(listed, []int64{pids[1]}) {
		errs = append(errs, fmt.Errorf("DescribeProducers after the expiry checks: %v; Kafka lists only the producer stamping now, %d (not %d, stamped two days ago)", listed, pids[1], pids[0]))
	}
	if base, err := send(0, 1); err != nil || base != next {
		errs = append(errs, fmt.Errorf("retry of the expired producer's sequence 1: base offset %d, %s; Kafka writes it again, at %d", base, answer(err), next))
	}
	if base, err := send(1, 1); err != nil || base != 3 {
		errs = append(errs, fmt.Errorf("retry of the live producer's sequence 1: base offset %d, %s; Kafka answers its first write's, 3", base, answer(err)))
	}
	return errors.Join(errs...)
}
