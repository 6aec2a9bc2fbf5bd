package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/sim"
)

// With ProduceConnections(3) every broker gets three produce connections
// and each partition keeps to one of them, while leaders move and a broker
// restarts: the log read back holds every acknowledged record once, in
// order, and the brokers' own record of the produce requests shows which
// connection carried each partition's batches.
func TestProduceConnectionsSpreadPartitions(t *testing.T) {
	c := newCluster(t, 12, sim.RecorderLimit(1<<20))
	p := newProducer(t, c, client.ProduceConnections(3))
	r := newRun()
	ctx := context.Background()

	// Before any fault: one connection per (broker, partition), several
	// per broker.
	r.produce(ctx, t, p, "t", "a", 6000, 120)
	require.NoError(t, p.Flush(ctx))
	perPart := map[[2]int32]map[uint64]bool{}
	perBroker := map[int32]map[uint64]bool{}
	for _, pr := range c.Recorder().Produces() {
		k := [2]int32{pr.Broker, pr.Partition}
		if perPart[k] == nil {
			perPart[k] = map[uint64]bool{}
		}
		perPart[k][pr.Conn] = true
		if perBroker[pr.Broker] == nil {
			perBroker[pr.Broker] = map[uint64]bool{}
		}
		perBroker[pr.Broker][pr.Conn] = true
	}
	require.Len(t, perPart, 12, "every partition was produced to")
	for k, conns := range perPart {
		require.Len(t, conns, 1, "broker %d partition %d: one connection", k[0], k[1])
	}
	for b, conns := range perBroker {
		// Four partitions per broker (leaders round robin) over three
		// lanes: every lane is used.
		require.Len(t, conns, 3, "broker %d: the partitions it leads spread over its connections", b)
	}

	// Leaders move and a broker restarts while records flow.
	stop := make(chan struct{})
	faults := make(chan error, 1)
	go func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				faults <- nil
				return
			case <-time.After(3 * time.Millisecond):
			}
			if i == 40 {
				if err := c.KillBroker(2); err != nil {
					faults <- err
					return
				}
				continue
			}
			if i == 80 {
				if err := c.StartBroker(2); err != nil {
					faults <- err
					return
				}
				continue
			}
			part := int32(i % 12)
			leader, _ := c.Leader("t", part)
			_ = c.MoveLeader("t", part, (leader+1)%3)
		}
	}()
	r.produce(ctx, t, p, "t", "b", 30000, 240)
	require.NoError(t, p.Flush(ctx))
	close(stop)
	require.NoError(t, <-faults)
	rep := r.verify(t, c, "t")
	require.Equal(t, 36000, rep.Acked, "every record acknowledged")
}
