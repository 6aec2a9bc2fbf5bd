package kafka_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/confluent/kafka"
)

// librdkafkaStats is the part of librdkafka's statistics JSON a producer
// dashboard reads (STATISTICS.md), decoded strictly by name.
type librdkafkaStats struct {
	Name       string `json:"name"`
	ClientID   string `json:"client_id"`
	Type       string `json:"type"`
	Ts         int64  `json:"ts"`
	Time       int64  `json:"time"`
	Age        int64  `json:"age"`
	Replyq     int64  `json:"replyq"`
	MsgCnt     *int64 `json:"msg_cnt"`
	MsgSize    *int64 `json:"msg_size"`
	MsgMax     int64  `json:"msg_max"`
	MsgSizeMax int64  `json:"msg_size_max"`
	Tx         int64  `json:"tx"`
	TxBytes    int64  `json:"tx_bytes"`
	Rx         int64  `json:"rx"`
	TxMsgs     int64  `json:"txmsgs"`
	TxMsgBytes int64  `json:"txmsg_bytes"`
	Brokers    map[string]struct {
		Name   string `json:"name"`
		NodeID int32  `json:"nodeid"`
		Tx     int64  `json:"tx"`
		Rx     int64  `json:"rx"`
		Rtt    struct {
			Min, Max, Avg, Cnt, P50, P99 int64
		} `json:"rtt"`
	} `json:"brokers"`
	Topics map[string]struct {
		Topic      string `json:"topic"`
		Partitions map[string]struct {
			Partition int32 `json:"partition"`
			Leader    int32 `json:"leader"`
			TxMsgs    int64 `json:"txmsgs"`
		} `json:"partitions"`
	} `json:"topics"`
}

// TestStatsEvents: statistics.interval.ms brings *Stats events whose JSON
// has librdkafka's producer fields with values that agree with what was
// produced.
func TestStatsEvents(t *testing.T) {
	c := newCluster(t, 3)
	p := newProducer(t, c, kafka.ConfigMap{"statistics.interval.ms": 20, "client.id": "dash", "queue.buffering.max.messages": 5000})
	topic := "t"
	vs := values("stats", 1000)
	for _, v := range vs {
		require.NoError(t, p.Produce(msg(&topic, v), nil))
	}
	var last librdkafkaStats
	reports, statsSeen := 0, 0
	deadline := time.After(30 * time.Second)
	for reports < len(vs) || last.TxMsgs < int64(len(vs)) {
		select {
		case e := <-p.Events():
			switch ev := e.(type) {
			case *kafka.Message:
				require.NoError(t, ev.TopicPartition.Error)
				reports++
			case *kafka.Stats:
				statsSeen++
				last = librdkafkaStats{}
				require.NoError(t, json.Unmarshal([]byte(ev.String()), &last))
			}
		case <-deadline:
			t.Fatalf("reports %d, stats %d, last %+v", reports, statsSeen, last)
		}
	}
	require.Equal(t, p.String(), last.Name)
	require.Equal(t, "dash", last.ClientID)
	require.Equal(t, "producer", last.Type)
	require.NotNil(t, last.MsgCnt)
	require.NotNil(t, last.MsgSize)
	require.Equal(t, int64(5000), last.MsgMax)
	require.Equal(t, int64(1048576*1024), last.MsgSizeMax)
	require.Positive(t, last.Age)
	require.InDelta(t, time.Now().Unix(), last.Time, 5)
	require.GreaterOrEqual(t, last.TxMsgs, int64(len(vs)))
	require.Positive(t, last.TxMsgBytes)
	require.Positive(t, last.Tx)
	require.Positive(t, last.Rx)
	require.NotEmpty(t, last.Brokers)
	var rtts int64
	for name, b := range last.Brokers {
		require.Equal(t, name, b.Name)
		rtts += b.Rtt.Cnt
		if b.Rtt.Cnt > 0 {
			require.LessOrEqual(t, b.Rtt.Min, b.Rtt.P50)
			require.LessOrEqual(t, b.Rtt.P50, b.Rtt.Max)
		}
	}
	var partMsgs int64
	for _, pt := range last.Topics["t"].Partitions {
		partMsgs += pt.TxMsgs
		require.GreaterOrEqual(t, pt.Leader, int32(0))
	}
	require.Equal(t, last.TxMsgs, partMsgs)
	// After every report was read the queue is empty.
	require.Eventually(t, func() bool {
		for {
			select {
			case e := <-p.Events():
				if s, ok := e.(*kafka.Stats); ok {
					var st librdkafkaStats
					require.NoError(t, json.Unmarshal([]byte(s.String()), &st))
					return *st.MsgCnt == 0 && *st.MsgSize == 0
				}
			case <-time.After(time.Second):
				return false
			}
		}
	}, 5*time.Second, time.Millisecond)
	t.Logf("%d stats events; last: tx %d rx %d txmsgs %d rtt samples in the last window %d", statsSeen, last.Tx, last.Rx, last.TxMsgs, rtts)
}
