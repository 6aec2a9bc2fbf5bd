package kafkacheck

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/rollsafe/rollsafe/protocol"
)

// Replicas is what MinInsync needs of a cluster holding partition 0 of a
// topic on two replicas with min.insync.replicas=2: connections to
// brokers, the partition's leader and in-sync replicas as the cluster's
// metadata says, and controlled shutdowns and starts of brokers.
type Replicas interface {
	Dial(ctx context.Context, id int32) (*protocol.Conn, error)
	State(ctx context.Context) (leader int32, isr []int32, err error)
	Stop(ctx context.Context, id int32) error
	Start(ctx context.Context, id int32) error
}

// MinInsync shows what a leader answers while its in-sync replicas are
// fewer than min.insync.replicas (2), and checks it against Apache Kafka
// 4.4: with both replicas in sync acks=all is taken; with the follower
// stopped, acks=all is NOT_ENOUGH_REPLICAS and not written, acks=1 is
// written and its offset answered, and the high watermark does not cover
// it (a consumer cannot read it) until the follower is back in sync; then
// acks=all is taken again. The follower is running again when it returns.
func MinInsync(ctx context.Context, c Replicas, topic string) error {
	_, follower, conn, err := inSync(ctx, c, 2)
	if err != nil {
		return err
	}
	defer conn.Close()
	var errs []error
	send := func(what string, acks int16, want error, wantOffset int64) {
		base, err := produceAcks(ctx, conn, topic, 0, batchOf(recordsOf(what), 1, 0), acks)
		switch {
		case want != nil && !errors.Is(err, want):
			errs = append(errs, fmt.Errorf("%s: %s; Kafka answers %s", what, answer(err), answer(want)))
		case want == nil && (err != nil || base != wantOffset):
			errs = append(errs, fmt.Errorf("%s: base offset %d, %s; Kafka writes it at %d", what, base, answer(err), wantOffset))
		}
	}
	hw := func(what string, want int64) {
		if got, _, err := protocol.ListOffsets(ctx, conn, topic, 0, protocol.ListLatest); err != nil || got != want {
			errs = append(errs, fmt.Errorf("high watermark %s: %d, %v; Kafka has it at %d", what, got, err, want))
		}
	}
	send("acks=all, two in sync", -1, nil, 0)
	if err := c.Stop(ctx, follower); err != nil {
		return err
	}
	if _, _, err := waitISR(ctx, c, 1); err != nil {
		return errors.Join(err, c.Start(ctx, follower))
	}
	send("acks=all, one in sync", -1, protocol.ErrNotEnoughReplicas, -1)
	send("acks=1, one in sync", 1, nil, 1)
	hw("with one in sync after an acks=1 write at 1", 1)
	if err := c.Start(ctx, follower); err != nil {
		return errors.Join(append(errs, err)...)
	}
	if _, _, err := waitISR(ctx, c, 2); err != nil {
		return errors.Join(append(errs, err)...)
	}
	send("acks=all, two in sync again", -1, nil, 2)
	hw("with two in sync again", 3)
	return errors.Join(errs...)
}

// waitISR waits until the partition has n in-sync replicas.
func waitISR(ctx context.Context, c Replicas, n int) (int32, []int32, error) {
	for {
		leader, isr, err := c.State(ctx)
		if err == nil && leader >= 0 && len(isr) == n && slices.Contains(isr, leader) {
			return leader, isr, nil
		}
		select {
		case <-ctx.Done():
			return -1, nil, fmt.Errorf("waiting for %d in-sync replicas (now leader %d, ISR %v, %v): %w", n, leader, isr, err, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// inSync waits until the partition has n in-sync replicas and returns its
// leader, a follower in sync and a connection to the leader.
func inSync(ctx context.Context, c Replicas, n int) (leader, follower int32, conn *protocol.Conn, err error) {
	leader, isr, err := waitISR(ctx, c, n)
	if err != nil {
		return -1, -1, nil, err
	}
	follower = isr[0]
	if follower == leader {
		follower = isr[1]
	}
	conn, err = c.Dial(ctx, leader)
	return leader, follower, conn, err
}
