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

// Pauser is Replicas that can also pause a broker (it stops copying from
// its leaders while staying in their ISR until replica.lag.time.max.ms
// drops it) and resume it.
type Pauser interface {
	Replicas
	Pause(ctx context.Context, id int32) error
	Resume(ctx context.Context, id int32) error
}

// PendingBatch shows a batch whose acks=all answer is REQUEST_TIMED_OUT
// while it sits in the leader's log above the high watermark — the
// outcome a producer cannot know — and checks it against Apache Kafka 4.4.
// On partition 0 of topic (two replicas, both in sync) a producer writes a
// batch (offsets 0-1); the follower is paused; the next batch (sequence 2,
// three records), sent with a 1 s timeout, is answered REQUEST_TIMED_OUT.
// Then, the follower still in the ISR: ListOffsets latest is 2 and Fetch
// at 2 returns nothing (a reader sees only up to the high watermark), and
// DescribeProducers on the leader already lists the batch's last sequence,
// 4. Once the follower resumes the batch commits: the high watermark
// reaches 5, Fetch returns it once, and a retry of it is answered with its
// offset, 2, not written again.
func PendingBatch(ctx context.Context, c Pauser, topic string) error {
	_, follower, conn, err := inSync(ctx, c, 2)
	if err != nil {
		return err
	}
	defer conn.Close()
	pid, epoch, err := initProducerID(ctx, conn)
	if err != nil {
		return err
	}
	second := producerBatch(recordsOf("b0", "b1", "b2"), 3, 0, pid, epoch, 2)
	if base, err := produce(ctx, conn, topic, 0, producerBatch(recordsOf("a0", "a1"), 2, 0, pid, epoch, 0)); err != nil || base != 0 {
		return fmt.Errorf("first batch: base offset %d, %v; want 0", base, err)
	}
	if err := c.Pause(ctx, follower); err != nil {
		return err
	}
	paused := true
	defer func() {
		if paused {
			_ = c.Resume(ctx, follower)
		}
	}()
	var errs []error
	req := produceRequest(topic, 0, second, -1)
	req.TimeoutMillis = 1000
	resp, err := conn.Request(ctx, req)
	if err != nil {
		return fmt.Errorf("second batch: %w", err)
	}
	pr := resp.(*kmsg.ProduceResponse)
	if len(pr.Topics) != 1 || len(pr.Topics[0].Partitions) != 1 {
		return fmt.Errorf("second batch: a response of %d topics for one partition", len(pr.Topics))
	}
	if code := kafkaerr.Code(pr.Topics[0].Partitions[0].ErrorCode); code != kafkaerr.RequestTimedOut {
		errs = append(errs, fmt.Errorf("second batch, the follower paused: %v; Kafka answers REQUEST_TIMED_OUT", code))
	}
	if hw, _, err := protocol.ListOffsets(ctx, conn, topic, 0, protocol.ListLatest); err != nil || hw != 2 {
		errs = append(errs, fmt.Errorf("ListOffsets latest with the batch pending: %d, %v; Kafka answers the high watermark, 2", hw, err))
	}
	if r, err := protocol.Fetch(ctx, conn, protocol.FetchOptions{Topic: topic, Offset: 2, CurrentLeaderEpoch: protocol.NoLeaderEpoch}); err != nil || len(r.Records) != 0 || r.HighWatermark != 2 {
		errs = append(errs, fmt.Errorf("Fetch at 2 with the batch pending: %d bytes, high watermark %d, %v; Kafka returns nothing, 2", len(r.Records), r.HighWatermark, err))
	}
	if active, err := describeProducers(ctx, conn, topic, 0); err != nil || len(active) != 1 || active[0].LastSequence != 4 {
		errs = append(errs, fmt.Errorf("DescribeProducers with the batch pending: %+v, %v; Kafka lists the pending batch's last sequence, 4", active, err))
	}
	paused = false
	if err := c.Resume(ctx, follower); err != nil {
		return errors.Join(append(errs, err)...)
	}
	for {
		hw, _, err := protocol.ListOffsets(ctx, conn, topic, 0, protocol.ListLatest)
		if err == nil && hw == 5 {
			break
		}
		select {
		case <-ctx.Done():
			return errors.Join(append(errs, fmt.Errorf("waiting for the pending batch to commit (high watermark %d, %v): %w", hw, err, ctx.Err()))...)
		case <-time.After(100 * time.Millisecond):
		}
	}
	recs, _, _, err := readLog(ctx, conn, topic, 0, 0, 5)
	if want := []string{"a0", "a1", "b0", "b1", "b2"}; err != nil || !slices.Equal(values(recs), want) {
		errs = append(errs, fmt.Errorf("the log once the batch committed: %v, %v; Kafka holds %v", values(recs), err, want))
	}
	if base, err := produce(ctx, conn, topic, 0, second); err != nil || base != 2 {
		errs = append(errs, fmt.Errorf("retry of the batch that timed out: base offset %d, %s; Kafka answers its offset, 2", base, answer(err)))
	}
	return errors.Join(errs...)
}
