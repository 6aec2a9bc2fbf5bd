package kafka_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/confluent/kafka"
	"github.com/rollsafe/rollsafe/kafkaerr"
)

// logsAfterDesync produces through a partition whose leader answers
// OUT_OF_ORDER_SEQUENCE_NUMBER once: the producer reads the log and moves
// to a new epoch, which it logs at info level. It returns what arrived on
// the producer's Logs() channel within a few seconds.
func logsAfterDesync(t *testing.T, props kafka.ConfigMap) (*kafka.Producer, []kafka.LogEvent) {
	t.Helper()
	c := newCluster(t, 1)
	props["linger.ms"] = 1
	p := newProducer(t, c, props)
	topic := "t"
	dr := make(chan kafka.Event, 10)
	require.NoError(t, p.Produce(&kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: 0}, Value: []byte("a")}, dr))
	require.NoError(t, (<-dr).(*kafka.Message).TopicPartition.Error)
	require.NoError(t, c.InjectError(topic, 0, int16(kafkaerr.OutOfOrderSequenceNumber), 1))
	require.NoError(t, p.Produce(&kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: 0}, Value: []byte("b")}, dr))
	require.NoError(t, (<-dr).(*kafka.Message).TopicPartition.Error)
	var got []kafka.LogEvent
	if p.Logs() == nil {
		return p, nil
	}
	deadline := time.After(2 * time.Second)
	for {
		select {
		case ev := <-p.Logs():
			got = append(got, ev)
			if strings.Contains(ev.Message, "new producer epoch") {
				return p, got
			}
		case <-deadline:
			return p, got
		}
	}
}

// TestLogs: with go.logs.channel.enable, the producer's info log of an
// epoch bump arrives on Logs() as a LogEvent naming the producer; without
// it Logs() is nil; with log_level 4 info is not forwarded; a channel given
// as go.logs.channel is used and not closed by Close, one made here is.
func TestLogs(t *testing.T) {
	t.Run("enabled", func(t *testing.T) {
		p, got := logsAfterDesync(t, kafka.ConfigMap{"go.logs.channel.enable": true})
		require.NotEmpty(t, got)
		ev := got[len(got)-1]
		require.Contains(t, ev.Message, "new producer epoch")
		require.Contains(t, ev.Message, "topic=t partition=0")
		require.Equal(t, 6, ev.Level)
		require.Equal(t, "ROLLSAFE", ev.Tag)
		require.Equal(t, p.String(), ev.Name)
		require.WithinDuration(t, time.Now(), ev.Timestamp, 10*time.Second)
		require.True(t, strings.HasPrefix(ev.String(), "["+ev.Timestamp.Format(time.RFC3339)+"]["+p.String()+"][ROLLSAFE][6]"), ev.String())
		p.Close()
		_, open := <-p.Logs()
		for open {
			_, open = <-p.Logs()
		}
	})
	t.Run("disabled", func(t *testing.T) {
		p, got := logsAfterDesync(t, kafka.ConfigMap{})
		require.Nil(t, p.Logs())
		require.Empty(t, got)
	})
	t.Run("log_level 4", func(t *testing.T) {
		_, got := logsAfterDesync(t, kafka.ConfigMap{"go.logs.channel.enable": true, "log_level": 4})
		for _, ev := range got {
			require.LessOrEqual(t, ev.Level, 4, ev.String())
		}
	})
	t.Run("application channel", func(t *testing.T) {
		ch := make(chan kafka.LogEvent, 100)
		p, got := logsAfterDesync(t, kafka.ConfigMap{"go.logs.channel.enable": true, "go.logs.channel": ch})
		require.Equal(t, ch, p.Logs())
		require.NotEmpty(t, got)
		p.Close()
		select {
		case ch <- kafka.LogEvent{}: // still open
		default:
		}
	})
	_, err := kafka.NewProducer(&kafka.ConfigMap{"bootstrap.servers": "x:1", "go.logs.channel": make(chan string)})
	require.Error(t, err)
	_, err = kafka.NewProducer(&kafka.ConfigMap{"bootstrap.servers": "x:1", "log_level": 9})
	require.Error(t, err)
}
