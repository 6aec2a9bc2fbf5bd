package sim

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Coordinator key types of FindCoordinator.
const (
	coordGroup       = 0
	coordTransaction = 1
)

// findCoordinator answers FindCoordinator as Kafka does: a group's
// coordinator leads the group's __consumer_offsets partition, a
// transactional id's its __transaction_state partition (Java's
// String.hashCode of the key modulo the partition count); the leader runs
// or it is COORDINATOR_NOT_AVAILABLE. A transactional id the principal
// may not use is TRANSACTIONAL_ID_AUTHORIZATION_FAILED; another key type
// INVALID_REQUEST. v4+ answers each of its keys.
func (b *broker) findCoordinator(ctx context.Context, r *kmsg.FindCoordinatorRequest) kmsg.Response {
	c := b.c
	resp := r.ResponseKind().(*kmsg.FindCoordinatorResponse)
	one := func(key string) kmsg.FindCoordinatorResponseCoordinator {
		co := kmsg.NewFindCoordinatorResponseCoordinator()
		co.Key, co.NodeID, co.Port = key, -1, -1
		var ct *coordTopic
		switch r.CoordinatorType {
		case coordGroup:
			ct = &c.txn.groups
		case coordTransaction:
			if !b.allowedTxn(ctx, key) {
				co.ErrorCode = errTransactionalIDAuthorization
				return co
			}
			ct = &c.txn.txnLog
		default:
			co.ErrorCode = errInvalidRequest
			return co
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		id, _ := c.coordinatorLocked(ct, key)
		if id < 0 {
			co.ErrorCode = errCoordinatorNotAvailable
			return co
		}
		co.NodeID = id
		co.Host, co.Port = hostPort(c.brokers[id].addr)
		return co
	}
	if r.Version >= 4 {
		for _, k := range r.CoordinatorKeys {
			resp.Coordinators = append(resp.Coordinators, one(k))
		}
		return resp
	}
	co := one(r.CoordinatorKey)
	resp.ErrorCode, resp.NodeID, resp.Host, resp.Port = co.ErrorCode, co.NodeID, co.Host, co.Port
	return resp
}

// initProducerID answers InitProducerId: a new producer id at the
// configured epoch for an idempotent producer, the coordinator's answer
// for a transactional one.
func (b *broker) initProducerID(ctx context.Context, r *kmsg.InitProducerIDRequest) kmsg.Response {
	c := b.c
	resp := r.ResponseKind().(*kmsg.InitProducerIDResponse)
	resp.ProducerID, resp.ProducerEpoch = -1, -1
	if r.TransactionalID != nil {
		resp.ProducerID, resp.ProducerEpoch, resp.ErrorCode = b.initTxnProducer(ctx, r)
		return resp
	}
	if user, _ := ctx.Value(principalKey{}).(string); !c.cfg.acls.writesSomewhere(user) {
		resp.ErrorCode = errClusterAuthorization
		return resp
	}
	c.mu.Lock()
	resp.ProducerID = c.newPIDLocked()
	c.mu.Unlock()
	resp.ProducerEpoch = c.cfg.initEpoch
	return resp
}

// initTxnProducer is InitProducerId with a transactional id, checked in
// Kafka's order: authorization, the producer id and epoch named (both or
// neither), an empty id, the timeout (1 ms to TransactionMaxTimeout),
// this broker coordinating the id. Before v4, PRODUCER_FENCED is answered
// INVALID_PRODUCER_EPOCH.
func (b *broker) initTxnProducer(ctx context.Context, r *kmsg.InitProducerIDRequest) (int64, int16, int16) {
	c := b.c
	id := *r.TransactionalID
	var expected *pidEpoch
	switch {
	case !b.allowedTxn(ctx, id):
		return -1, -1, errTransactionalIDAuthorization
	case r.ProducerID == -1 && r.ProducerEpoch == -1:
	case r.ProducerID == -1 || r.ProducerEpoch == -1:
		return -1, -1, errInvalidRequest
	default:
		expected = &pidEpoch{r.ProducerID, r.ProducerEpoch}
	}
	timeout := time.Duration(r.TransactionTimeoutMillis) * time.Millisecond
	switch {
	case id == "":
		return -1, -1, errInvalidRequest
	case timeout <= 0 || timeout > c.cfg.txnMaxTimeout:
		return -1, -1, errInvalidTransactionTimeout
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if code := b.coordinatesLocked(&c.txn.txnLog, id); code != errNone {
		return -1, -1, code
	}
	pid, epoch, code := c.initTxnLocked(id, timeout, expected, time.Now())
	return pid, epoch, fencedAs(code, r.Version < 4)
}

// fencedAs is code as a version that predates PRODUCER_FENCED answers it
// (old: INVALID_PRODUCER_EPOCH, which older clients understand).
func fencedAs(code int16, old bool) int16 {
	if old && code == errProducerFenced {
		return errInvalidProducerEpoch
	}
	return code
}
