package sim

import (
	"context"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/internal/kafkacheck"
	"github.com/rollsafe/rollsafe/protocol"
)

// TestKafkaChecks runs on the sim the checks kafkatest's TestCluster runs
// on Apache Kafka (invalid-records, offset-deltas): the sim must answer
// and keep what Kafka does.
func TestKafkaChecks(t *testing.T) {
	for name, check := range map[string]func(context.Context, *protocol.Conn, string, int32) error{
		"invalid-records": kafkacheck.InvalidRecords,
		"offset-deltas":   kafkacheck.OffsetDeltas,
		"sequences":       kafkacheck.Sequences,
		"batch-rules":     kafkacheck.BatchRules,
	} {
		t.Run(name, func(t *testing.T) {
			c := newTestCluster(t, Topic(name, 1, 1))
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			conn, err := protocol.Dial(ctx, c.Addrs()[0], protocol.ConnConfig{})
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if err := check(ctx, conn, name, 0); err != nil {
				t.Fatal(err)
			}
		})
	}
}
