package client_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/sim"
)

// Kafka error codes the fault tests inject.
const (
	codeInvalidRecord           int16 = 87
	codeNotLeader               int16 = 6
	codeRequestTimedOut         int16 = 7
	codeMessageTooLarge         int16 = 10
	codeNotEnoughReplicas       int16 = 19
	codeNotEnoughReplicasAfter  int16 = 20
	codeTopicAuthorization      int16 = 29
	codeOutOfOrderSequence      int16 = 45
	codeDuplicateSequence       int16 = 46
	codeInvalidProducerEpoch    int16 = 47
	codeUnknownProducerID       int16 = 59
	codeLeaderNotAvailable      int16 = 5
	codeUnknownTopicOrPartition int16 = 3
)

// hooks returns the client.Hooks that count into h.
func (h *countingHooks) hooks() client.Hooks {
	return client.Hooks{BatchSent: h.BatchSent, EpochBumped: h.EpochBumped, TailRead: h.TailRead, DataLossDetected: h.DataLossDetected}
}

// countingHooks counts the producer's recovery actions.
type countingHooks struct {
	retries, bumps, tails, losses atomic.Int64
	mu                            sync.Mutex
	lost                          []client.DataLoss
}

func (h *countingHooks) BatchSent(_ string, _ int32, _ int32, _ int, _ int, retry bool) {
	if retry {
		h.retries.Add(1)
	}
}
func (h *countingHooks) EpochBumped(string, int32, int64, int16) { h.bumps.Add(1) }
func (h *countingHooks) TailRead(string, int32, int64)           { h.tails.Add(1) }
func (h *countingHooks) DataLossDetected(d client.DataLoss) {
	h.losses.Add(1)
	h.mu.Lock()
	h.lost = append(h.lost, d)
	h.mu.Unlock()
}

// answered counts produce answers with code for topic t, partition p.
func answered(c *sim.Cluster, p int32, code int16) int {
	n := 0
	for _, pr := range c.Recorder().Produces() {
		if pr.Topic == "t" && pr.Partition == p && pr.ErrorCode == code {
			n++
		}
	}
	return n
}

// faultCase is one idempotence rule driven through the public API: warm the
// partitions up, inject the fault on partition 0, produce through it, then
// check the log and that production goes on.
type faultCase struct {
	name   string
	opts   []sim.Option
	inject func(t *testing.T, c *sim.Cluster)
	code   int16 // an answer with this code must have happened on partition 0 (0: skip)
	check  func(t *testing.T, c *sim.Cluster, h *countingHooks, r *run)
}

func TestIdempotenceRulesEndToEnd(t *testing.T) {
	inject := func(code int16, n int, after bool) func(*testing.T, *sim.Cluster) {
		return func(t *testing.T, c *sim.Cluster) {
			if after {
				require.NoError(t, c.InjectErrorAfterAppend("t", 0, code, n))
				return
			}
			require.NoError(t, c.InjectError("t", 0, code, n))
		}
	}
	wantBump := func(t *testing.T, _ *sim.Cluster, h *countingHooks, _ *run) {
		require.Positive(t, h.tails.Load(), "a desynchronised partition reads its tail")
		require.Positive(t, h.bumps.Load(), "and bumps its epoch")
	}
	noBump := func(t *testing.T, _ *sim.Cluster, h *countingHooks, _ *run) {
		require.Zero(t, h.bumps.Load(), "no epoch bump for an error that keeps sequences")
	}
	cases := []faultCase{
		{name: "not leader x5 keeps sequences", inject: inject(codeNotLeader, 5, false), code: codeNotLeader, check: noBump},
		{name: "leader not available", inject: inject(codeLeaderNotAvailable, 2, false), code: codeLeaderNotAvailable, check: noBump},
		{name: "unknown topic or partition", inject: inject(codeUnknownTopicOrPartition, 2, false), code: codeUnknownTopicOrPartition, check: noBump},
		{name: "not enough replicas", inject: inject(codeNotEnoughReplicas, 3, false), code: codeNotEnoughReplicas, check: noBump},
		{name: "request timed out after append is deduplicated", inject: inject(codeRequestTimedOut, 1, true), code: codeRequestTimedOut,
			check: func(t *testing.T, c *sim.Cluster, h *countingHooks, r *run) {
				noBump(t, c, h, r)
				dups := 0
				for _, pr := range c.Recorder().Produces() {
					if pr.Duplicate {
						dups++
					}
				}
				require.Positive(t, dups, "the retry of the appended batch met the broker's dedup window")
			}},
		{name: "not enough replicas after append", inject: inject(codeNotEnoughReplicasAfter, 2, true), code: codeNotEnoughReplicasAfter, check: noBump},
		{name: "connection closed after append", inject: func(t *testing.T, c *sim.Cluster) {
			require.NoError(t, c.CloseConnAfterAppend("t", 0, 1))
		}, check: noBump},
		{name: "response dropped after append", inject: func(t *testing.T, c *sim.Cluster) {
			require.NoError(t, c.DropResponses("t", 0, 1))
		}, check: noBump},
		{name: "head out of order desynchronises one partition", inject: inject(codeOutOfOrderSequence, 1, false), code: codeOutOfOrderSequence, check: wantBump},
		{name: "unknown producer id", inject: inject(codeUnknownProducerID, 1, false), code: codeUnknownProducerID, check: wantBump},
		{name: "invalid producer epoch on unappended batch", inject: inject(codeInvalidProducerEpoch, 1, false), code: codeInvalidProducerEpoch},
		{name: "duplicate sequence number is success", inject: inject(codeDuplicateSequence, 1, true), code: codeDuplicateSequence, check: noBump},
		{name: "message too large splits", inject: inject(codeMessageTooLarge, 1, false), code: codeMessageTooLarge},
		{name: "producer state expired", inject: func(t *testing.T, c *sim.Cluster) {
			for _, pr := range c.Recorder().Produces() {
				c.ExpireProducer(pr.ProducerID)
				return
			}
		}},
		{name: "producer state expired pre-2.5", opts: []sim.Option{sim.Pre25()}, inject: func(t *testing.T, c *sim.Cluster) {
			for _, pr := range c.Recorder().Produces() {
				c.ExpireProducer(pr.ProducerID)
				return
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t, 2, tc.opts...)
			h := &countingHooks{}
			p := newProducer(t, c, client.WithHooks(h.hooks()), client.BatchBytes(4<<10), client.RequestTimeout(time.Second))
			r := newRun()
			ctx := context.Background()
			r.produce(ctx, t, p, "t", "warm", 200, 8)
			require.NoError(t, p.Flush(ctx))
			tc.inject(t, c)
			r.produce(ctx, t, p, "t", "fault", 2000, 8)
			require.NoError(t, p.Flush(ctx))
			r.produce(ctx, t, p, "t", "after", 200, 8)
			require.NoError(t, p.Flush(ctx))
			rep := r.verify(t, c, "t")
			require.Equal(t, 2400, rep.Acked, "every record acknowledged: %v", r.errs)
			if tc.code != 0 {
				require.Positive(t, answered(c, 0, tc.code), "the fault happened")
			}
			if tc.check != nil {
				tc.check(t, c, h, r)
			}
			require.Zero(t, h.losses.Load())
		})
	}
}

func TestNonRetriableErrorFailsOnlyThatBatch(t *testing.T) {
	for _, code := range []int16{codeTopicAuthorization, codeInvalidRecord} {
		c := newCluster(t, 1)
		p := newProducer(t, c, client.Linger(0))
		ctx := context.Background()
		require.NoError(t, p.ProduceSync(ctx, &client.Record{Topic: "t", Value: []byte("first")}).FirstErr())
		require.NoError(t, c.InjectError("t", 0, code, 1))
		res := p.ProduceSync(ctx, &client.Record{Topic: "t", Value: []byte("refused")})
		err := res.FirstErr()
		require.ErrorIs(t, err, client.ErrNotWritten)
		if code == codeTopicAuthorization {
			require.ErrorIs(t, err, client.ErrAuthorization)
		}
		r := newRun()
		r.produce(ctx, t, p, "t", "later", 300, 4)
		require.NoError(t, p.Flush(ctx))
		r.verify(t, c, "t")
		recs, err := c.Records("t", 0)
		require.NoError(t, err)
		for _, b := range recs {
			for _, rec := range b.Records {
				require.NotEqual(t, "refused", string(rec.Value))
			}
		}
	}
}

func TestDeliveryTimeoutNeverWritten(t *testing.T) {
	c, err := sim.NewCluster(sim.Brokers(1), sim.Topic("t", 1, 1))
	require.NoError(t, err)
	defer c.Close()
	p := newProducer(t, c, client.DeliveryTimeout(300*time.Millisecond), client.Linger(0))
	ctx := context.Background()
	require.NoError(t, p.ProduceSync(ctx, &client.Record{Topic: "t", Value: []byte("ok")}).FirstErr())
	require.NoError(t, c.StopBroker(0))
	start := time.Now()
	err = p.ProduceSync(ctx, &client.Record{Topic: "t", Value: []byte("late")}).FirstErr()
	require.ErrorIs(t, err, client.ErrDeliveryTimeout)
	require.True(t, errors.Is(err, client.ErrNotWritten) || errors.Is(err, client.ErrOutcomeUnknown), "%v", err)
	require.Less(t, time.Since(start), 3*time.Second)
}

func TestUncleanElectionReportsDataLoss(t *testing.T) {
	c := newCluster(t, 1)
	h := &countingHooks{}
	var lossMu sync.Mutex
	var losses []client.DataLoss
	p := newProducer(t, c, client.WithHooks(h.hooks()), client.Linger(0), client.OnDataLoss(func(d client.DataLoss) {
		lossMu.Lock()
		losses = append(losses, d)
		lossMu.Unlock()
	}))
	ctx := context.Background()
	leader, _ := c.Leader("t", 0)
	lagging := (leader + 1) % 3
	require.NoError(t, c.PauseReplication("t", 0, lagging))
	r := newRun()
	r.produce(ctx, t, p, "t", "before", 100, 1)
	require.NoError(t, p.Flush(ctx))
	lost, err := c.UncleanElect("t", 0, lagging)
	require.NoError(t, err)
	require.NotEmpty(t, lost)
	// The truncated records were acknowledged; the producer must notice
	// when it next writes and reads the tail, and keep going.
	r2 := newRun()
	r2.produce(ctx, t, p, "t", "after", 100, 1)
	require.NoError(t, p.Flush(ctx))
	r2.verify(t, c, "t")
	lossMu.Lock()
	defer lossMu.Unlock()
	require.NotEmpty(t, losses, "data loss reported")
	require.Equal(t, lost[0].From, losses[0].FromOffset)
	require.Equal(t, lost[len(lost)-1].To-1, losses[len(losses)-1].ToOffset)
}
