package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client"
)

// A leader freezes (it keeps its connections but answers nothing), the
// producer's request to it times out, and the controller moves the
// partition only after that. The producer must find the new leader by
// itself (metadata refreshed while the broker is suspect) and stop
// waiting on the frozen one (its connection dropped): the record is
// acknowledged well before a second request timeout, and written once.
func TestFrozenLeaderMovedAfterTimeout(t *testing.T) {
	c := newCluster(t, 1)
	const reqTimeout = time.Second // answers are given up on 1 s + 2 s slack after
	p := newProducer(t, c, client.RequestTimeout(reqTimeout), client.DeliveryTimeout(time.Minute))
	ctx := context.Background()
	require.NoError(t, p.ProduceSync(ctx, &client.Record{Topic: "t", Value: []byte("warm")}).FirstErr())

	frozen, _ := c.Leader("t", 0)
	require.NoError(t, c.DelayResponses(frozen, 5*time.Second)) // frozen past the request timeout
	t.Cleanup(func() { _ = c.DelayResponses(frozen, 0) })
	start := time.Now()
	done := make(chan client.Results, 1)
	go func() { done <- p.ProduceSync(ctx, &client.Record{Topic: "t", Value: []byte("through")}) }()

	// The controller moves the partition two seconds after the request
	// timed out (1 s + 2 s slack), after the producer's refresh that the
	// timeout asked for, as Kafka's does seconds after a broker freezes.
	time.Sleep(5 * time.Second)
	require.NoError(t, c.MoveLeader("t", 0, (frozen+1)%3))
	var res client.Results
	select {
	case res = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("no outcome 30 s after the leader moved")
	}
	took := time.Since(start)
	t.Logf("acknowledged %v after the freeze", took)
	require.NoError(t, res.FirstErr())
	// Without watching the suspect broker, the retry sent after the first
	// timeout waits on the frozen leader for another 3 s, and the move is
	// only seen after it (~7 s).
	require.Less(t, took, 6500*time.Millisecond, "acknowledged %v after the freeze", took)

	require.NoError(t, c.DelayResponses(frozen, 0))
	require.Equal(t, []string{"warm", "through"}, partitionValues(t, c, "t", 0), "each record once, in order")
}
