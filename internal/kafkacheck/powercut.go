package kafkacheck

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// PowerCutter is an ELRReplicas whose brokers can also lose power.
type PowerCutter interface {
	ELRReplicas
	// CutPower stops id as a power cut to its host does: of partition 0 it
	// keeps only what its other replica holds (kafkatest: kill -9, then the
	// log cut back to where the stopped replica's ends; the sim: CutPower).
	CutPower(ctx context.Context, id int32) error
}

// PowerCut shows what a power cut takes from a leader left alone in the
// ISR, and checks it against Apache Kafka 4.4. Partition 0 of topic has
// two replicas and min.insync.replicas=1. e0 is written with both in sync
// (offset 0); the follower is killed and the ISR shrinks to the leader,
// which takes e1 with acks=all (offset 1, acknowledged by it alone). Its
// power is cut, with e1 in its page cache only: the partition has no
// leader, an empty ISR, the leader its eligible and last known leader
// replica (fewer in sync than min.insync.replicas: none). Started again,
// the leader is elected — the last leader — without e1, and is the ISR
// alone, nobody eligible: acks=all e2 is written at 1. The follower back
// and in sync, the log is e0 e2, high watermark 2. The follower is running
// again when it returns nil.
func PowerCut(ctx context.Context, c PowerCutter, topic string) error {
	leader, follower, lc, err := inSync(ctx, c, 2)
	if err != nil {
		return err
	}
	defer lc.Close()
	if err := firstInSync(ctx, c, lc, follower, topic); err != nil {
		return err
	}
	if err := c.Kill(ctx, follower); err != nil {
		return err
	}
	if _, _, err := waitISR(ctx, c, 1); err != nil {
		return err
	}
	if err := eligible(ctx, c, "with the follower gone", nil, nil); err != nil {
		return err
	}
	if base, err := produceAcks(ctx, lc, topic, 0, batchOf(recordsOf("e1"), 1, 0), -1); err != nil || base != 1 {
		return fmt.Errorf("acks=all with the leader alone in the ISR (min.insync.replicas=1): base offset %d, %s; Kafka writes it at 1", base, answer(err))
	}
	lc.Close()
	if err := c.CutPower(ctx, leader); err != nil {
		return err
	}
	if err := untilLeader(ctx, c, -1); err != nil {
		return err
	}
	var errs []error
	if _, isr, err := c.State(ctx); err != nil || len(isr) > 0 {
		errs = append(errs, fmt.Errorf("the partition without a leader: ISR %v (%v); Kafka's is empty", isr, err))
	}
	if err := eligible(ctx, c, "without a leader", []int32{leader}, []int32{leader}); err != nil {
		errs = append(errs, err)
	}
	if err := c.Start(ctx, leader); err != nil {
		return errors.Join(append(errs, err)...)
	}
	elect, cancel := context.WithTimeout(ctx, 30*time.Second)
	err = untilLeader(elect, c, leader)
	cancel()
	if err != nil {
		return errors.Join(append(errs, fmt.Errorf("broker %d, the last leader, back from the power cut, not elected (%w); Kafka elects it", leader, err))...)
	}
	if _, isr, err := c.State(ctx); err != nil || !slices.Equal(isr, []int32{leader}) {
		errs = append(errs, fmt.Errorf("the last leader elected again: ISR %v (%v); Kafka's is [%d]", isr, err, leader))
	}
	if err := eligible(ctx, c, "with the last leader elected again", nil, nil); err != nil {
		errs = append(errs, err)
	}
	nc, err := c.Dial(ctx, leader)
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	defer nc.Close()
	if base, err := retriable(ctx, func() (int64, error) {
		return produceAcks(ctx, nc, topic, 0, batchOf(recordsOf("e2"), 1, 0), -1)
	}); err != nil || base != 1 {
		errs = append(errs, fmt.Errorf("acks=all after the power cut: base offset %d, %s; Kafka writes it at 1 (e1 lost with the page cache)", base, answer(err)))
	}
	if err := c.Start(ctx, follower); err != nil {
		return errors.Join(append(errs, err)...)
	}
	if _, _, err := waitISR(ctx, c, 2); err != nil {
		return errors.Join(append(errs, err)...)
	}
	want := []string{"e0", "e2"}
	var recs []logRecord
	var hw int64
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		recs, _, hw, err = readLog(ctx, nc, topic, 0, 0, int64(len(want)))
		if (err == nil && hw == int64(len(want))) || time.Now().After(deadline) {
			break
		}
	}
	if err != nil || !slices.Equal(values(recs), want) || hw != int64(len(want)) {
		errs = append(errs, fmt.Errorf("the log after the power cut, both in sync again: %v, high watermark %d, %v; Kafka holds %v, %d", values(recs), hw, err, want, len(want)))
	}
	return errors.Join(errs...)
}
