package kafka

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/protocol"
)

// TestDeliveryErrorMapping: each rollsafe error becomes the librdkafka code
// a confluent-kafka-go program checks, keeps rollsafe's error reachable,
// and says whether the message may be in the log.
func TestDeliveryErrorMapping(t *testing.T) {
	kafkaErr := func(code int16) error { return protocol.ErrorForCode(code) }
	cases := []struct {
		name      string
		err       error
		code      ErrorCode
		status    MsgStatus
		retriable bool
	}{
		{"timeout, not written", errors.Join(client.ErrDeliveryTimeout, client.ErrNotWritten), ErrMsgTimedOut, MsgStatusNotPersisted, true},
		{"timeout, unknown", errors.Join(client.ErrDeliveryTimeout, client.ErrOutcomeUnknown), ErrMsgTimedOut, MsgStatusPossiblyPersisted, false},
		{"too large", client.ErrRecordTooLarge, ErrMsgSizeTooLarge, MsgStatusNotPersisted, false},
		{"buffer full", errors.Join(client.ErrBufferFull, client.ErrNotWritten), ErrQueueFull, MsgStatusNotPersisted, true},
		{"unknown topic", fmt.Errorf("%w %q", client.ErrUnknownTopic, "x"), ErrUnknownTopicOrPart, MsgStatusNotPersisted, true},
		{"unknown partition", client.ErrUnknownPartition, ErrUnknownPartition, MsgStatusNotPersisted, true},
		{"no broker", &client.BrokersUnreachableError{Topic: "t", Tried: []string{"a:1"}, Err: errors.New("refused")}, ErrAllBrokersDown, MsgStatusNotPersisted, true},
		{"authentication", client.ErrAuthentication, ErrAuthentication, MsgStatusNotPersisted, false},
		{"authorization with code", fmt.Errorf("%w: %w", client.ErrAuthorization, errors.Join(kafkaErr(29), client.ErrNotWritten)), ErrTopicAuthorizationFailed, MsgStatusNotPersisted, false},
		{"authorization without code", client.ErrAuthorization, ErrTopicAuthorizationFailed, MsgStatusPossiblyPersisted, false},
		{"closed, not written", errors.Join(client.ErrClosed, client.ErrNotWritten), ErrPurgeQueue, MsgStatusNotPersisted, true},
		{"closed, in flight", errors.Join(client.ErrClosed, client.ErrOutcomeUnknown), ErrPurgeInflight, MsgStatusPossiblyPersisted, false},
		{"partition stopped", errors.Join(client.ErrPartitionStopped, client.ErrNotWritten), ErrInconsistent, MsgStatusNotPersisted, false},
		{"broker code, retriable", errors.Join(kafkaErr(19), client.ErrNotWritten), ErrNotEnoughReplicas, MsgStatusNotPersisted, true},
		{"broker code, unknown", errors.Join(kafkaErr(7), client.ErrOutcomeUnknown), ErrRequestTimedOut, MsgStatusPossiblyPersisted, false},
		{"anything else", errors.New("boom"), ErrFail, MsgStatusPossiblyPersisted, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := deliveryError(tc.err)
			require.Equal(t, tc.code, e.Code(), "%v", e)
			require.Equal(t, tc.status, e.MsgStatus())
			require.Equal(t, tc.retriable, e.IsRetriable())
			require.False(t, e.IsFatal())
			require.True(t, errors.Is(e, tc.err), "rollsafe's error stays reachable")
			require.Equal(t, tc.status == MsgStatusNotPersisted, errors.Is(e, client.ErrNotWritten))
			require.Equal(t, tc.code == ErrMsgTimedOut, e.IsTimeout())
			m := &Message{TopicPartition: TopicPartition{Error: e}}
			require.Equal(t, tc.status, m.Status())
		})
	}
	require.Equal(t, MsgStatusPersisted, (&Message{}).Status())
}

func TestErrorStrings(t *testing.T) {
	require.Equal(t, "Local: Message timed out", ErrMsgTimedOut.String())
	require.Equal(t, "Local: Queue full", NewError(ErrQueueFull, "", false).Error())
	require.Equal(t, "Fatal error: boom", NewError(ErrFatal, "boom", true).String())
	require.True(t, NewError(ErrFatal, "boom", true).IsFatal())
	require.Equal(t, ErrorCode(-192), ErrMsgTimedOut)
	require.Equal(t, ErrorCode(-184), ErrQueueFull)
	require.Equal(t, ErrorCode(-150), ErrFatal)
	require.Equal(t, ErrorCode(-187), ErrAllBrokersDown)
	require.Equal(t, ErrorCode(10), ErrMsgSizeTooLarge)
	require.Equal(t, ErrorCode(3), ErrUnknownTopicOrPart)
	require.Equal(t, "Err-12345?", ErrorCode(12345).String())
	require.Equal(t, "beginning", OffsetBeginning.String())
	require.Equal(t, "unset", OffsetInvalid.String())
	require.Equal(t, "42", Offset(42).String())
	require.Equal(t, "CreateTime", TimestampCreateTime.String())
	require.Equal(t, `k="v"`, Header{Key: "k", Value: []byte("v")}.String())
	require.Equal(t, "k=nil", Header{Key: "k"}.String())
	require.Equal(t, "k=<empty>", Header{Key: "k", Value: []byte{}}.String())
	topic := "t"
	require.Equal(t, "t[2]@7(Local: Queue full)", TopicPartition{Topic: &topic, Partition: 2, Offset: 7, Error: NewError(ErrQueueFull, "", false)}.String())
	require.Equal(t, "<null>[0]@unset", TopicPartition{Offset: OffsetInvalid}.String())
}

// TestHashes checks the partitioners' hashes against published values:
// librdkafka's own FNV-1a unit-test vectors and the CRC-32 check value.
func TestHashes(t *testing.T) {
	fnv := map[string]uint32{
		"kafka":                                  0xd33c4e1,
		"giberish123456789":                      0x77a58295,
		"1234":                                   0x23bdd03,
		"234":                                    0x2dea3cd2,
		"34":                                     0x740fa83e,
		"4":                                      0x310ca263,
		"PreAmbleWillBeRemoved,ThePrePartThatIs": 0x65cbd69c,
		"":                                       0x7ee3623b,
	}
	for k, want := range fnv {
		require.Equal(t, want, fnv1a([]byte(k)), "fnv1a(%q)", k)
	}
	p := newPartitioner("consistent", 0)
	// CRC-32 (IEEE) of "123456789" is 0xCBF43926: 3421780262 % 7 = 5.
	require.Equal(t, int32(3421780262%7), p.Partition(&client.Record{Key: []byte("123456789")}, 7))
	require.Equal(t, int32(5), p.Partition(&client.Record{Key: []byte("123456789")}, 7))
	// An empty key is hashed by consistent, sticky with consistent_random.
	require.Equal(t, int32(0), p.Partition(&client.Record{Key: []byte{}}, 7))
	m := newPartitioner("murmur2", 0)
	require.Equal(t, client.KeyPartition([]byte("k"), 9), m.Partition(&client.Record{Key: []byte("k")}, 9))
}
