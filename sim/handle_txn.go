package sim

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// addPartitionsToTxn answers AddPartitionsToTxn v0-v3 as Kafka does: a
// transactional id the principal may not use fails every partition with
// TRANSACTIONAL_ID_AUTHORIZATION_FAILED; a topic it may not write
// TOPIC_AUTHORIZATION_FAILED and an unknown partition
// UNKNOWN_TOPIC_OR_PARTITION, the others then OPERATION_NOT_ATTEMPTED;
// otherwise every partition gets the coordinator's one answer.
func (b *broker) addPartitionsToTxn(ctx context.Context, r *kmsg.AddPartitionsToTxnRequest) kmsg.Response {
	c := b.c
	resp := r.ResponseKind().(*kmsg.AddPartitionsToTxnResponse)
	var parts []tp
	seen := map[tp]bool{}
	for _, rt := range r.Topics {
		for _, p := range rt.Partitions {
			if k := (tp{rt.Topic, p}); !seen[k] {
				seen[k] = true
				parts = append(parts, k)
			}
		}
	}
	codes := make([]int16, len(parts))
	set := func(code int16) {
		for i := range codes {
			codes[i] = code
		}
	}
	if !b.allowedTxn(ctx, r.TransactionalID) {
		set(errTransactionalIDAuthorization)
	} else if refused := b.checkTxnPartitions(ctx, parts, codes); !refused {
		c.mu.Lock()
		code := b.addToTxnLocked(r.TransactionalID, r.ProducerID, r.ProducerEpoch, parts)
		c.mu.Unlock()
		set(fencedAs(code, r.Version < 2))
	}
	for i, k := range parts {
		if n := len(resp.Topics); n == 0 || resp.Topics[n-1].Topic != k.topic {
			rt := kmsg.NewAddPartitionsToTxnResponseTopic()
			rt.Topic = k.topic
			resp.Topics = append(resp.Topics, rt)
		}
		rp := kmsg.NewAddPartitionsToTxnResponseTopicPartition()
		rp.Partition, rp.ErrorCode = k.partition, codes[i]
		rt := &resp.Topics[len(resp.Topics)-1]
		rt.Partitions = append(rt.Partitions, rp)
	}
	return resp
}

// checkTxnPartitions fills codes with why partitions cannot join a
// transaction (no WRITE on the topic, an unknown partition), the others
// OPERATION_NOT_ATTEMPTED, and reports whether any was refused.
func (b *broker) checkTxnPartitions(ctx context.Context, parts []tp, codes []int16) bool {
	c := b.c
	refused := false
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, k := range parts {
		switch _, err := c.partitionLocked(k.topic, k.partition); {
		case !b.allowed(ctx, k.topic, OpWrite):
			codes[i], refused = errTopicAuthorization, true
		case err != nil:
			codes[i], refused = errUnknownTopicOrPartition, true
		}
	}
	if refused {
		for i := range codes {
			if codes[i] == errNone {
				codes[i] = errOperationNotAttempted
			}
		}
	}
	return refused
}

// addOffsetsToTxn answers AddOffsetsToTxn: the group's __consumer_offsets
// partition joins the transaction, as AddPartitionsToTxn would add it.
func (b *broker) addOffsetsToTxn(ctx context.Context, r *kmsg.AddOffsetsToTxnRequest) kmsg.Response {
	c := b.c
	resp := r.ResponseKind().(*kmsg.AddOffsetsToTxnResponse)
	if !b.allowedTxn(ctx, r.TransactionalID) {
		resp.ErrorCode = errTransactionalIDAuthorization
		return resp
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	code := b.addToTxnLocked(r.TransactionalID, r.ProducerID, r.ProducerEpoch, []tp{c.txn.groupPartition(r.Group)})
	resp.ErrorCode = fencedAs(code, r.Version < 2)
	return resp
}

// addToTxnLocked adds parts to transactional id's transaction, as the
// coordinator decides it (c.mu held): not this broker's id, no such
// transaction, or the transaction's own answer.
func (b *broker) addToTxnLocked(id string, pid int64, epoch int16, parts []tp) int16 {
	c := b.c
	code := b.coordinatesLocked(&c.txn.txnLog, id)
	switch m := c.txn.txns[id]; {
	case id == "":
		return errInvalidRequest
	case code != errNone:
		return code
	case m == nil:
		return errInvalidProducerIDMapping
	default:
		return m.addPartitions(pid, epoch, parts, time.Now())
	}
}

// endTxn answers EndTxn: the coordinator's decision, for v5
// (transactions v2) with the producer id and the epoch it bumped to; the
// markers follow the answer.
func (b *broker) endTxn(ctx context.Context, r *kmsg.EndTxnRequest) kmsg.Response {
	c := b.c
	resp := r.ResponseKind().(*kmsg.EndTxnResponse)
	resp.ProducerID, resp.ProducerEpoch = -1, -1
	switch {
	case !b.allowedTxn(ctx, r.TransactionalID):
		resp.ErrorCode = errTransactionalIDAuthorization
		return resp
	case r.TransactionalID == "":
		resp.ErrorCode = errInvalidRequest
		return resp
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	code := b.coordinatesLocked(&c.txn.txnLog, r.TransactionalID)
	switch {
	case code != errNone:
	case r.Version >= 5:
		d := c.endTxnV2Locked(r.TransactionalID, r.ProducerID, r.ProducerEpoch, r.Commit, time.Now())
		code, resp.ProducerID, resp.ProducerEpoch = d.code, d.pid, d.epoch
	default:
		code = c.endTxnLocked(r.TransactionalID, r.ProducerID, r.ProducerEpoch, r.Commit, time.Now())
	}
	resp.ErrorCode = fencedAs(code, r.Version < 2)
	return resp
}
