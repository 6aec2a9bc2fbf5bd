package kafka_test

import (
	"errors"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/confluent/kafka"
)

// TestTestFatalError: TestFatalError makes the producer fatal as
// librdkafka's rd_kafka_test_fatal_error does — a fatal Error event,
// GetFatalError returning it, the queued messages purged (not written,
// their error wrapping the fatal one), Produce refused with ErrFatal —
// while what was delivered before stays delivered, once.
func TestTestFatalError(t *testing.T) {
	c := newCluster(t, 2)
	p := newProducer(t, c, kafka.ConfigMap{"enable.idempotence": true})
	topic, absent := "t", "absent"
	vs := values("f", 5)
	for _, v := range vs {
		require.NoError(t, p.Produce(msg(&topic, v), nil))
	}
	got := drain(t, p.Events(), 5)
	require.NoError(t, p.GetFatalError())
	// Messages for a topic the cluster does not have wait, queued, for
	// its metadata when the fatal error comes.
	for _, v := range values("q", 5) {
		require.NoError(t, p.Produce(msg(&absent, v), nil))
	}

	require.Equal(t, kafka.ErrNoError, p.TestFatalError(kafka.ErrOutOfOrderSequenceNumber, "Testing fatal errors"))
	require.Equal(t, kafka.ErrPrevInProgress, p.TestFatalError(kafka.ErrUnknownProducerID, "second"))
	fatal := p.GetFatalError()
	require.Error(t, fatal)

	var fatalEvent *kafka.Error
	timeout := time.After(60 * time.Second)
	for fatalEvent == nil || len(got) < 10 {
		select {
		case e := <-p.Events():
			switch ev := e.(type) {
			case kafka.Error:
				require.True(t, ev.IsFatal(), "%v", ev)
				require.Zero(t, len(got)-5, "the fatal event comes before the purged reports")
				fatalEvent = &ev
			case *kafka.Message:
				require.Error(t, ev.TopicPartition.Error, "a queued message is purged: %s %v", ev.Value, ev.TopicPartition)
				var ke kafka.Error
				require.True(t, errors.As(ev.TopicPartition.Error, &ke))
				require.Equal(t, kafka.ErrPurgeQueue, ke.Code())
				require.Equal(t, kafka.MsgStatusNotPersisted, ev.Status())
				require.True(t, errors.Is(ev.TopicPartition.Error, client.ErrNotWritten))
				require.True(t, errors.Is(ev.TopicPartition.Error, fatal), "the purge names the fatal error")
				got[string(ev.Value)] = report{partition: ev.TopicPartition.Partition, status: ev.Status()}
			}
		case <-timeout:
			t.Fatalf("fatal event %v, %d reports after 60 s", fatalEvent, len(got))
		}
	}
	require.Equal(t, kafka.ErrOutOfOrderSequenceNumber, fatalEvent.Code())
	require.Equal(t, "Fatal error: test_fatal_error: Testing fatal errors", fatalEvent.String())

	fe := p.GetFatalError()
	var ke kafka.Error
	require.True(t, errors.As(fe, &ke))
	require.True(t, ke.IsFatal())
	require.Equal(t, kafka.ErrOutOfOrderSequenceNumber, ke.Code())

	err := p.Produce(msg(&topic, "after"), nil)
	require.True(t, errors.As(err, &ke))
	require.Equal(t, kafka.ErrFatal, ke.Code())
	require.True(t, errors.Is(err, fatal), "Produce's error wraps the fatal one")
	require.Equal(t, 0, p.Len())
	verify(t, c.Addrs(), "t", vs, got, false)
	p.Close()
	require.Equal(t, kafka.ErrState, p.TestFatalError(kafka.ErrFail, "closed"))
}

func TestOffsets(t *testing.T) {
	for in, want := range map[interface{}]kafka.Offset{
		"beginning": kafka.OffsetBeginning, "earliest": kafka.OffsetBeginning,
		"end": kafka.OffsetEnd, "latest": kafka.OffsetEnd,
		"unset": kafka.OffsetInvalid, "invalid": kafka.OffsetInvalid, "stored": kafka.OffsetStored,
		"42": kafka.Offset(42), 7: kafka.Offset(7), int64(9): kafka.Offset(9), kafka.Offset(-2): kafka.OffsetBeginning,
	} {
		got, err := kafka.NewOffset(in)
		require.NoError(t, err, "%v", in)
		require.Equal(t, want, got, "%v", in)
	}
	for _, bad := range []interface{}{"soon", 1.5, nil} {
		_, err := kafka.NewOffset(bad)
		var ke kafka.Error
		require.True(t, errors.As(err, &ke), "%v", bad)
		require.Equal(t, kafka.ErrInvalidArg, ke.Code())
	}
	o := kafka.Offset(5)
	require.NoError(t, o.Set("latest"))
	require.Equal(t, kafka.OffsetEnd, o)
	require.Error(t, o.Set("x"))
	require.Equal(t, kafka.OffsetEnd, o, "unchanged on error")
	require.Equal(t, kafka.Offset(-2010), kafka.OffsetTail(10))
	require.Equal(t, kafka.Offset(-2000), kafka.OffsetTail(0))

	a, b := "a", "b"
	tps := kafka.TopicPartitions{{Topic: &b, Partition: 0}, {Topic: &a, Partition: 2}, {Topic: &a, Partition: 1}}
	sort.Sort(tps)
	require.Equal(t, []string{"a/1", "a/2", "b/0"}, []string{
		*tps[0].Topic + "/" + "1", *tps[1].Topic + "/2", *tps[2].Topic + "/0"})
	require.Equal(t, []int32{1, 2, 0}, []int32{tps[0].Partition, tps[1].Partition, tps[2].Partition})

	v, s := kafka.LibraryVersion()
	require.Equal(t, 0x020f00ff, v)
	require.Equal(t, "2.15.0-rollsafe", s)
	var h kafka.Handle = (*kafka.Producer)(nil)
	_ = h
}
