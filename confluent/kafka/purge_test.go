package kafka_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/confluent/kafka"
)

// purgeCase is one purge while the leader of topic's partition 0 holds
// the producer's requests: hold makes it hold them, release lets it go.
type purgeCase struct {
	addrs         []string
	topic         string
	flags         int
	hold, release func()
	// exact: the in-flight batch is known (the sim holds exactly one
	// append): 10 messages in flight, 95 queued behind them.
	exact bool
}

// runPurge: messages in flight (their requests held) and queued behind
// them; Purge reports the queued ones ErrPurgeQueue (not persisted,
// retriable) at once, with PurgeInFlight the ones in flight
// ErrPurgeInflight (possibly persisted, not retriable). The producer goes
// on; the log read back holds every delivered message once, at its
// offset, in order, and no message reported not persisted.
func runPurge(t *testing.T, p *kafka.Producer, pc purgeCase) {
	topic := pc.topic
	dr := make(chan kafka.Event, 10000)
	var all []string
	produce := func(prefix string, n int) {
		for i := range n {
			v := fmt.Sprintf("%s-%d", prefix, i)
			all = append(all, v)
			require.NoError(t, p.Produce(&kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: 0}, Value: []byte(v)}, dr))
		}
	}
	got := map[string]*kafka.Message{}
	take := func(n int, within time.Duration) {
		t.Helper()
		deadline := time.After(within)
		for range n {
			select {
			case e := <-dr:
				m := e.(*kafka.Message)
				got[string(m.Value)] = m
			case <-deadline:
				t.Fatalf("%d delivery reports, want %d more", len(got), n)
			}
		}
	}
	produce("warm", 1)
	take(1, 30*time.Second)
	pc.hold()
	released := false
	defer func() {
		if !released {
			pc.release()
		}
	}()
	produce("held", 10)
	time.Sleep(200 * time.Millisecond)
	produce("queued", 95)
	time.Sleep(50 * time.Millisecond)

	start := time.Now()
	require.NoError(t, p.Purge(pc.flags))
	inFlight := pc.flags&kafka.PurgeInFlight != 0
	n := 95
	if inFlight || !pc.exact {
		n = 105 // every message not acknowledged, in flight or not
	}
	if !inFlight && !pc.exact {
		n = -1 // as many as were queued: counted below
	}
	if n > 0 {
		take(n, 2*time.Second) // long before the held requests are answered
	} else {
		take(1, 2*time.Second)
		for len(dr) > 0 {
			take(1, time.Second)
		}
	}
	require.Less(t, time.Since(start), 2500*time.Millisecond, "Purge waited for the cluster")
	counts := map[kafka.ErrorCode]int{}
	for v, m := range got {
		if v == "warm-0" {
			continue
		}
		e := m.TopicPartition.Error.(kafka.Error)
		counts[e.Code()]++
		switch e.Code() {
		case kafka.ErrPurgeQueue:
			require.Equal(t, kafka.MsgStatusNotPersisted, m.Status(), v)
			require.True(t, e.IsRetriable(), v)
			require.True(t, errors.Is(e, client.ErrPurged) && errors.Is(e, client.ErrNotWritten), v)
		case kafka.ErrPurgeInflight:
			require.True(t, inFlight, "%s purged in flight without PurgeInFlight", v)
			require.Equal(t, kafka.MsgStatusPossiblyPersisted, m.Status(), v)
			require.False(t, e.IsRetriable(), "resending %s may duplicate it", v)
		default:
			t.Fatalf("%s: %v", v, e)
		}
	}
	t.Logf("purged: %v", counts)
	if pc.exact {
		require.Equal(t, 95, counts[kafka.ErrPurgeQueue])
		if inFlight {
			require.Equal(t, 10, counts[kafka.ErrPurgeInflight])
		}
	} else if inFlight {
		require.Positive(t, counts[kafka.ErrPurgeInflight], "nothing was in flight")
	}
	pc.release()
	released = true

	produce("after", 30)
	require.Zero(t, p.Flush(60000))
	take(len(all)-len(got), 5*time.Second)
	var produced []readback.Produced
	for _, v := range all {
		m := got[v]
		pr := readback.Produced{ID: v, Partition: 0, Offset: -1}
		if m.TopicPartition.Error == nil {
			pr.Acked, pr.Offset = true, int64(m.TopicPartition.Offset)
		} else {
			pr.NotWritten = m.Status() == kafka.MsgStatusNotPersisted
		}
		produced = append(produced, pr)
	}
	for i := range 30 {
		require.NoError(t, got[fmt.Sprintf("after-%d", i)].TopicPartition.Error, "the producer goes on")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	log, err := readback.ReadTopic(ctx, pc.addrs, topic)
	require.NoError(t, err)
	rep := readback.Check(log, produced, func(r readback.Record) string { return string(r.Value) })
	require.True(t, rep.OK(), "%s\n%s", rep, strings.Join(rep.Problems, "\n"))
	t.Logf("in the log: %d of %d", len(log[0]), len(all))
}

// TestPurge runs runPurge on the sim, whose leader holds exactly one
// append for 1.5 s: 10 messages in flight, 95 queued behind them. Also:
// invalid flags, no flags, and Purge after Close.
func TestPurge(t *testing.T) {
	for _, flags := range []int{kafka.PurgeQueue, kafka.PurgeQueue | kafka.PurgeInFlight, kafka.PurgeQueue | kafka.PurgeNonBlocking} {
		t.Run(fmt.Sprintf("flags=%d", flags), func(t *testing.T) {
			c := newCluster(t, 1)
			p := newProducer(t, c, kafka.ConfigMap{"max.in.flight": 1, "batch.num.messages": 10, "linger.ms": 2})
			runPurge(t, p, purgeCase{
				addrs: c.Addrs(), topic: "t", flags: flags, exact: true,
				hold:    func() { require.NoError(t, c.DelayProcessing("t", 0, 1, 1500*time.Millisecond)) },
				release: func() {},
			})
		})
	}
	c := newCluster(t, 1)
	p := newProducer(t, c, nil)
	require.Equal(t, kafka.ErrInvalidArg, p.Purge(0x8).(kafka.Error).Code())
	require.NoError(t, p.Purge(0))
	p.Close()
	require.Equal(t, kafka.ErrState, p.Purge(kafka.PurgeQueue).(kafka.Error).Code())
}
