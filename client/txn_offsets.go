package client

import (
	"context"
	"fmt"
	"slices"

	"github.com/rollsafe/rollsafe/idempotence"
)

// GroupMetadata names the consumer group whose offsets a transaction
// commits (KIP-447): GenerationID -1 and MemberID "" when the program
// has no group membership (a simple group); GroupInstanceID "" when none.
type GroupMetadata struct {
	GroupID         string
	GenerationID    int32
	MemberID        string
	GroupInstanceID string
}

// TxnOffset is one partition's offset to commit with a transaction: the
// offset of the next record to consume, the leader epoch of the record
// consumed last (-1 when unknown) and optional metadata.
type TxnOffset struct {
	Topic       string
	Partition   int32
	Offset      int64
	LeaderEpoch int32
	Metadata    string
}

// SendOffsetsToTransaction adds the group's offsets to the open
// transaction: they are committed with it and dropped if it aborts.
//
// It asks the transaction coordinator to add the group to the transaction
// (AddOffsetsToTxn), then hands the offsets to the group's coordinator
// (TxnOffsetCommit, with the group's generation, member and instance ids
// from brokers 2.5 on), and returns once it has them. Records may be
// produced meanwhile; CommitTransaction and AbortTransaction are refused
// while it runs (ErrTxnInProgress, also ErrTxnState). ErrTxnAbortable: the offsets cannot
// be committed (the group moved on to a newer generation, or refused
// access); call AbortTransaction. If ctx ends first, the call goes on:
// call SendOffsetsToTransaction again to wait for its outcome (the
// offsets of the first call count). No offsets: nothing is sent, nil
// (as Kafka's producer does). Outside a transaction: ErrTxnState.
func (p *Producer) SendOffsetsToTransaction(ctx context.Context, group GroupMetadata, offsets []TxnOffset) error {
	switch {
	case group.GroupID == "":
		return publicError(fmt.Errorf("client: SendOffsetsToTransaction: %w: no group id", ErrTxnState))
	case group.GenerationID > 0 && group.MemberID == "":
		return publicError(fmt.Errorf("client: SendOffsetsToTransaction: %w: generation %d without a member id", ErrTxnState, group.GenerationID))
	case p.cfg.txnID == "":
		return publicError(errNotTransactional)
	case len(offsets) == 0:
		return nil
	}
	return p.txnSubmit(ctx, txnCallIn{kind: txnSendOffsets, offsets: &txnOffsetsCall{group: group, offsets: slices.Clone(offsets)}})
}

// txnOffsetsCall is what a SendOffsetsToTransaction call sends.
type txnOffsetsCall struct {
	group   GroupMetadata
	offsets []TxnOffset
}

// txnSendOffsets steps SendOffsetsToTransaction into the machine.
func (l *loop) txnSendOffsets(c txnCallIn) {
	l.txn.offsets = c.offsets
	l.step(idempotence.SendOffsets{Group: c.offsets.group.GroupID})
}
