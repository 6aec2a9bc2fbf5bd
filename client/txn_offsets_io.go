package client

import (
	"context"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/idempotence"
	"github.com/rollsafe/rollsafe/kafkaerr"
	"github.com/rollsafe/rollsafe/protocol"
)

// The requests of SendOffsetsToTransaction: AddOffsetsToTxn to the
// transaction coordinator, FindCoordinator of the group and
// TxnOffsetCommit to the group's coordinator, each on a goroutine of its
// own in its turn (txnRequest), its answer posted to the loop as the
// machine's input.

// API keys of SendOffsetsToTransaction's requests.
const (
	keyAddOffsetsToTxn = 25
	keyTxnOffsetCommit = 28
)

// coordGroup is FindCoordinator's key type of a consumer group.
const coordGroup = 0

// findGroupCoordinator asks any broker for the group's coordinator.
func (p *Producer) findGroupCoordinator(e idempotence.FindCoordinator) {
	p.txnRequest("FindCoordinator", func(ctx context.Context) idempotence.Input {
		broker, code, err := p.coordinatorOf(ctx, coordGroup, e.Group)
		if err != nil {
			p.log.Debug("rollsafe: FindCoordinator of the group failed", "group", e.Group, "err", err)
			return idempotence.CoordinatorFound{Broker: -1, Group: e.Group, Code: code}
		}
		return idempotence.CoordinatorFound{Broker: broker, Group: e.Group}
	})
}

// addOffsetsToTxn sends AddOffsetsToTxn (up to v4) for the group.
func (p *Producer) addOffsetsToTxn(e idempotence.AddOffsetsRequest) {
	req := kmsg.NewPtrAddOffsetsToTxnRequest()
	req.TransactionalID = p.cfg.txnID
	req.ProducerID, req.ProducerEpoch = e.ProducerID, e.Epoch
	req.Group = e.Group
	coordRequest(p, "AddOffsetsToTxn", e.Broker, req, idempotence.AddOffsetsAnswer{Code: kafkaerr.Transport}, nil,
		func(r *kmsg.AddOffsetsToTxnResponse) idempotence.Input {
			return idempotence.AddOffsetsAnswer{Code: kafkaerr.Code(r.ErrorCode)}
		})
}

// txnOffsetCommit sends TxnOffsetCommit (up to v4) with the call's
// offsets to the group's coordinator.
func (p *Producer) txnOffsetCommit(e idempotence.OffsetsCommitRequest, call *txnOffsetsCall) {
	g := call.group
	req := kmsg.NewPtrTxnOffsetCommitRequest()
	req.TransactionalID = p.cfg.txnID
	req.Group = e.Group
	req.ProducerID, req.ProducerEpoch = e.ProducerID, e.Epoch
	req.Generation, req.MemberID = g.GenerationID, g.MemberID
	if g.GroupInstanceID != "" {
		id := g.GroupInstanceID
		req.InstanceID = &id
	}
	idx := map[string]int{}
	for _, o := range call.offsets {
		i, ok := idx[o.Topic]
		if !ok {
			i = len(req.Topics)
			idx[o.Topic] = i
			t := kmsg.NewTxnOffsetCommitRequestTopic()
			t.Topic = o.Topic
			req.Topics = append(req.Topics, t)
		}
		pt := kmsg.NewTxnOffsetCommitRequestTopicPartition()
		pt.Partition, pt.Offset, pt.LeaderEpoch = o.Partition, o.Offset, o.LeaderEpoch
		md := o.Metadata
		pt.Metadata = &md
		req.Topics[i].Partitions = append(req.Topics[i].Partitions, pt)
	}
	// The group's generation, member and instance ids travel from v3
	// (brokers 2.5+, KIP-447); an older broker cannot check them, and
	// committing without the check would be unsafe.
	member := g.GenerationID >= 0 || g.MemberID != "" || g.GroupInstanceID != ""
	tooOld := func(conn *protocol.Conn) (idempotence.Input, bool) {
		r, ok := conn.Versions().Broker(keyTxnOffsetCommit)
		return idempotence.OffsetsCommitAnswer{Code: kafkaerr.UnsupportedVersion}, ok && r.Max < 3 && member
	}
	coordRequest(p, "TxnOffsetCommit", e.Broker, req, idempotence.OffsetsCommitAnswer{Code: kafkaerr.Transport}, tooOld,
		func(r *kmsg.TxnOffsetCommitResponse) idempotence.Input {
			a := idempotence.OffsetsCommitAnswer{Partitions: map[idempotence.TopicPartition]kafkaerr.Code{}}
			for _, t := range r.Topics {
				for _, pt := range t.Partitions {
					a.Partitions[idempotence.TopicPartition{Topic: t.Topic, Partition: pt.Partition}] = kafkaerr.Code(pt.ErrorCode)
				}
			}
			return a
		})
}
