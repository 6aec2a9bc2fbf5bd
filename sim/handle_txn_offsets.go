package sim

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// txnOffsetCommit answers TxnOffsetCommit v0-v4 at the group's
// coordinator. Consumer groups are not simulated: the group is a simple
// one (no members), so a commit naming no generation (-1) is taken
// whatever its member id, and one naming a generation is refused
// ILLEGAL_GENERATION for a group that has no committed offsets yet and
// UNKNOWN_MEMBER_ID for one that has, as Kafka 4.x's coordinator answers.
// As in Kafka 3.6+, the transaction must hold the group's
// __consumer_offsets partition (AddOffsetsToTxn; else INVALID_TXN_STATE,
// TRANSACTION_ABORTABLE from v4); under transactions v2, v5 adds it to
// the transaction (starting one if none is ongoing), as Kafka 4.x does.
// The offsets are pending until the transaction commits
// (Cluster.CommittedOffsets then has them) and dropped if it aborts.
func (b *broker) txnOffsetCommit(ctx context.Context, r *kmsg.TxnOffsetCommitRequest) kmsg.Response {
	c := b.c
	resp := r.ResponseKind().(*kmsg.TxnOffsetCommitResponse)
	codes := make([][]int16, len(r.Topics))
	c.mu.Lock()
	defer c.mu.Unlock()
	valid := false
	for i, rt := range r.Topics {
		codes[i] = make([]int16, len(rt.Partitions))
		for j, p := range rt.Partitions {
			switch _, err := c.partitionLocked(rt.Topic, p.Partition); {
			case !b.allowedTxn(ctx, r.TransactionalID):
				codes[i][j] = errTransactionalIDAuthorization
			case !b.allowed(ctx, rt.Topic, OpRead):
				codes[i][j] = errTopicAuthorization
			case err != nil:
				codes[i][j] = errUnknownTopicOrPartition
			default:
				valid = true
			}
		}
	}
	if valid {
		code := b.commitTxnOffsetsLocked(r)
		for i := range codes {
			for j := range codes[i] {
				if codes[i][j] == errNone {
					codes[i][j] = code
				}
			}
		}
	}
	for i, rt := range r.Topics {
		ot := kmsg.NewTxnOffsetCommitResponseTopic()
		ot.Topic = rt.Topic
		for j, p := range rt.Partitions {
			op := kmsg.NewTxnOffsetCommitResponseTopicPartition()
			op.Partition, op.ErrorCode = p.Partition, codes[i][j]
			ot.Partitions = append(ot.Partitions, op)
		}
		resp.Topics = append(resp.Topics, ot)
	}
	return resp
}

// commitTxnOffsetsLocked checks and records r's offsets for its
// partitions that exist and returns the code they all get.
func (b *broker) commitTxnOffsetsLocked(r *kmsg.TxnOffsetCommitRequest) int16 {
	c := b.c
	t := c.txn
	if code := b.coordinatesLocked(&t.groups, r.Group); code != errNone {
		return code
	}
	gp := t.groupPartition(r.Group)
	m := t.txns[r.TransactionalID]
	if r.Version >= 5 && c.cfg.txnV2() {
		// Transactions v2: the group's partition joins the transaction
		// here, no AddOffsetsToTxn needed.
		switch code := c.coordAddLocked(r.TransactionalID, r.ProducerID, r.ProducerEpoch, gp, time.Now()); code {
		case errNone:
		case errProducerFenced:
			return errInvalidProducerEpoch
		default:
			return code
		}
	} else if !c.cfg.noTxnVerify {
		code := errCoordinatorNotAvailable
		if _, _, live := c.liveCoordinatorLocked(&t.txnLog, r.TransactionalID); live {
			code = m.verify(r.ProducerID, r.ProducerEpoch, gp)
		}
		switch code {
		case errNone:
		case errProducerFenced:
			return errInvalidProducerEpoch
		case errTransactionAbortable:
			if r.Version < 4 {
				return errInvalidTxnState
			}
			return code
		default:
			return code
		}
	}
	if r.Generation >= 0 {
		if t.committed[r.Group] == nil {
			return errIllegalGeneration
		}
		return errUnknownMemberID
	}
	if m == nil || m.pid != r.ProducerID {
		return errNone // pending for a producer no transaction will end
	}
	if m.offsets == nil {
		m.offsets = map[string]map[tp]int64{}
	}
	if m.offsets[r.Group] == nil {
		m.offsets[r.Group] = map[tp]int64{}
	}
	for _, rt := range r.Topics {
		for _, p := range rt.Partitions {
			if _, err := c.partitionLocked(rt.Topic, p.Partition); err == nil {
				m.offsets[r.Group][tp{rt.Topic, p.Partition}] = p.Offset
			}
		}
	}
	return errNone
}
