package client

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/batching"
	"github.com/rollsafe/rollsafe/idempotence"
	"github.com/rollsafe/rollsafe/protocol"
)

// batchReady receives each closed, compressed batch from the accumulator
// (in order per partition) and hands it to the idempotence machine.
func (p *Producer) batchReady(b *batching.Batch) {
	tp := idempotence.TopicPartition{Topic: b.TP.Topic, Partition: b.TP.Partition}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ctx.Err() != nil {
		p.failBatchLocked(&batchState{b: b}, closedErr(false))
		return
	}
	p.nextID++
	id := p.nextID
	p.batches[id] = &batchState{b: b}
	p.partLocked(tp)
	p.idem.Enqueue(tp, id, int32(b.Records), time.Now().Add(p.cfg.deliveryTimeout))
	p.processEventsLocked()
	p.wakeLocked(tp)
}

// partLocked returns the engine's record of tp, creating it (and telling
// the idempotence machine its leader) on first use.
func (p *Producer) partLocked(tp idempotence.TopicPartition) *partition {
	pt := p.parts[tp]
	if pt != nil {
		return pt
	}
	pt = &partition{tp: tp, leader: -1, leaderEpoch: -1}
	p.parts[tp] = pt
	if leader, epoch, err := p.meta.Leader(tp.Topic, tp.Partition); err == nil && leader >= 0 {
		pt.leader, pt.leaderEpoch = leader, epoch
		p.idem.LeaderChanged(tp, leader, epoch)
	} else {
		p.kickMetadata()
	}
	return pt
}

// wakeLocked tells tp's leader's sender that tp may have work.
func (p *Producer) wakeLocked(tp idempotence.TopicPartition) {
	pt := p.parts[tp]
	if pt == nil || pt.leader < 0 || p.ctx.Err() != nil {
		return
	}
	s := p.senders[pt.leader]
	if s == nil {
		s = newSender(p, pt.leader)
		p.senders[pt.leader] = s
		p.wg.Add(1)
		go func() { defer p.wg.Done(); s.run() }()
	}
	s.wake(tp)
}

// processEventsLocked carries out every decision the idempotence machine
// has made since the last call.
func (p *Producer) processEventsLocked() {
	for {
		evs := p.idem.Events()
		if len(evs) == 0 {
			return
		}
		for _, ev := range evs {
			p.handleEventLocked(ev)
		}
	}
}

func (p *Producer) handleEventLocked(ev idempotence.Event) {
	switch e := ev.(type) {
	case idempotence.Delivered:
		bs := p.batches[e.ID]
		if bs == nil {
			return
		}
		delete(p.batches, e.ID)
		p.hooks.BatchAcked(e.TP.Topic, e.TP.Partition, bs.b.Records, e.BaseOffset)
		if e.BaseOffset >= 0 {
			for i, tok := range bs.b.Tokens {
				tok.(*Record).Offset = e.BaseOffset + int64(i)
			}
		}
		p.calls.pushTokens(bs.b.Tokens, nil)
		p.acc.Release(bs.b)
	case idempotence.Failed:
		bs := p.batches[e.ID]
		if bs == nil {
			return
		}
		delete(p.batches, e.ID)
		p.failBatchLocked(bs, brokerError(e.Err))
	case idempotence.ReadTail:
		p.hooks.TailRead(e.TP.Topic, e.TP.Partition, e.FromOffset)
		p.startTailReadLocked(e.TP, e.FromOffset)
	case idempotence.DataLoss:
		dl := DataLoss{Topic: e.TP.Topic, Partition: e.TP.Partition, FromOffset: e.FromOffset, ToOffset: e.ToOffset, Records: e.Records}
		p.log.Warn("rollsafe: acknowledged records lost from the log", "topic", dl.Topic, "partition", dl.Partition, "from", dl.FromOffset, "to", dl.ToOffset, "records", dl.Records)
		p.hooks.DataLossDetected(dl)
		if f := p.cfg.onDataLoss; f != nil {
			p.calls.pushFunc(func() { f(dl) })
		}
	case idempotence.EpochBumped:
		p.log.Info("rollsafe: partition moved to a new producer epoch", "topic", e.TP.Topic, "partition", e.TP.Partition, "producer_id", e.ProducerID, "epoch", e.Epoch)
		p.hooks.EpochBumped(e.TP.Topic, e.TP.Partition, e.ProducerID, e.Epoch)
	case idempotence.NeedProducerID:
		p.initProducerIDLocked()
	case idempotence.NeedSplit:
		p.splitLocked(e.TP, e.ID)
	case idempotence.RefreshMetadata:
		p.partLocked(e.TP).needLeader = true
		p.kickMetadata()
	case idempotence.Wake:
		p.wakeLocked(e.TP)
	}
}

// failBatchLocked fails every record of a batch and frees it.
func (p *Producer) failBatchLocked(bs *batchState, err error) {
	p.calls.pushTokens(bs.b.Tokens, err)
	p.acc.Release(bs.b)
}

// splitLocked replaces a batch the broker found too large by smaller ones.
func (p *Producer) splitLocked(tp idempotence.TopicPartition, id idempotence.BatchID) {
	bs := p.batches[id]
	if bs == nil {
		return
	}
	limit := len(bs.b.Bytes()) / 2
	parts, err := bs.b.Split(max(limit, 1))
	if err != nil || len(parts) < 2 {
		if err == nil {
			err = errors.New("a single record exceeds the broker's message size limit")
		}
		delete(p.batches, id)
		p.idem.Split(tp, id, nil)
		p.failBatchLocked(bs, fmt.Errorf("%w: %w: %w", ErrRecordTooLarge, ErrNotWritten, err))
		return
	}
	delete(p.batches, id)
	ps := make([]idempotence.Part, len(parts))
	for i, nb := range parts {
		p.nextID++
		p.batches[p.nextID] = &batchState{b: nb}
		ps[i] = idempotence.Part{ID: p.nextID, Records: int32(nb.Records)}
	}
	p.acc.Release(bs.b)
	p.idem.Split(tp, id, ps)
	p.wakeLocked(tp)
}

// initProducerIDLocked asks the cluster for a producer id in the
// background, retrying until it succeeds or the producer closes.
func (p *Producer) initProducerIDLocked() {
	if p.initing || p.ctx.Err() != nil {
		return
	}
	p.initing = true
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		backoff := 50 * time.Millisecond
		for {
			ctx, cancel := context.WithTimeout(p.ctx, p.cfg.requestTimeout)
			id, epoch, err := p.initProducerID(ctx)
			cancel()
			if err == nil {
				p.mu.Lock()
				p.initing = false
				p.idem.SetIdentity(id, epoch)
				p.processEventsLocked()
				for tp := range p.parts {
					p.wakeLocked(tp)
				}
				p.mu.Unlock()
				p.log.Debug("rollsafe: producer id", "producer_id", id, "epoch", epoch)
				return
			}
			p.log.Warn("rollsafe: InitProducerId failed", "err", err)
			select {
			case <-p.ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(backoff*2, 2*time.Second)
		}
	}()
}

// kickMetadata asks the metadata loop for a refresh (coalesced).
func (p *Producer) kickMetadata() {
	select {
	case p.metaKick <- struct{}{}:
	default:
	}
}

// metadataLoop refreshes metadata when kicked and every MetadataMaxAge, and
// moves partitions whose leader changed to their new leader's sender. A
// failed refresh is retried after a short pause.
func (p *Producer) metadataLoop() {
	t := time.NewTicker(p.cfg.metadataMaxAge)
	defer t.Stop()
	var retry <-chan time.Time
	backoff := 100 * time.Millisecond
	for {
		select {
		case <-p.ctx.Done():
			return
		case <-t.C:
		case <-p.metaKick:
		case <-retry:
		}
		retry = nil
		if err := p.refreshMetadata(); err != nil {
			p.log.Debug("rollsafe: metadata refresh failed", "err", err)
			retry = time.After(backoff)
			backoff = min(backoff*2, 5*time.Second)
		} else {
			backoff = 100 * time.Millisecond
		}
		// A short pause coalesces storms of refresh requests.
		select {
		case <-p.ctx.Done():
			return
		case <-time.After(p.cfg.retryBackoff):
		}
	}
}

func (p *Producer) refreshMetadata() error {
	p.mu.Lock()
	topics := map[string]bool{}
	for tp := range p.parts {
		topics[tp.Topic] = true
	}
	p.mu.Unlock()
	names := make([]string, 0, len(topics))
	for t := range topics {
		names = append(names, t)
	}
	ctx, cancel := context.WithTimeout(p.ctx, p.cfg.requestTimeout)
	err := p.meta.Refresh(ctx, names...)
	cancel()
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for tp, pt := range p.parts {
		leader, epoch, err := p.meta.Leader(tp.Topic, tp.Partition)
		if err != nil || leader < 0 {
			continue
		}
		p.setLeaderLocked(pt, leader, epoch)
	}
	p.processEventsLocked()
	return nil
}

// setLeaderLocked records a (possibly) new leader for a partition.
// The idempotence machine holds a partition that asked for a refresh until
// it is told the leader again, even if it did not change.
func (p *Producer) setLeaderLocked(pt *partition, leader, epoch int32) {
	if pt.leader == leader && pt.leaderEpoch == epoch && !pt.needLeader {
		p.wakeLocked(pt.tp)
		return
	}
	if pt.leaderEpoch > epoch && epoch >= 0 {
		return // older than what we know
	}
	pt.leader, pt.leaderEpoch, pt.needLeader = leader, epoch, false
	p.idem.LeaderChanged(pt.tp, leader, epoch)
	p.wakeLocked(pt.tp)
}

// tickLoop lets the idempotence machine act on passed delivery deadlines.
func (p *Producer) tickLoop() {
	t := time.NewTicker(tickInterval)
	defer t.Stop()
	for {
		select {
		case <-p.ctx.Done():
			return
		case now := <-t.C:
			p.mu.Lock()
			p.idem.Tick(now)
			p.processEventsLocked()
			p.mu.Unlock()
		}
	}
}

// tickInterval is how late a delivery deadline may be noticed.
const tickInterval = 50 * time.Millisecond

// initProducerID asks any broker for a new idempotent producer id.
func (p *Producer) initProducerID(ctx context.Context) (int64, int16, error) {
	conn, err := p.pool.Any(ctx)
	if errors.Is(err, protocol.ErrNoBroker) {
		// No metadata yet: learn the brokers, then ask again at once.
		if rerr := p.meta.Refresh(ctx); rerr != nil {
			return 0, 0, errors.Join(err, rerr)
		}
		conn, err = p.pool.Any(ctx)
	}
	if err != nil {
		return 0, 0, err
	}
	req := kmsg.NewPtrInitProducerIDRequest()
	req.TransactionTimeoutMillis = 60000
	req.ProducerID = -1
	req.ProducerEpoch = -1
	resp, err := conn.Request(ctx, req)
	if err != nil {
		return 0, 0, err
	}
	r := resp.(*kmsg.InitProducerIDResponse)
	if err := protocol.ErrorForCode(r.ErrorCode); err != nil {
		return 0, 0, authError(fmt.Errorf("client: InitProducerId: %w", err))
	}
	return r.ProducerID, r.ProducerEpoch, nil
}
