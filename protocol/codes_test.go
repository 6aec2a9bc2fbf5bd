package protocol

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCodeTableIsCompleteAndOrdered(t *testing.T) {
	for i, ci := range codeTable {
		require.EqualValues(t, i+minCode, ci.code, "table must be dense and sorted")
		require.NotEmpty(t, ci.name)
	}
	require.GreaterOrEqual(t, len(codeTable), 122, "codes -1..120 at least")
}

func TestCodeInfoClassification(t *testing.T) {
	cases := []struct {
		code      ErrorCode
		name      string
		retriable bool
		outcome   Outcome
	}{
		{NoError, "NONE", false, OutcomeAppended},
		{DuplicateSequenceNumber, "DUPLICATE_SEQUENCE_NUMBER", false, OutcomeAppended},
		{NotLeaderOrFollower, "NOT_LEADER_OR_FOLLOWER", true, OutcomeNotAppended},
		{UnknownTopicOrPartition, "UNKNOWN_TOPIC_OR_PARTITION", true, OutcomeNotAppended},
		{LeaderNotAvailable, "LEADER_NOT_AVAILABLE", true, OutcomeNotAppended},
		{NotEnoughReplicas, "NOT_ENOUGH_REPLICAS", true, OutcomeNotAppended},
		{CorruptMessage, "CORRUPT_MESSAGE", true, OutcomeNotAppended},
		{MessageTooLarge, "MESSAGE_TOO_LARGE", false, OutcomeNotAppended},
		{InvalidRecord, "INVALID_RECORD", false, OutcomeNotAppended},
		{OutOfOrderSequenceNumber, "OUT_OF_ORDER_SEQUENCE_NUMBER", false, OutcomeNotAppended},
		{InvalidProducerEpoch, "INVALID_PRODUCER_EPOCH", false, OutcomeNotAppended},
		{UnknownProducerID, "UNKNOWN_PRODUCER_ID", false, OutcomeNotAppended},
		{RequestTimedOut, "REQUEST_TIMED_OUT", true, OutcomeMaybeAppended},
		{NotEnoughReplicasAfterAppend, "NOT_ENOUGH_REPLICAS_AFTER_APPEND", true, OutcomeMaybeAppended},
		{UnknownServerError, "UNKNOWN_SERVER_ERROR", false, OutcomeMaybeAppended},
		{TransactionAbortable, "TRANSACTION_ABORTABLE", false, OutcomeNotAppended},
	}
	for _, c := range cases {
		name, retriable, outcome := CodeInfo(int16(c.code))
		require.Equal(t, c.name, name)
		require.Equal(t, c.retriable, retriable, c.name)
		require.Equal(t, c.outcome, outcome, c.name)
		require.Equal(t, c.name, c.code.String())
	}
	name, retriable, outcome := CodeInfo(30000)
	require.Equal(t, "UNKNOWN_CODE_30000", name)
	require.False(t, retriable)
	require.Equal(t, OutcomeMaybeAppended, outcome)
	_, _, outcome = CodeInfo(-2)
	require.Equal(t, OutcomeMaybeAppended, outcome)
}

func TestProduceOutcomeWithAcksAll(t *testing.T) {
	require.Equal(t, OutcomeNotAppended, ProduceOutcome(int16(NotLeaderOrFollower), 1))
	require.Equal(t, OutcomeMaybeAppended, ProduceOutcome(int16(NotLeaderOrFollower), -1))
	require.Equal(t, OutcomeMaybeAppended, ProduceOutcome(int16(UnknownTopicOrPartition), -1))
	require.Equal(t, OutcomeNotAppended, ProduceOutcome(int16(NotEnoughReplicas), -1))
	require.Equal(t, OutcomeAppended, ProduceOutcome(0, -1))
}

func TestErrorForCodeMatchesSentinels(t *testing.T) {
	require.NoError(t, ErrorForCode(0))
	err := ErrorForCode(6)
	require.ErrorIs(t, err, ErrNotLeaderOrFollower)
	require.NotErrorIs(t, err, ErrLeaderNotAvailable)
	wrapped := fmt.Errorf("produce: %w", PartitionError(45, "t", 3, "boom"))
	require.ErrorIs(t, wrapped, ErrOutOfOrderSequenceNumber)
	var ke *KafkaError
	require.True(t, errors.As(wrapped, &ke))
	require.Equal(t, "t", ke.Topic)
	require.EqualValues(t, 3, ke.Partition)
	require.Equal(t, OutcomeNotAppended, ke.Outcome)
	require.Contains(t, wrapped.Error(), "OUT_OF_ORDER_SEQUENCE_NUMBER")
	require.Contains(t, wrapped.Error(), "t[3]")
	require.True(t, IsRetriable(ErrorForCode(6)))
	require.False(t, IsRetriable(ErrorForCode(45)))
	require.False(t, IsRetriable(errors.New("x")))
	unknown := ErrorForCode(9999)
	require.ErrorAs(t, unknown, &ke)
	require.Equal(t, "UNKNOWN_CODE_9999", ke.Name)
	// A local version mismatch matches the broker's UNSUPPORTED_VERSION.
	require.ErrorIs(t, &VersionError{API: "Produce"}, ErrUnsupportedVersion)
	require.ErrorIs(t, &UnknownTopicError{Topic: "x", Partition: -1}, ErrUnknownTopicOrPartition)
}
