package protocol

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

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
	require.Equal(t, kafkaerr.OutcomeNotAppended, ke.Outcome)
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
