package kafka_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/confluent/kafka"
	"github.com/rollsafe/rollsafe/sim"
	"github.com/rollsafe/rollsafe/sim/scenario"
)

// codeOutOfOrderSequence is Kafka's OUT_OF_ORDER_SEQUENCE_NUMBER.
const codeOutOfOrderSequence = 45

// TestSeedScenarioNeverFatal is confluent-kafka-go#830 played against a
// confluent-kafka-go program (an Events() loop, enable.idempotence=true,
// acks=all): partition 0's leader goes down, comes back, catches up, takes
// its leadership back, and the first produce request it gets answers
// OUT_OF_ORDER_SEQUENCE_NUMBER. librdkafka raises "Fatal error: …
// sequence desynchronization" here and the producer is dead. On this
// package: no fatal error, no Error event, GetFatalError() nil, and every
// message reported delivered is in the log exactly once, in order.
func TestSeedScenarioNeverFatal(t *testing.T) {
	c := newCluster(t, 6, sim.FollowerLag(3*time.Millisecond))
	p := newProducer(t, c, kafka.ConfigMap{
		"enable.idempotence": true, "acks": "all", "compression.type": "gzip",
		"statistics.interval.ms": 100, "queue.buffering.max.messages": 3000,
	})

	var mu sync.Mutex
	got := map[string]report{}
	var errEvents []kafka.Error
	var lastStats string
	var failures []string
	var reports atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for e := range p.Events() {
			switch ev := e.(type) {
			case *kafka.Message:
				mu.Lock()
				got[string(ev.Value)] = report{partition: ev.TopicPartition.Partition, offset: int64(ev.TopicPartition.Offset),
					acked: ev.TopicPartition.Error == nil, status: ev.Status()}
				mu.Unlock()
				if ev.TopicPartition.Error != nil {
					failures = append(failures, fmt.Sprintf("%s: %v (status %v)", ev.Value, ev.TopicPartition.Error, ev.Status()))
				}
				reports.Add(1)
			case kafka.Error:
				mu.Lock()
				errEvents = append(errEvents, ev)
				mu.Unlock()
			case *kafka.Stats:
				mu.Lock()
				lastStats = ev.String()
				mu.Unlock()
			}
		}
	}()

	topic := "t"
	var vs []string
	produce := func(prefix string, n int) {
		for i := 0; i < n; i++ {
			v := fmt.Sprintf("%s-%d", prefix, i)
			for {
				m := msg(&topic, v)
				m.Key = []byte(fmt.Sprint(i % 60)) // keys on every partition
				err := p.Produce(m, nil)
				if err == nil {
					break
				}
				require.Equal(t, kafka.ErrQueueFull, err.(kafka.Error).Code(), "%v", err)
				p.Flush(100)
			}
			vs = append(vs, v)
		}
	}
	produce("warm", 2000)
	require.Eventually(t, func() bool { return reports.Load() == 2000 }, 20*time.Second, 5*time.Millisecond)

	sched := scenario.Seed(scenario.SeedConfig{Topic: "t", Partition: 0, Down: 50 * time.Millisecond, Up: 150 * time.Millisecond, OutOfOrderOnReturn: true})
	pl := scenario.NewPlayer(c, sched)
	var played atomic.Bool
	playErr := make(chan error, 1)
	go func() {
		defer played.Store(true)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		playErr <- pl.Run(ctx)
	}()
	chunks := 0
	for ; !played.Load() && chunks < 500; chunks++ {
		produce(fmt.Sprintf("during%d", chunks), 200)
	}
	require.NoError(t, <-playErr, "schedule\n%s", sched)
	produce("after", 2000)
	require.Equal(t, 0, p.Flush(15000), "Flush(15000): outstanding")
	require.NoError(t, p.GetFatalError())
	for _, a := range pl.Applied() {
		require.Nil(t, a.Skipped, "seed step did not happen: %s\n%s", a, sched)
	}
	ooo := 0
	for _, pr := range c.Recorder().Produces() {
		if pr.Topic == "t" && pr.Partition == 0 && pr.ErrorCode == codeOutOfOrderSequence {
			ooo++
		}
	}
	require.NotZero(t, ooo, "partition 0 never answered OUT_OF_ORDER_SEQUENCE_NUMBER")

	// The last statistics say how it was recovered: a tail read of the
	// partition and a new epoch.
	time.Sleep(150 * time.Millisecond)
	mu.Lock()
	stats, events := lastStats, errEvents
	mu.Unlock()
	require.Empty(t, events, "Error events")
	require.Empty(t, failures, "failed deliveries")
	var st struct {
		EOS struct {
			EpochCnt int64 `json:"epoch_cnt"`
		} `json:"eos"`
		Topics map[string]struct {
			Partitions map[string]struct {
				TailReads int64 `json:"rollsafe_tail_reads"`
			} `json:"partitions"`
		} `json:"topics"`
	}
	require.NoError(t, json.Unmarshal([]byte(stats), &st), stats)
	require.NotZero(t, st.EOS.EpochCnt, stats)
	require.NotZero(t, st.Topics["t"].Partitions["0"].TailReads, stats)

	mu.Lock()
	defer mu.Unlock()
	verify(t, c.Addrs(), "t", vs, got, true)
	t.Logf("%d messages, %d during the schedule; OUT_OF_ORDER answers on partition 0: %d; epoch bumps %d", len(vs), chunks*200, ooo, st.EOS.EpochCnt)
}
