package client

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/idempotence"
	"github.com/rollsafe/rollsafe/protocol"
)

// initProducerID asks the cluster for a producer id in the background,
// retrying until it succeeds or the producer closes; the answer reaches the
// machine as a SetIdentity input.
func (l *loop) initProducerID() {
	p := l.p
	if l.initing || p.ctx.Err() != nil {
		return
	}
	l.initing = true
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		backoff := 50 * time.Millisecond
		for {
			p.turn(turnIdentity, "")
			ctx, cancel := context.WithTimeout(p.ctx, p.cfg.requestTimeout)
			id, epoch, err := p.initProducerID(ctx)
			cancel()
			if err == nil {
				p.log.Debug("rollsafe: producer id", "producer_id", id, "epoch", epoch)
				p.loop.in.post(identityIn{id, epoch})
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

// identityIn: InitProducerId answered.
type identityIn struct {
	id    int64
	epoch int16
}

func (l *loop) identity(v identityIn) {
	l.initing = false
	l.step(idempotence.SetIdentity{ProducerID: v.id, Epoch: v.epoch})
}

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
