package client_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/protocol"
)

// hookLog records what the connection, throttle and batch hooks report.
type hookLog struct {
	mu          sync.Mutex
	connects    map[int32]int // successful dials per broker (-1: metadata)
	dialFails   int
	disconnects map[int32]int
	closedByUs  int
	throttles   map[int32][]time.Duration
	doneRecs    int
	doneFailed  int
	doneBytes   int
}

func (h *hookLog) hooks() client.Hooks {
	h.connects, h.disconnects, h.throttles = map[int32]int{}, map[int32]int{}, map[int32][]time.Duration{}
	return client.Hooks{
		BrokerConnect: func(broker int32, addr string, d time.Duration, err error) {
			h.mu.Lock()
			defer h.mu.Unlock()
			if err != nil {
				h.dialFails++
				return
			}
			h.connects[broker]++
		},
		BrokerDisconnect: func(broker int32, addr string, err error) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.disconnects[broker]++
			if errors.Is(err, protocol.ErrConnClosed) {
				h.closedByUs++
			}
		},
		BrokerThrottle: func(broker int32, d time.Duration) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.throttles[broker] = append(h.throttles[broker], d)
		},
		BatchDone: func(topic string, partition int32, records, bytes int, d time.Duration, err error) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.doneRecs += records
			h.doneBytes += bytes
			if err != nil {
				h.doneFailed += records
			}
		},
	}
}

// The connection hooks report each dial and, by the time Close returns,
// each connection's end (closed by the producer); a throttled broker's
// throttle time reaches BrokerThrottle; BatchDone accounts for every
// record produced.
func TestHooksConnectThrottleDone(t *testing.T) {
	c := newCluster(t, 3)
	var h hookLog
	p, err := client.NewProducer(client.Brokers(c.Addrs()...), client.Linger(time.Millisecond), client.WithHooks(h.hooks()))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	leader, _ := c.Leader("t", 1)
	require.NoError(t, c.ThrottleProduce(leader, 40*time.Millisecond))
	var rs []*client.Record
	for i := range 30 {
		rs = append(rs, &client.Record{Topic: "t", Partition: int32(i % 3), HasPartition: true, Value: []byte("v")})
	}
	require.NoError(t, p.ProduceSync(ctx, rs...).FirstErr())
	require.NoError(t, p.Close(ctx))

	h.mu.Lock()
	defer h.mu.Unlock()
	require.GreaterOrEqual(t, h.connects[-1], 1, "a metadata connection")
	for _, b := range []int32{0, 1, 2} {
		require.GreaterOrEqual(t, h.connects[b], 1, "a produce connection to broker %d", b)
	}
	total := 0
	for b, n := range h.connects {
		require.Equal(t, n, h.disconnects[b], "broker %d: every connection reported ended by Close", b)
		total += n
	}
	require.Equal(t, total, h.closedByUs, "every connection ended by the producer's Close")
	require.Zero(t, h.dialFails)
	require.NotEmpty(t, h.throttles[leader], "the throttled leader's throttle")
	for _, d := range h.throttles[leader] {
		require.Equal(t, 40*time.Millisecond, d)
	}
	for b := range h.throttles {
		require.Equal(t, leader, b, "only the throttled broker throttles")
	}
	require.Equal(t, 30, h.doneRecs)
	require.Zero(t, h.doneFailed)
	require.Positive(t, h.doneBytes)
}
