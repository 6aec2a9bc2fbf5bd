package kafkatest

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/protocol"
)

// TransactionCoordinator returns the broker that coordinates the
// transactional id (FindCoordinator, key type 1, asked of some running
// node), waiting out the retriable answers of a cluster still creating or
// moving __transaction_state until ctx ends.
func (c *Cluster) TransactionCoordinator(ctx context.Context, id string) (int32, error) {
	for {
		node, err := c.findTxnCoordinator(ctx, id)
		if err == nil {
			return node, nil
		}
		if !protocol.IsRetriable(err) && !errors.Is(err, protocol.ErrCoordinatorNotAvailable) {
			return -1, err
		}
		select {
		case <-ctx.Done():
			return -1, fmt.Errorf("kafkatest: transaction coordinator of %q: %w (last: %w)", id, ctx.Err(), err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (c *Cluster) findTxnCoordinator(ctx context.Context, id string) (int32, error) {
	req := kmsg.NewPtrFindCoordinatorRequest()
	req.CoordinatorType, req.CoordinatorKey, req.CoordinatorKeys = 1, id, []string{id}
	resp, err := c.request(ctx, req)
	if err != nil {
		return -1, fmt.Errorf("kafkatest: FindCoordinator %q: %w", id, err)
	}
	r := resp.(*kmsg.FindCoordinatorResponse)
	node, code := r.NodeID, r.ErrorCode
	if r.Version >= 4 {
		if len(r.Coordinators) != 1 {
			return -1, fmt.Errorf("kafkatest: FindCoordinator %q: %d coordinators in the answer", id, len(r.Coordinators))
		}
		node, code = r.Coordinators[0].NodeID, r.Coordinators[0].ErrorCode
	}
	if err := protocol.ErrorForCode(code); err != nil {
		return -1, fmt.Errorf("kafkatest: FindCoordinator %q: %w", id, err)
	}
	return node, nil
}
