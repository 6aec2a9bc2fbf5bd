package client

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rollsafe/rollsafe/protocol"
)

// Watermarks returns a partition's log start offset (low) and high
// watermark (high: one past the last record every in-sync replica has, the
// end of what consumers can read) as its leader reports them now. high -
// low is the number of offsets a consumer can read from the start.
//
// Answers that only need another try (the leader moving, a new leader not
// ready, a broker unreachable) are retried with the leader looked up again
// until ctx ends; without a deadline on ctx the producer's request timeout
// bounds the call; the error then matches ctx's and, when last no broker
// answered a metadata request, ErrBrokersUnreachable. A topic the cluster
// lacks fails with ErrUnknownTopic, a partition it lacks with
// ErrUnknownPartition, no access with ErrAuthorization; after Close,
// ErrClosed.
func (p *Producer) Watermarks(ctx context.Context, topic string, partition int32) (low, high int64, err error) {
	ctx, done, err := p.offsetsContext(ctx)
	if err != nil {
		return -1, -1, publicError(fmt.Errorf("client: watermarks of %s[%d]: %w", topic, partition, err))
	}
	defer done()
	if low, err = p.listOffset(ctx, topic, partition, protocol.ListEarliest); err != nil {
		return -1, -1, publicError(fmt.Errorf("client: watermarks of %s[%d]: %w", topic, partition, err))
	}
	if high, err = p.listOffset(ctx, topic, partition, protocol.ListLatest); err != nil {
		return -1, -1, publicError(fmt.Errorf("client: watermarks of %s[%d]: %w", topic, partition, err))
	}
	return low, high, nil
}

// OffsetForTime returns the offset of the first record of a partition
// whose timestamp is at or after t, as its leader finds it now, or -1 when
// no record below the high watermark is that late. Errors and retries are
// as for Watermarks.
func (p *Producer) OffsetForTime(ctx context.Context, topic string, partition int32, t time.Time) (int64, error) {
	ctx, done, err := p.offsetsContext(ctx)
	if err != nil {
		return -1, publicError(fmt.Errorf("client: offset for time %s in %s[%d]: %w", t.Format(time.RFC3339Nano), topic, partition, err))
	}
	defer done()
	off, err := p.listOffset(ctx, topic, partition, max(t.UnixMilli(), 0))
	if err != nil {
		return -1, publicError(fmt.Errorf("client: offset for time %s in %s[%d]: %w", t.Format(time.RFC3339Nano), topic, partition, err))
	}
	return off, nil
}

// offsetsContext is callContext bounded by the request timeout when ctx
// has no deadline.
func (p *Producer) offsetsContext(ctx context.Context) (context.Context, func(), error) {
	ctx, done, err := p.callContext(ctx)
	if err != nil {
		return nil, nil, err
	}
	if _, ok := ctx.Deadline(); ok {
		return ctx, done, nil
	}
	ctx, cancel := context.WithTimeout(ctx, p.cfg.requestTimeout)
	return ctx, func() { cancel(); done() }, nil
}

// listOffset asks the partition's leader for the offset of ts (a
// millisecond timestamp, protocol.ListEarliest or protocol.ListLatest),
// retrying what only needs another try until ctx ends.
func (p *Producer) listOffset(ctx context.Context, topic string, partition int32, ts int64) (int64, error) {
	if partition < 0 {
		return -1, fmt.Errorf("%w %d of %q", ErrUnknownPartition, partition, topic)
	}
	backoff := 25 * time.Millisecond
	fresh := false // the first try trusts the metadata the producer has
	for {
		off, err := p.listOffsetOnce(ctx, topic, partition, ts, fresh)
		if err == nil {
			return off, nil
		}
		if p.ctx.Err() != nil {
			return -1, ErrClosed
		}
		if final, ferr := lookupFinal(err, topic, partition, fresh); final {
			return -1, ferr
		}
		fresh = true
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return -1, fmt.Errorf("%w (last answer: %w)", ctx.Err(), err)
		case <-t.C:
		}
		backoff = min(backoff*2, time.Second)
	}
}

// listOffsetOnce is one try: the leader from the producer's metadata
// (refreshed first when fresh, or when it does not know the partition),
// then ListOffsets there with the leader epoch, so a deposed leader
// refuses instead of answering from its old log.
func (p *Producer) listOffsetOnce(ctx context.Context, topic string, partition int32, ts int64, fresh bool) (int64, error) {
	leader, epoch, err := p.meta.Leader(topic, partition)
	if fresh || err != nil {
		if rerr := p.meta.Refresh(ctx, topic); rerr != nil {
			var ute *protocol.UnknownTopicError
			var ke *protocol.KafkaError
			if !errors.As(rerr, &ute) && !errors.As(rerr, &ke) {
				// No broker answered the metadata request.
				rerr = fmt.Errorf("%w: %w", ErrBrokersUnreachable, rerr)
			}
			return -1, rerr
		}
		if leader, epoch, err = p.meta.Leader(topic, partition); err != nil {
			return -1, err
		}
	}
	conn, err := p.readPool.Conn(ctx, leader)
	if err != nil {
		return -1, err
	}
	off, _, err := protocol.ListOffsetsWith(ctx, conn, protocol.ListOffsetsOptions{
		Topic: topic, Partition: partition, Timestamp: ts, CurrentLeaderEpoch: epoch,
	})
	if errors.Is(err, protocol.ErrUnsupportedVersion) && epoch >= 0 {
		// A broker before Kafka 2.1 takes no leader epoch.
		off, _, err = protocol.ListOffsetsWith(ctx, conn, protocol.ListOffsetsOptions{
			Topic: topic, Partition: partition, Timestamp: ts, CurrentLeaderEpoch: protocol.NoLeaderEpoch,
		})
	}
	return off, err
}

// lookupFinal says whether err ends a listOffset, and the error to return:
// a topic or partition the cluster lacks (by fresh metadata), refused
// access, a broker too old, or any error Kafka does not call retriable.
func lookupFinal(err error, topic string, partition int32, fresh bool) (bool, error) {
	var ute *protocol.UnknownTopicError
	switch {
	case errors.As(err, &ute) && ute.Partition < 0:
		return fresh, fmt.Errorf("%w %q: %w", ErrUnknownTopic, topic, err)
	case errors.As(err, &ute):
		return fresh, fmt.Errorf("%w %d of %q: %w", ErrUnknownPartition, partition, topic, err)
	case errors.Is(authError(err), ErrAuthorization):
		return true, authError(err)
	case errors.Is(err, ErrAuthentication), errors.Is(err, protocol.ErrUnsupportedVersion),
		errors.Is(err, protocol.ErrBadListOffsets), errors.Is(err, protocol.ErrClosed):
		return true, err
	}
	var ke *protocol.KafkaError
	if errors.As(err, &ke) && !ke.Retriable {
		return true, err
	}
	return false, err
}
