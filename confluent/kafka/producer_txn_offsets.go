package kafka

import (
	"context"

	"github.com/rollsafe/rollsafe/client"
)

// SendOffsetsToTransaction sends a list of topic partition offsets to the
// consumer group coordinator for consumerMetadata, and marks them to be
// committed as part of the current transaction: they are committed only
// if the transaction commits, and dropped if it aborts (KIP-98, KIP-447 —
// the consume-transform-produce pattern).
//
// offsets should be the next message the application will consume, i.e.
// the last processed message's offset + 1 for each partition (a
// consumer's Position). Logical and invalid offsets (negative: OffsetEnd,
// OffsetInvalid…) are ignored, as librdkafka ignores them; with no valid
// offset the call does nothing and returns nil. An offset's Metadata and
// LeaderEpoch are committed with it. consumerMetadata is the consumer's
// GetConsumerGroupMetadata (or NewTestConsumerGroupMetadata): with a
// member's generation and member id the group coordinator refuses the
// offsets of a member that is no longer in the group (a zombie of a
// rebalance).
//
// ctx bounds the wait (nil: no bound). When ctx ends first the error
// IsRetriable (ErrTimedOut): the call goes on and calling it again waits
// for its outcome.
//
// Returns nil on success or an Error: ErrInvalidArg without
// consumerMetadata (or its group id) or with an offset without a topic; TxnRequiresAbort
// when the transaction cannot commit (the group coordinator refused the
// member's generation, the group is not authorized…): call
// AbortTransaction; IsFatal when the producer can go no further;
// ErrConflict (IsRetriable) while another transaction call is under way;
// ErrState without a transaction open.
func (p *Producer) SendOffsetsToTransaction(ctx context.Context, offsets []TopicPartition, consumerMetadata *ConsumerGroupMetadata) error {
	if err := p.txnUsable(); err != nil {
		return err
	}
	if consumerMetadata == nil || consumerMetadata.g.GroupID == "" {
		return newErrorFromString(ErrInvalidArg, "consumer group metadata must name a group")
	}
	var valid []client.TxnOffset
	for _, tp := range offsets {
		if tp.Topic == nil || *tp.Topic == "" {
			return newErrorFromString(ErrInvalidArg, "an offset without a topic")
		}
		if tp.Offset < 0 {
			continue // logical or invalid: ignored
		}
		o := client.TxnOffset{Topic: *tp.Topic, Partition: tp.Partition, Offset: int64(tp.Offset), LeaderEpoch: -1}
		if tp.LeaderEpoch != nil {
			o.LeaderEpoch = *tp.LeaderEpoch
		}
		if tp.Metadata != nil {
			o.Metadata = *tp.Metadata
		}
		valid = append(valid, o)
	}
	if len(valid) == 0 {
		return nil
	}
	ctx, cancel := txnContext(ctx, 0)
	defer cancel()
	return p.txnResult(p.c.SendOffsetsToTransaction(ctx, consumerMetadata.g, valid))
}
