package kafkatest

import (
	"context"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/internal/kafkacheck"
)

// TestELR runs kafkacheck.ELRElection, which the sim runs too
// (sim.TestKafkaELRElection), on a cluster of five nodes: the check has
// two of them down at once, which a three-node cluster whose every node is
// a KRaft voter cannot take (no quorum is left to elect anyone). A
// follower stopped while too few replicas are in sync is elected from
// the eligible leader replicas once it is back and the leader is gone;
// one that crashed is not, while the other is eligible; with nobody
// eligible, the last leader is. Then rollsafe's producer goes through the
// last of these (producer-both-crashed). kafkacheck.PowerCut (power-cut)
// shows what a power cut takes from a leader left alone in the ISR, and
// rollsafe's producer goes through one (producer-power-cut).
func TestELR(t *testing.T) {
	c := LaunchT(t, Config{Brokers: 5})
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	for _, k := range kafkacheck.ELRCases {
		t.Run(k.String(), func(t *testing.T) {
			restoreNodes(t, ctx, c)
			r := healthyTopic(t, ctx, c, Topic{Name: "elr-" + k.String(), Replication: 2, Configs: map[string]string{"min.insync.replicas": "2"}})
			if err := kafkacheck.ELRElection(ctx, r, r.topic, k, 10*time.Second); err != nil {
				t.Fatal(err)
			}
		})
	}
	t.Run("power-cut", func(t *testing.T) {
		restoreNodes(t, ctx, c)
		r := healthyTopic(t, ctx, c, Topic{Name: "power-cut-check", Replication: 2, Configs: map[string]string{"min.insync.replicas": "1"}})
		if err := kafkacheck.PowerCut(ctx, r, r.topic); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("producer-both-crashed", func(t *testing.T) { testProducerLastLeaderBack(t, ctx, c) })
	t.Run("producer-power-cut", func(t *testing.T) { testProducerPowerCut(t, ctx, c) })
}
