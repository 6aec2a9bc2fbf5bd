package kafkaerr

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTableIndexedByCode(t *testing.T) {
	names := map[string]bool{}
	for i, r := range table {
		require.EqualValues(t, i+minCode, r.code, "table must be dense and sorted")
		require.NotEmpty(t, r.name)
		require.False(t, names[r.name], "name %s twice", r.name)
		names[r.name] = true
	}
	require.GreaterOrEqual(t, len(table), 138, "codes -1..136 at least")
}

// Transport is no wire code: every int16 a broker can send is another value,
// and a broker's -1 is UNKNOWN_SERVER_ERROR.
func TestTransportIsNoKafkaCode(t *testing.T) {
	for w := math.MinInt16; w <= math.MaxInt16; w++ {
		require.NotEqual(t, Transport, Code(int16(w)))
	}
	_, ok := Transport.Wire()
	require.False(t, ok)
	w, ok := UnknownServerError.Wire()
	require.True(t, ok)
	require.EqualValues(t, -1, w)
	require.Equal(t, "UNKNOWN_SERVER_ERROR", Code(-1).String())
	require.Equal(t, "TRANSPORT", Transport.String())
	require.False(t, Transport.Known())
	require.True(t, Transport.RefreshMetadata())
	require.Equal(t, RetryMaybe, Transport.Action(true))
	require.Equal(t, OutcomeMaybeAppended, Transport.Outcome())
}

func TestColumns(t *testing.T) {
	cases := []struct {
		code      Code
		name      string
		retriable bool
		outcome   Outcome
	}{
		{None, "NONE", false, OutcomeAppended},
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
		require.Equal(t, c.name, c.code.String())
		require.Equal(t, c.retriable, c.code.Retriable(), c.name)
		require.Equal(t, c.outcome, c.code.Outcome(), c.name)
	}
	require.Equal(t, "UNKNOWN_CODE_30000", Code(30000).String())
	require.False(t, Code(30000).Retriable())
	require.Equal(t, OutcomeMaybeAppended, Code(30000).Outcome())
	require.Equal(t, RetryMaybe, Code(30000).Action(false))
	require.Equal(t, OutcomeMaybeAppended, Code(-2).Outcome())
	require.Equal(t, RetryMaybe, Code(-2).Action(true))

	require.True(t, TopicAuthorizationFailed.Authorization())
	require.True(t, TransactionalIDAuthorizationFailed.Authorization())
	require.False(t, SaslAuthenticationFailed.Authorization())
	require.True(t, SaslAuthenticationFailed.Authentication())
	require.True(t, InvalidRecord.Fatal())
	require.False(t, OutOfOrderSequenceNumber.Fatal())
}

func TestProduceOutcomeWithAcksAll(t *testing.T) {
	require.Equal(t, OutcomeNotAppended, NotLeaderOrFollower.ProduceOutcome(false))
	require.Equal(t, OutcomeMaybeAppended, NotLeaderOrFollower.ProduceOutcome(true))
	require.Equal(t, OutcomeMaybeAppended, UnknownTopicOrPartition.ProduceOutcome(true))
	require.Equal(t, OutcomeMaybeAppended, KafkaStorageError.ProduceOutcome(true))
	require.Equal(t, OutcomeNotAppended, NotEnoughReplicas.ProduceOutcome(true))
	require.Equal(t, OutcomeAppended, None.ProduceOutcome(true))
	require.Equal(t, Retry, NotLeaderOrFollower.Action(false))
	require.Equal(t, RetryMaybe, NotLeaderOrFollower.Action(true))
	require.Equal(t, Retry, NotEnoughReplicas.Action(true))
}

// The columns agree with each other for every code under both acks: the
// action never claims more than the outcome allows (an appended batch is
// acknowledged, a maybe one is never failed nor renumbered as not
// written), and the flags go with the codes they are for.
func TestColumnsAgree(t *testing.T) {
	for _, r := range table {
		c := r.code
		for _, all := range []bool{false, true} {
			o, a := c.ProduceOutcome(all), c.Action(all)
			switch o {
			case OutcomeAppended:
				require.Contains(t, []Action{Ack, AckDuplicate}, a, r.name)
			case OutcomeMaybeAppended:
				require.Equal(t, RetryMaybe, a, "%s acks=all %v", r.name, all)
			case OutcomeNotAppended:
				require.NotContains(t, []Action{Ack, AckDuplicate, RetryMaybe}, a, r.name)
			}
		}
		if r.action == Retry || r.action == RetryBounded {
			require.True(t, c.Retriable(), "%s is retried but Kafka does not mark it retriable", r.name)
		}
		if c.Authorization() || c.Authentication() {
			require.Equal(t, Fail, r.action, r.name)
		}
		if r.flags&maybeAcksAll != 0 {
			require.Contains(t, []Action{Retry, RetryMaybe}, r.action, r.name)
		}
	}
}

// The produce-answer path looks codes up without allocating.
func TestLookupDoesNotAllocate(t *testing.T) {
	var sink int
	allocs := testing.AllocsPerRun(100, func() {
		for c := Code(-3); c < 140; c++ {
			sink += int(c.Action(c&1 == 0)) + int(c.ProduceOutcome(true))
			if c.RefreshMetadata() || c.Retriable() || c.Fatal() {
				sink++
			}
		}
		sink += int(Transport.Action(true))
	})
	require.Zero(t, allocs)
	_ = sink
}
