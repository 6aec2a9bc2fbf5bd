package kafkacheck

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/rollsafe/rollsafe/protocol"
)

// Uncleaner is Replicas that can also freeze a follower (it stops copying
// and leaves the ISR) and play an unclean election: kill the leader, thaw
// the frozen replica and elect it, returning once it leads.
type Uncleaner interface {
	Replicas
	Freeze(ctx context.Context, id int32) error
	ElectUnclean(ctx context.Context, dead, to int32) error
}

// UncleanWindow shows what an unclean election does to a producer's
// records and state, and checks it against Apache Kafka 4.4. Partition 0
// of topic has two replicas, min.insync.replicas=1 and unclean leader
// election enabled. A producer writes two batches (sequences 0 and 2, two
// records each) with both in sync; the follower freezes and leaves the
// ISR; the leader alone acknowledges two more (sequences 4 and 6, offsets
// 4-7). The leader dies and the stale follower is elected: its log ends at
// 4, the acknowledged offsets 4-7 are gone. It knows the producer from the
// batches it copied: a retry of sequence 2 is answered with its offset, 2;
// the retries of the lost batches, 4 and 6, are taken and written again at
// 4 and 6. The old leader restarts and truncates to the new leader's log:
// once both are in sync, the log holds the eight records once each.
func UncleanWindow(ctx context.Context, c Uncleaner, topic string) error {
	leader, stale, lc, err := inSync(ctx, c, 2)
	if err != nil {
		return err
	}
	defer lc.Close()
	pid, epoch, err := initProducerID(ctx, lc)
	if err != nil {
		return err
	}
	batch := func(seq int32) []byte {
		recs := recordsOf(fmt.Sprintf("s%d", seq), fmt.Sprintf("s%d", seq+1))
		return producerBatch(recs, 2, 0, pid, epoch, seq)
	}
	write := func(seq int32) error {
		if base, err := produce(ctx, lc, topic, 0, batch(seq)); err != nil || base != int64(seq) {
			return fmt.Errorf("sequence %d to the old leader: base offset %d, %v; want %d", seq, base, err, seq)
		}
		return nil
	}
	for _, seq := range []int32{0, 2} {
		if err := write(seq); err != nil {
			return err
		}
	}
	if err := c.Freeze(ctx, stale); err != nil {
		return err
	}
	if _, _, err := waitISR(ctx, c, 1); err != nil {
		return err
	}
	for _, seq := range []int32{4, 6} {
		if err := write(seq); err != nil {
			return err
		}
	}
	if err := c.ElectUnclean(ctx, leader, stale); err != nil {
		return fmt.Errorf("unclean election of %d: %w", stale, err)
	}
	nc, err := c.Dial(ctx, stale)
	if err != nil {
		return err
	}
	defer nc.Close()
	var errs []error
	end, err := retriable(ctx, func() (int64, error) {
		o, _, err := protocol.ListOffsets(ctx, nc, topic, 0, protocol.ListLatest)
		return o, err
	})
	if err != nil || end != 4 {
		errs = append(errs, fmt.Errorf("the new leader's high watermark: %d, %v; Kafka's is 4, the acknowledged 4-7 lost", end, err))
	}
	for _, tc := range []struct {
		seq  int32
		want int64
		what string
	}{{2, 2, "its offset, 2"}, {4, 4, "a new write at 4"}, {6, 6, "a new write at 6"}} {
		base, err := retriable(ctx, func() (int64, error) { return produce(ctx, nc, topic, 0, batch(tc.seq)) })
		if err != nil || base != tc.want {
			errs = append(errs, fmt.Errorf("retry of sequence %d on the new leader: base offset %d, %s; Kafka answers %s", tc.seq, base, answer(err), tc.what))
		}
	}
	if err := c.Start(ctx, leader); err != nil {
		return errors.Join(append(errs, err)...)
	}
	if _, _, err := waitISR(ctx, c, 2); err != nil {
		return errors.Join(append(errs, err)...)
	}
	recs, _, hw, err := readLog(ctx, nc, topic, 0, 0, 8)
	want := []string{"s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7"}
	if err != nil || !slices.Equal(values(recs), want) || hw != 8 {
		errs = append(errs, fmt.Errorf("the log with both in sync again: %v, high watermark %d, %v; Kafka holds %v, 8", values(recs), hw, err, want))
	}
	return errors.Join(errs...)
}

// untilLeader waits until the partition is led by id.
func untilLeader(ctx context.Context, c Replicas, id int32) error {
	for {
		leader, _, err := c.State(ctx)
		if err == nil && leader == id {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for broker %d to lead (now %d, %v): %w", id, leader, err, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
