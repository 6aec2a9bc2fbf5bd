package kafka_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/confluent/kafka"
)

// TestDataLossErrorEvent: acknowledged messages removed by an unclean
// leader election come back as an Error event (ErrInconsistent, matching
// client.ErrDataLoss) naming the offsets, and producing goes on.
func TestDataLossErrorEvent(t *testing.T) {
	c := newCluster(t, 1)
	p := newProducer(t, c, kafka.ConfigMap{"linger.ms": 0})
	leader, _ := c.Leader("t", 0)
	lagging := (leader + 1) % 3
	require.NoError(t, c.PauseReplication("t", 0, lagging))
	topic := "t"
	for _, v := range values("before", 100) {
		require.NoError(t, p.Produce(msg(&topic, v), nil))
	}
	drain(t, p.Events(), 100)
	lost, err := c.UncleanElect("t", 0, lagging)
	require.NoError(t, err)
	require.NotEmpty(t, lost)

	after := values("after", 100)
	for _, v := range after {
		require.NoError(t, p.Produce(msg(&topic, v), nil))
	}
	var lossEvent *kafka.Error
	got := map[string]report{}
	deadline := time.After(30 * time.Second)
	for len(got) < len(after) || lossEvent == nil {
		select {
		case e := <-p.Events():
			switch ev := e.(type) {
			case *kafka.Message:
				got[string(ev.Value)] = report{partition: ev.TopicPartition.Partition, offset: int64(ev.TopicPartition.Offset), acked: ev.TopicPartition.Error == nil}
			case kafka.Error:
				lossEvent = &ev
			}
		case <-deadline:
			t.Fatalf("reports %d, loss event %v", len(got), lossEvent)
		}
	}
	require.Equal(t, kafka.ErrInconsistent, lossEvent.Code())
	require.True(t, errors.Is(*lossEvent, client.ErrDataLoss))
	require.False(t, lossEvent.IsFatal())
	require.Contains(t, lossEvent.Error(), "t[0]")
	require.NoError(t, p.GetFatalError())
	verify(t, c.Addrs(), "t", after, got, true)
	t.Log(lossEvent)
}

// TestCloseWithUnreadReports: Close returns even when delivery reports
// are blocked on a channel nobody reads, and leaves no goroutine behind
// (newProducer's cleanup checks).
func TestCloseWithUnreadReports(t *testing.T) {
	c := newCluster(t, 2)
	p := newProducer(t, c, nil)
	topic := "t"
	unread := make(chan kafka.Event)
	for _, v := range values("unread", 50) {
		require.NoError(t, p.Produce(msg(&topic, v), unread))
	}
	require.Eventually(t, func() bool { return p.Flush(10) == 50 }, 5*time.Second, time.Millisecond)
	p.Close()
	require.Equal(t, kafka.ErrState, p.Produce(msg(&topic, "late"), nil).(kafka.Error).Code())
}
