package kafka_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/kafkatest"
)

// TestProgramsOnRealKafka runs the four confluent-kafka-go programs
// (compiled with only their import line changed) against a real 3-node
// Apache Kafka cluster (kafkatest), one topic each, and reads every record
// back: each message reported delivered is in the log exactly once, at the
// reported offset, in order. Without Java or the Kafka jars it is skipped
// with kafkatest's message on how to fetch them (and fails under CI=true).
// Cost: one cluster launch (tens of seconds) plus a few seconds.
func TestProgramsOnRealKafka(t *testing.T) {
	kafkatest.Require(t)
	dir := buildPrograms(t)
	c := kafkatest.LaunchT(t, kafkatest.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	counts := map[string]int{"async": 3000, "events": 3000, "sync": 100, "keyed": 2000}
	for _, name := range programNames[:4] {
		topic := "confluent-" + name
		require.NoError(t, c.CreateTopic(ctx, kafkatest.Topic{Name: topic, Partitions: 4, Replication: 3}))
		require.NoError(t, c.WaitLeaders(ctx, topic))
	}
	for _, name := range programNames[:4] {
		t.Run(name, func(t *testing.T) {
			topic := "confluent-" + name
			n := counts[name]
			got, _ := runProgram(t, dir, name, c.Addrs(), topic, n)
			log := verify(t, c.Addrs(), topic, values(name, n), got, true)
			if name == "keyed" {
				checkKeyed(t, log)
			}
		})
	}
}
