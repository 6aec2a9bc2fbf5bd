package kafkacheck

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/rollsafe/rollsafe/protocol"
)

// ELRReplicas is a Killer that also shows partition 0's eligible leader
// replicas (KIP-966): the ELR and the last known ELR, as Kafka's
// DescribeTopicPartitions answers them.
type ELRReplicas interface {
	Killer
	Eligible(ctx context.Context) (elr, lastKnown []int32, err error)
}

// ELRCase says which replicas of ELRElection stop cleanly and which crash.
type ELRCase int

const (
	// ELRStopped: the follower, then the leader, stop (controlled).
	ELRStopped ELRCase = iota
	// ELRFollowerCrashed: the follower is killed, the leader stops.
	ELRFollowerCrashed
	// ELRLeaderCrashed: the follower stops, the leader is killed.
	ELRLeaderCrashed
	// ELRBothCrashed: the follower, then the leader, are killed.
	ELRBothCrashed
)

// ELRCases are every ELRCase.
var ELRCases = []ELRCase{ELRStopped, ELRFollowerCrashed, ELRLeaderCrashed, ELRBothCrashed}

func (k ELRCase) String() string {
	return [...]string{"stopped", "follower-crashed", "leader-crashed", "both-crashed"}[k]
}

// ELRElection shows the elections KIP-966's eligible leader replicas (ELR)
// allow and refuse, and checks them against Apache Kafka 4.4. Partition 0
// of topic has two replicas and min.insync.replicas=2. A record is written
// with both in sync (offset 0). The follower leaves: one replica in sync,
// fewer than min.insync.replicas, so the follower becomes an eligible
// leader replica (it holds everything up to the high watermark, which
// does not move while too few are in sync). The leader writes one more
// record with acks=1 (offset 1, above the high watermark) and leaves too;
// the partition has no leader.
//
// A replica that stopped cleanly is elected from the ELR when it is back —
// a clean election, no unclean.leader.election.enable needed —; one that
// crashed leaves the ELR when it registers again (Kafka cannot know what
// its log lost) and is not, while another eligible replica may come back:
// the partition waits (settle, to see it wait) for that one. Brokers the
// check stops are the caller's to start again should it fail halfway.
//   - ELRStopped: the follower, started first, is elected. Its log ends at
//     1 (the acks=1 record is gone); acks=all is refused NOT_ENOUGH_REPLICAS
//     (one in sync) and acks=1 written at 1; the old leader comes back,
//     truncates, and the partition holds e0 and e2.
//   - ELRFollowerCrashed: the follower, started first, is not elected; the
//     leader, started next, is, and the partition holds e0 and e1.
//   - ELRLeaderCrashed: the leader, started first, is not elected (it was
//     the last in sync, but the follower is eligible); the follower, started
//     next, is, acks=1 is written at 1, and the old leader, running
//     already, truncates: the partition holds e0 and e2.
//   - ELRBothCrashed: the follower, started first, is not elected; the
//     leader, started next, is not eligible either, but with no replica
//     eligible left Kafka elects the last known leader: it is, with the
//     acks=1 record its killed process left in the page cache, and the
//     partition holds e0 and e1.
func ELRElection(ctx context.Context, c ELRReplicas, topic string, k ELRCase, settle time.Duration) error {
	leader, follower, lc, err := inSync(ctx, c, 2)
	if err != nil {
		return err
	}
	defer lc.Close()
	leave := func(id int32, crash bool) error {
		if crash {
			return c.Kill(ctx, id)
		}
		return c.Stop(ctx, id)
	}
	if err := firstInSync(ctx, c, lc, follower, topic); err != nil {
		return err
	}
	if err := leave(follower, k == ELRFollowerCrashed || k == ELRBothCrashed); err != nil {
		return errors.Join(err)
	}
	if _, _, err := waitISR(ctx, c, 1); err != nil {
		return errors.Join(err)
	}
	if err := eligible(ctx, c, "with the follower gone", []int32{follower}, nil); err != nil {
		return err
	}
	if base, err := produceAcks(ctx, lc, topic, 0, batchOf(recordsOf("e1"), 1, 0), 1); err != nil || base != 1 {
		return errors.Join(fmt.Errorf("acks=1 with one in sync: base offset %d, %s; Kafka writes it at 1", base, answer(err)))
	}
	lc.Close()
	if err := leave(leader, k == ELRLeaderCrashed || k == ELRBothCrashed); err != nil {
		return errors.Join(err)
	}
	if err := untilLeader(ctx, c, -1); err != nil {
		return errors.Join(err)
	}
	// With ELR, the last in-sync replica leaves the ISR too: it is empty,
	// both replicas are eligible, and the last leader is remembered.
	if _, isr, err := c.State(ctx); err != nil || len(isr) > 0 {
		return fmt.Errorf("the partition without a leader: ISR %v (%v); Kafka's is empty", isr, err)
	}
	if err := eligible(ctx, c, "without a leader", []int32{leader, follower}, []int32{leader}); err != nil {
		return err
	}
	first, second := follower, leader // started in this order
	elected, want := follower, []string{"e0", "e2"}
	switch k {
	case ELRFollowerCrashed, ELRBothCrashed:
		elected, want = leader, []string{"e0", "e1"}
	case ELRLeaderCrashed:
		first, second = leader, follower
	}
	var errs []error
	if err := c.Start(ctx, first); err != nil {
		return errors.Join(err)
	}
	if first != elected {
		wait, cancel := context.WithTimeout(ctx, settle)
		err := untilLeader(wait, c, first)
		cancel()
		// Back from its crash, first is no longer eligible.
		if err := eligible(ctx, c, fmt.Sprintf("with broker %d back from its crash", first), []int32{second}, []int32{leader}); err != nil {
			errs = append(errs, err)
		}
		if err == nil {
			errs = append(errs, fmt.Errorf("broker %d, back after a crash, was elected; Kafka keeps the partition without a leader until the eligible replica %d is back", first, second))
		}
		if err := c.Start(ctx, second); err != nil {
			return errors.Join(append(errs, err)...)
		}
	}
	elect, cancel := context.WithTimeout(ctx, 30*time.Second)
	err = untilLeader(elect, c, elected)
	cancel()
	if err != nil {
		return errors.Join(append(errs, fmt.Errorf("broker %d not elected (%w); Kafka elects it from the eligible leader replicas", elected, err))...)
	}
	// The old leader stays eligible where it stopped cleanly and is still
	// down; a crashed replica never is again.
	stillEligible := []int32(nil)
	if k == ELRStopped {
		stillEligible = []int32{leader}
	}
	if err := eligible(ctx, c, fmt.Sprintf("with broker %d elected", elected), stillEligible, nil); err != nil {
		errs = append(errs, err)
	}
	nc, err := c.Dial(ctx, elected)
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	defer nc.Close()
	if elected == follower && second == leader {
		// The old leader is still down: one replica in sync.
		// NOT_ENOUGH_REPLICAS is retriable: it ends the retries (a new
		// leader may answer NOT_LEADER_OR_FOLLOWER for a moment first).
		var last error
		_, err := retriable(ctx, func() (int64, error) {
			base, err := produceAcks(ctx, nc, topic, 0, batchOf(recordsOf("refused"), 1, 0), -1)
			if last = err; errors.Is(err, protocol.ErrNotEnoughReplicas) {
				return base, nil
			}
			return base, err
		})
		if err != nil || !errors.Is(last, protocol.ErrNotEnoughReplicas) {
			errs = append(errs, fmt.Errorf("acks=all to the leader elected from the ELR: %s; Kafka answers NOT_ENOUGH_REPLICAS (one in sync)", answer(last)))
		}
	}
	if elected == follower {
		if base, err := retriable(ctx, func() (int64, error) {
			return produceAcks(ctx, nc, topic, 0, batchOf(recordsOf("e2"), 1, 0), 1)
		}); err != nil || base != 1 {
			errs = append(errs, fmt.Errorf("acks=1 to the leader elected from the ELR: base offset %d, %s; Kafka writes it at 1 (the old leader's acks=1 record gone)", base, answer(err)))
		}
		if second == leader {
			if err := c.Start(ctx, leader); err != nil {
				return errors.Join(append(errs, err)...)
			}
		}
	}
	if _, _, err := waitISR(ctx, c, 2); err != nil {
		return errors.Join(append(errs, err)...)
	}
	if err := eligible(ctx, c, "with both in sync again", nil, nil); err != nil {
		errs = append(errs, err)
	}
	// The leader's high watermark moves on the follower's next fetch.
	var recs []logRecord
	var hw int64
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if recs, _, hw, err = readLog(ctx, nc, topic, 0, 0, int64(len(want))); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil || !slices.Equal(values(recs), want) || hw != int64(len(want)) {
		errs = append(errs, fmt.Errorf("the log with both in sync again: %v, high watermark %d, %v; Kafka holds %v, %d", values(recs), hw, err, want, len(want)))
	}
	return errors.Join(errs...)
}

// followerHW waits until the follower behind conn reports a high
// watermark of at least hw (Fetch v11+, which a follower serves).
func followerHW(ctx context.Context, conn *protocol.Conn, topic string, hw int64) error {
	for {
		r, err := protocol.Fetch(ctx, conn, protocol.FetchOptions{Topic: topic, Partition: 0, Offset: 0, CurrentLeaderEpoch: protocol.NoLeaderEpoch})
		if err == nil && r.HighWatermark >= hw {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the follower's high watermark stays below %d (%v): %w", hw, err, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// eligible checks the partition's eligible leader replicas (in any order)
// and last known ELR against Kafka's, at the moment named by at: a state
// that holds until the check's next step, so it is asked again for a few
// seconds (the broker answering may learn of it a moment after the one
// that showed the step done).
func eligible(ctx context.Context, c ELRReplicas, at string, wantELR, wantLastKnown []int32) error {
	wantELR = slices.Sorted(slices.Values(wantELR))
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		elr, lastKnown, err := c.Eligible(ctx)
		elr = slices.Sorted(slices.Values(elr))
		if err == nil && slices.Equal(elr, wantELR) && slices.Equal(lastKnown, wantLastKnown) {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			if err != nil {
				return fmt.Errorf("eligible leader replicas %s: %w", at, err)
			}
			return fmt.Errorf("%s: ELR %v, last known ELR %v; Kafka's are %v, %v", at, elr, lastKnown, wantELR, wantLastKnown)
		}
	}
}

// firstInSync writes e0 with acks=all to partition 0's leader (lc) with
// both replicas in sync, at offset 0, and waits until the follower has
// learnt the high watermark (1) on its next fetch.
func firstInSync(ctx context.Context, c Replicas, lc *protocol.Conn, follower int32, topic string) error {
	// A leader just elected for a new topic may answer
	// NOT_LEADER_OR_FOLLOWER for a moment.
	if base, err := retriable(ctx, func() (int64, error) {
		return produceAcks(ctx, lc, topic, 0, batchOf(recordsOf("e0"), 1, 0), -1)
	}); err != nil || base != 0 {
		return fmt.Errorf("acks=all with both in sync: base offset %d, %s; Kafka writes it at 0", base, answer(err))
	}
	fc, err := c.Dial(ctx, follower)
	if err != nil {
		return err
	}
	defer fc.Close()
	return followerHW(ctx, fc, topic, 1)
}
