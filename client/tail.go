package client

import (
	"context"
	"errors"
	"fmt"
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

// readTail fetches tp from offset from up to the high watermark and
// collects every record-batch header found.
func (p *Producer) readTail(tp idempotence.TopicPartition, from int64) (idempotence.Tail, error) {
	ctx, cancel := context.WithTimeout(p.ctx, p.cfg.requestTimeout)
	defer cancel()
	if err := p.meta.Refresh(ctx, tp.Topic); err != nil {
		return idempotence.Tail{}, err
	}
	leader, _, err := p.meta.Leader(tp.Topic, tp.Partition)
	if err != nil {
		return idempotence.Tail{}, err
	}
	conn, err := p.pool.Conn(ctx, leader)
	if err != nil {
		return idempotence.Tail{}, err
	}
	headers, hw, logStart, err := readPartition(ctx, conn, tp.Topic, tp.Partition, from, p.cfg.tailFetchBytes)
	if err != nil {
		return idempotence.Tail{}, err
	}
	t := idempotence.Tail{LogStartOffset: logStart, HighWatermark: hw}
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

// readPartition returns the headers of every record batch in a partition
// from offset from (-1: the log start) to the high watermark.
func readPartition(ctx context.Context, conn *protocol.Conn, topic string, part int32, from int64, maxBytes int32) ([]batching.BatchHeader, int64, int64, error) {
	if from < 0 {
		start, _, err := protocol.ListOffsets(ctx, conn, topic, part, protocol.ListEarliest)
		if err != nil {
			return nil, 0, 0, err
		}
		from = start
	}
	var out []batching.BatchHeader
	offset := from
	var hw, logStart int64
	for {
		raw, h, ls, err := protocol.FetchPartition(ctx, conn, topic, part, offset, maxBytes)
		if errors.Is(err, protocol.ErrOffsetOutOfRange) {
			// The log no longer reaches offset (truncated below it, or
			// retention moved its start past it): say what it holds now.
			start, _, serr := protocol.ListOffsets(ctx, conn, topic, part, protocol.ListEarliest)
			end, _, eerr := protocol.ListOffsets(ctx, conn, topic, part, protocol.ListLatest)
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
		hw, logStart = h, ls
		if offset < logStart {
			offset = logStart
		}
		if offset >= hw {
			return out, hw, logStart, nil
		}
		hs, err := batching.ParseBatchHeaders(raw)
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
