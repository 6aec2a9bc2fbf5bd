package kafka

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/protocol"
)

// TestTxnErrorMapping: each error of client.Producer's transaction calls
// becomes the Error librdkafka returns for the same situation: code,
// IsFatal, IsRetriable, TxnRequiresAbort; rollsafe's error stays
// reachable.
func TestTxnErrorMapping(t *testing.T) {
	cases := []struct {
		name                            string
		err                             error
		code                            ErrorCode
		fatal, retriable, requiresAbort bool
	}{
		{"fenced", fmt.Errorf("client: CommitTransaction: %w", errors.Join(client.ErrFenced, client.ErrTxnFatal)), ErrFenced, true, false, false},
		{"fatal", fmt.Errorf("client: InitTransactions: %w: answered INVALID_TRANSACTION_TIMEOUT", client.ErrTxnFatal), ErrFatal, true, false, false},
		{"abortable", fmt.Errorf("client: CommitTransaction: %w: a batch failed", client.ErrTxnAbortable), ErrFail, false, false, true},
		{"not transactional", errors.Join(client.ErrNotTransactional, client.ErrTxnState), ErrNotConfigured, false, false, false},
		{"state", fmt.Errorf("client: CommitTransaction: %w: CommitTxn in TxnReady", client.ErrTxnState), ErrState, false, false, false},
		{"no transaction", errors.Join(client.ErrNoTransaction, client.ErrTxnState), ErrState, false, false, false},
		{"deadline", fmt.Errorf("client: CommitTransaction: still under way: %w", context.DeadlineExceeded), ErrTimedOut, false, true, false},
		{"cancelled", fmt.Errorf("client: AbortTransaction: still under way: %w", context.Canceled), ErrTimedOut, false, true, false},
		{"closed", fmt.Errorf("client: CommitTransaction: %w", client.ErrClosed), ErrState, false, false, false},
		{"anything else", errors.New("boom"), ErrFail, false, false, false},
		// A broker's code that caused a fatal or abortable error is the
		// Error's code, as librdkafka's: its ErrorCode values are Kafka's
		// for broker errors.
		{"fatal with a code", fmt.Errorf("client: CommitTransaction: %w", errors.Join(fmt.Errorf("%w: answered INVALID_TXN_STATE", client.ErrTxnFatal), protocol.ErrInvalidTxnState)), ErrInvalidTxnState, true, false, false},
		{"abortable with a code", fmt.Errorf("client: CommitTransaction: %w", errors.Join(fmt.Errorf("%w: a batch failed", client.ErrTxnAbortable), protocol.ErrTopicAuthorizationFailed)), ErrTopicAuthorizationFailed, false, false, true},
		{"fenced with a code", fmt.Errorf("client: CommitTransaction: %w", errors.Join(client.ErrFenced, client.ErrTxnFatal, protocol.ErrProducerFenced)), ErrFenced, true, false, false},
		// BeginTransaction while the transaction must be aborted: the
		// abortable error, as librdkafka's begin_transaction returns it.
		{"begin after abortable", fmt.Errorf("client: BeginTransaction: %w: abort the transaction first: %w", client.ErrTxnState, errors.Join(fmt.Errorf("%w: a batch failed", client.ErrTxnAbortable), protocol.ErrTopicAuthorizationFailed)), ErrTopicAuthorizationFailed, false, false, true},
		{"begin after abortable without a code", fmt.Errorf("client: BeginTransaction: %w: abort the transaction first: %w", client.ErrTxnState, client.ErrTxnAbortable), ErrFail, false, false, true},
		// A call while another is under way: ERR__CONFLICT, retriable.
		{"in progress", fmt.Errorf("client: AbortTransaction: %w (CommitTransaction): %w", client.ErrTxnInProgress, client.ErrTxnState), ErrConflict, false, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := txnError(tc.err)
			require.Equal(t, tc.code, e.Code(), "%v", e)
			require.Equal(t, tc.fatal, e.IsFatal(), "IsFatal")
			require.Equal(t, tc.retriable, e.IsRetriable(), "IsRetriable")
			require.Equal(t, tc.requiresAbort, e.TxnRequiresAbort(), "TxnRequiresAbort")
			require.Equal(t, tc.code == ErrTimedOut, e.IsTimeout())
			require.ErrorIs(t, e, tc.err)
			require.Contains(t, e.Error(), tc.err.Error())
		})
	}
}

// TestAbortedDeliveryErrors: the delivery reports of an aborted
// transaction's messages say what librdkafka's purge says.
func TestAbortedDeliveryErrors(t *testing.T) {
	e := deliveryError(errors.Join(client.ErrAborted, client.ErrNotWritten))
	require.Equal(t, ErrPurgeQueue, e.Code())
	require.Equal(t, MsgStatusNotPersisted, e.MsgStatus())
	require.True(t, e.IsRetriable(), "not in the log: producing it again cannot duplicate it")
	e = deliveryError(client.ErrAborted)
	require.Equal(t, ErrPurgeInflight, e.Code())
	require.Equal(t, MsgStatusPossiblyPersisted, e.MsgStatus())
	require.False(t, e.IsRetriable())
	e = deliveryError(errors.Join(client.ErrNoTransaction, client.ErrTxnState, client.ErrNotWritten))
	require.Equal(t, ErrState, e.Code())
	require.Equal(t, MsgStatusNotPersisted, e.MsgStatus())
}

// TestConsumerGroupMetadata: NewTestConsumerGroupMetadata is a group
// without membership, as librdkafka's rd_kafka_consumer_group_metadata_new.
func TestConsumerGroupMetadata(t *testing.T) {
	m, err := NewTestConsumerGroupMetadata("orders")
	require.NoError(t, err)
	require.Equal(t, client.GroupMetadata{GroupID: "orders", GenerationID: -1}, m.g)
}
