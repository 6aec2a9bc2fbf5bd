package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/protocol"
	"github.com/rollsafe/rollsafe/sim"
)

// stallAfter measures how long partition 0 stops making progress when the
// next n produce requests to it are answered with code: from the first
// error answer to the first append after the last one. It also returns one
// metadata round trip measured on the same cluster.
func stallAfter(t testing.TB, code int16, n int) (stall, metadataRTT time.Duration) {
	c, err := sim.NewCluster(sim.Brokers(3), sim.Topic("t", 1, 3))
	require.NoError(t, err)
	defer c.Close()
	p, err := client.NewProducer(client.Brokers(c.Addrs()...), client.Linger(0), client.Compression(0, 0))
	require.NoError(t, err)
	defer p.Close(context.Background())
	ctx := context.Background()
	require.NoError(t, p.ProduceSync(ctx, &client.Record{Topic: "t", Value: []byte("warm")}).FirstErr())

	require.NoError(t, c.InjectError("t", 0, code, n))
	r := newRun()
	r.produce(ctx, t, p, "t", "s", 50, 1)
	require.NoError(t, p.Flush(ctx))
	r.verify(t, c, "t")

	var firstErr, lastErr, resumed time.Time
	for _, pr := range c.Recorder().Produces() {
		switch {
		case pr.ErrorCode == code && firstErr.IsZero():
			firstErr, lastErr = pr.Time, pr.Time
		case pr.ErrorCode == code:
			lastErr = pr.Time
		case pr.Appended && !lastErr.IsZero() && resumed.IsZero() && pr.Time.After(lastErr):
			resumed = pr.Time
		}
	}
	require.False(t, firstErr.IsZero(), "the fault happened")
	require.False(t, resumed.IsZero(), "production resumed")

	meta := protocol.NewMetadata(c.Addrs(), protocol.MetadataConfig{})
	defer meta.Close()
	require.NoError(t, meta.Refresh(ctx, "t")) // connect first
	start := time.Now()
	require.NoError(t, meta.Refresh(ctx, "t"))
	return resumed.Sub(firstErr), time.Since(start)
}

// TestRecoveryIsFast reports how long production stalls after five
// consecutive NOT_LEADER_OR_FOLLOWER answers and after one head
// OUT_OF_ORDER_SEQUENCE_NUMBER (franz-go v1.22 stalls 5 to 25 seconds in
// these cases). Five failures in a row wait out five retry backoffs, each
// twice the one before (10, 20, 40, 80 and 160 ms by default, ±20%:
// client.RetryBackoff); the target is those backoffs plus 100 ms and one
// metadata round trip; the assertion leaves room for -race on a loaded
// machine.
func TestRecoveryIsFast(t *testing.T) {
	for _, tc := range []struct {
		name string
		code int16
		n    int
	}{
		{"5x NOT_LEADER_OR_FOLLOWER", codeNotLeader, 5},
		{"1x OUT_OF_ORDER_SEQUENCE_NUMBER", codeOutOfOrderSequence, 1},
	} {
		stall, rtt := stallAfter(t, tc.code, tc.n)
		var backoffs time.Duration // the longest the n retry backoffs can be
		if tc.code == codeNotLeader {
			for i := range tc.n {
				backoffs += min(10*time.Millisecond<<i, time.Second) * 12 / 10
			}
		}
		t.Logf("%s: production resumed after %v (backoffs at most %v, metadata round trip %v)", tc.name, stall.Round(time.Microsecond), backoffs, rtt.Round(time.Microsecond))
		require.Less(t, stall, backoffs+500*time.Millisecond+rtt, tc.name)
	}
}

// BenchmarkRecovery reports the stall (ms) after 5 NOT_LEADER answers and
// after one head OUT_OF_ORDER answer, as metrics for benchstat.
func BenchmarkRecovery(b *testing.B) {
	for _, tc := range []struct {
		name string
		code int16
		n    int
	}{{"notleader5", codeNotLeader, 5}, {"outoforder1", codeOutOfOrderSequence, 1}} {
		b.Run(tc.name, func(b *testing.B) {
			var total, rtts time.Duration
			for i := 0; i < b.N; i++ {
				stall, rtt := stallAfter(b, tc.code, tc.n)
				total += stall
				rtts += rtt
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "stall-ms")
			b.ReportMetric(float64(rtts.Microseconds())/1000/float64(b.N), "metadata-rtt-ms")
		})
	}
}
