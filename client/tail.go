package client

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/rollsafe/rollsafe/batching"
	"github.com/rollsafe/rollsafe/idempotence"
	"github.com/rollsafe/rollsafe/protocol"
)

// tailAttempts bounds how often one tail read is tried before the
// idempotence machine is told the log could not be read.
const tailAttempts = 8

// startTailRead reads tp's log from offset from (-1: the log start) to its
// high watermark in the background and posts the record-batch headers found
// there to the loop as a TailRead input.
func (p *Producer) startTailRead(tp idempotence.TopicPartition, from int64) {
	if p.ctx.Err() != nil {
		return
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		var tail idempotence.Tail
		backoff := 50 * time.Millisecond
		for attempt := 1; ; attempt++ {
			p.turn(turnTail, tp.Topic+"/"+strconv.Itoa(int(tp.Partition)))
			var err error
			tail, err = p.readTail(tp, from)
			if err == nil {
				break
			}
			p.log.Debug("rollsafe: tail read failed", "topic", tp.Topic, "partition", tp.Partition, "attempt", attempt, "err", err)
			if attempt == tailAttempts || p.ctx.Err() != nil {
				tail = idempotence.Tail{Err: err}
				break
			}
			p.kickMetadata()
			select {
			case <-p.ctx.Done():
			case <-time.After(backoff):
			}
			backoff = min(backoff*2, time.Second)
		}
		p.loop.in.post(idempotence.TailRead{TP: tp, Tail: tail})
	}()
}

// readTail reads what the partition's leader can show of tp from offset
// from: its producer state (DescribeProducers, which includes appends not
// yet committed), then every record-batch header up to its high watermark.
// Both go to the leader metadata names, on the producer's read connection
// (so a read never queues behind produce requests waiting for
// replication), and the fetch carries the leader epoch, so a deposed leader
// or a follower cannot answer from its own, trailing log. Each request has
// its own timeout. A principal that may write but not read the topic gets
// an Unreadable tail: what only a read could settle stays unknown.
func (p *Producer) readTail(tp idempotence.TopicPartition, from int64) (idempotence.Tail, error) {
	rctx, cancel := context.WithTimeout(p.ctx, p.cfg.requestTimeout)
	err := p.meta.Refresh(rctx, tp.Topic)
	cancel()
	if err != nil {
		return idempotence.Tail{}, err
	}
	// Reads waiting on one refresh all wake when it is answered: each
	// takes its turn again before it uses the read connection.
	key := tp.Topic + "/" + strconv.Itoa(int(tp.Partition))
	p.turn(turnTail, key)
	leader, leaderEpoch, err := p.meta.Leader(tp.Topic, tp.Partition)
	if err != nil {
		return idempotence.Tail{}, err
	}
	dctx, cancel := context.WithTimeout(p.ctx, p.cfg.dialTimeout)
	conn, err := p.readPool.Conn(dctx, leader)
	cancel()
	if err != nil {
		return idempotence.Tail{}, err
	}
	// Reads that waited for one dial of the read connection (the first
	// dials, the others wait for it) all go on when it is made: each
	// takes its turn again, so that which writes first on the shared
	// connection is the loop's order, not the scheduler's.
	p.turn(turnTail, key)
	var t idempotence.Tail
	rctx, cancel = context.WithTimeout(p.ctx, p.cfg.requestTimeout)
	states, err := protocol.DescribeProducers(rctx, conn, tp.Topic, tp.Partition)
	cancel()
	switch {
	case err == nil:
		t.Described = true
		for _, s := range states {
			t.Producers = append(t.Producers, idempotence.ProducerState{ProducerID: s.ProducerID, Epoch: s.ProducerEpoch, LastSequence: s.LastSequence})
		}
	case errors.Is(err, protocol.ErrUnsupportedVersion):
		// A broker before Kafka 2.8: the read alone must do.
	case readRefused(err):
		return idempotence.Tail{Unreadable: true, Err: err}, nil
	default:
		return idempotence.Tail{}, err
	}
	// The leader's log end, before reading: everything it holds now is
	// below it, committed or not.
	rctx, cancel = context.WithTimeout(p.ctx, p.cfg.requestTimeout)
	end, err := protocol.EndOffset(rctx, conn, tp.Topic, tp.Partition, leaderEpoch)
	cancel()
	switch {
	case err == nil:
	case errors.Is(err, protocol.ErrUnsupportedVersion) || errors.Is(err, protocol.ErrBadEndOffset):
		end = -1 // a broker before Kafka 2.3, or no epoch known: unknown
	case readRefused(err):
		return idempotence.Tail{Unreadable: true, Err: err}, nil
	default:
		return idempotence.Tail{}, err
	}
	r := partitionRead{
		conn: conn, topic: tp.Topic, part: tp.Partition, leaderEpoch: leaderEpoch,
		maxBytes: p.cfg.tailFetchBytes, timeout: p.cfg.requestTimeout,
		end: end, settle: min(p.cfg.requestTimeout, tailSettle),
	}
	headers, hw, logStart, err := r.read(p.ctx, from)
	if readRefused(err) {
		return idempotence.Tail{Unreadable: true, Err: err}, nil
	}
	if err != nil {
		return idempotence.Tail{}, err
	}
	t.LogStartOffset, t.HighWatermark, t.LogEndOffset = logStart, hw, end
	for _, h := range headers {
		t.Batches = append(t.Batches, idempotence.TailBatch{
			BaseOffset:   h.BaseOffset,
			ProducerID:   h.ProducerID,
			Epoch:        h.ProducerEpoch,
			BaseSequence: h.BaseSequence,
			Records:      h.LastOffsetDelta + 1,
		})
	}
	return t, nil
}

// readRefused reports an authorization failure: the producer may not read
// the topic, now or later.
func readRefused(err error) bool {
	return errors.Is(err, protocol.ErrTopicAuthorizationFailed) || errors.Is(err, protocol.ErrClusterAuthorizationFailed)
}

// tailSettle bounds how long one read waits for the leader's high
// watermark to reach the log end it reported.
const tailSettle = 2 * time.Second

// partitionRead reads one partition's record-batch headers from its leader.
type partitionRead struct {
	conn        *protocol.Conn
	topic       string
	part        int32
	leaderEpoch int32
	maxBytes    int32
	timeout     time.Duration // per request
	// end is the leader's log end when the read began (0: unknown): the
	// read goes on, while the high watermark is below it, for up to
	// settle, so that it sees what the leader held uncommitted.
	end    int64
	settle time.Duration
}

// read returns the headers of every record batch from offset from (-1: the
// log start) to the high watermark, as the leader of r.leaderEpoch shows
// them, and the high watermark and log start it saw last.
func (r partitionRead) read(ctx context.Context, from int64) ([]batching.BatchHeader, int64, int64, error) {
	topic, part, conn, timeout, maxBytes := r.topic, r.part, r.conn, r.timeout, r.maxBytes
	listOffsets := func(ts int64) (int64, error) {
		c, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		off, _, err := protocol.ListOffsets(c, conn, topic, part, ts)
		return off, err
	}
	if from < 0 {
		start, err := listOffsets(protocol.ListEarliest)
		if err != nil {
			return nil, 0, 0, err
		}
		from = start
	}
	var out []batching.BatchHeader
	offset := from
	var settleBy time.Time
	wait := 10 * time.Millisecond
	for {
		c, cancel := context.WithTimeout(ctx, timeout)
		res, err := protocol.Fetch(c, conn, protocol.FetchOptions{
			Topic: topic, Partition: part, Offset: offset, MaxBytes: maxBytes,
			CurrentLeaderEpoch: r.leaderEpoch, LeaderOnly: true,
		})
		cancel()
		if errors.Is(err, protocol.ErrOffsetOutOfRange) {
			// The log no longer reaches offset (truncated below it, or
			// retention moved its start past it): say what it holds now.
			start, serr := listOffsets(protocol.ListEarliest)
			end, eerr := listOffsets(protocol.ListLatest)
			if serr != nil || eerr != nil {
				return nil, 0, 0, errors.Join(err, serr, eerr)
			}
			if offset >= end {
				return out, end, start, nil // truncated: nothing at or after offset
			}
			if offset < start {
				offset = start
				continue
			}
			return nil, 0, 0, err
		}
		if err != nil {
			return nil, 0, 0, err
		}
		hw, logStart := res.HighWatermark, res.LogStartOffset
		if offset < logStart {
			offset = logStart
		}
		if offset >= hw {
			if hw >= r.end {
				return out, hw, logStart, nil
			}
			// The leader holds batches above its high watermark: wait
			// for them to commit (or for the leader to lose them).
			now := time.Now()
			if settleBy.IsZero() {
				settleBy = now.Add(r.settle)
			}
			if !now.Before(settleBy) {
				return out, hw, logStart, nil
			}
			select {
			case <-ctx.Done():
				return nil, 0, 0, ctx.Err()
			case <-time.After(min(wait, settleBy.Sub(now))):
			}
			wait = min(wait*2, 200*time.Millisecond)
			continue
		}
		hs, err := batching.ParseBatchHeaders(res.Records)
		if err != nil {
			return nil, 0, 0, fmt.Errorf("client: reading %s[%d] at %d: %w", topic, part, offset, err)
		}
		progressed := false
		for _, bh := range hs {
			end := bh.BaseOffset + int64(bh.LastOffsetDelta) + 1
			if end <= offset {
				continue // a batch that starts before offset, already seen
			}
			out = append(out, bh)
			offset = end
			progressed = true
		}
		if !progressed {
			if maxBytes >= 256<<20 {
				return nil, 0, 0, fmt.Errorf("client: reading %s[%d] at %d: no complete batch below the high watermark %d", topic, part, offset, hw)
			}
			maxBytes *= 2
		}
	}
}
