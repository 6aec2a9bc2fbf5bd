package protocol_test

import (
	"context"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/protocol"
	"github.com/rollsafe/rollsafe/sim"
)

// A topic deleted and created again is a new incarnation, whose leader
// epochs (from 0) are taken although they are below the old topic's: by
// its new id, and on brokers without ids (before 2.8) when the topic was
// seen missing in between or its partition count changed with an epoch
// going backwards. A move within one incarnation keeps it.
func TestMetadataIncarnations(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ids   bool
		gap   bool
		parts int32
	}{
		{"ids", true, false, 2},
		{"no-ids/missing-between", false, true, 2},
		{"no-ids/count-changed", false, false, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := []sim.Option{sim.Brokers(3), sim.Topic("t", 2, 3)}
			if !tc.ids {
				opts = append(opts, sim.WithoutTopicIDs())
			}
			c, err := sim.NewCluster(opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			m := protocol.NewMetadata(c.Addrs(), protocol.MetadataConfig{})
			defer m.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			refresh := func() {
				t.Helper()
				if err := m.Refresh(ctx, "t"); err != nil {
					t.Fatal(err)
				}
			}
			refresh()
			first := m.Incarnation("t")
			leader, _ := c.Leader("t", 0)
			if err := c.MoveLeader("t", 0, (leader+1)%3); err != nil {
				t.Fatal(err)
			}
			refresh()
			if _, epoch, inc, err := m.LeaderIn("t", 0); err != nil || epoch != 1 || inc != first {
				t.Fatalf("after a move: epoch %d incarnation %d (was %d), %v", epoch, inc, first, err)
			}
			if err := c.DeleteTopic("t"); err != nil {
				t.Fatal(err)
			}
			if tc.gap {
				if err := m.Refresh(ctx, "t"); err == nil {
					t.Fatal("a deleted topic refreshed without error")
				}
			}
			if err := c.CreateTopic("t", tc.parts, 3); err != nil {
				t.Fatal(err)
			}
			refresh()
			want, _ := c.Leader("t", 0)
			b, epoch, inc, err := m.LeaderIn("t", 0)
			if err != nil || b != want || epoch != 0 || inc <= first {
				t.Fatalf("re-created: leader %d epoch %d incarnation %d (was %d), %v; want leader %d epoch 0, a new incarnation", b, epoch, inc, first, err, want)
			}
			if n, _ := m.Partitions("t"); n != tc.parts {
				t.Fatalf("%d partitions, want %d", n, tc.parts)
			}
		})
	}
}
