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

// TestPurge: one batch in flight (its append held by the leader for 1.5 s)
// and messages queued behind it; Purge(PurgeQueue) reports the queued ones
// ErrPurgeQueue (not persisted, retriable) at once, Purge(PurgeQueue |
// PurgeInFlight) also the one in flight ErrPurgeInflight (possibly
// persisted). The producer goes on; the log read back holds every
// delivered message once, in order, and no message reported not persisted.
func TestPurge(t *testing.T) {
	for _, flags := range []int{kafka.PurgeQueue, kafka.PurgeQueue | kafka.PurgeInFlight, kafka.PurgeQueue | kafka.PurgeNonBlocking} {
		t.Run(fmt.Sprintf("flags=%d", flags), func(t *testing.T) {
			c := newCluster(t, 1)
			p := newProducer(t, c, kafka.ConfigMap{"max.in.flight": 1, "batch.num.messages": 10, "linger.ms": 2})
			topic := "t"
			dr := make(chan kafka.Event, 1000)
			produce := func(prefix string, n int) []string {
				var vs []string
				for i := range n {
					v := fmt.Sprintf("%s-%d", prefix, i)
					vs = append(vs, v)
					require.NoError(t, p.Produce(&kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: 0}, Value: []byte(v)}, dr))
				}
				return vs
			}
			got := map[string]*kafka.Message{}
			take := func(n int, within time.Duration) {
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
			all := produce("warm", 1)
			take(1, 10*time.Second)
			require.NoError(t, c.DelayProcessing(topic, 0, 1, 1500*time.Millisecond))
			all = append(all, produce("held", 10)...)
			time.Sleep(200 * time.Millisecond)
			all = append(all, produce("queued", 95)...)

			start := time.Now()
			require.NoError(t, p.Purge(flags))
			inFlight := flags&kafka.PurgeInFlight != 0
			n := 95
			if inFlight {
				n += 10
			}
			take(n, time.Second) // long before the held append ends
			require.Less(t, time.Since(start), 1200*time.Millisecond)
			for i := range 95 {
				m := got[fmt.Sprintf("queued-%d", i)]
				require.NotNil(t, m, "queued-%d", i)
				e := m.TopicPartition.Error.(kafka.Error)
				require.Equal(t, kafka.ErrPurgeQueue, e.Code(), "%v", e)
				require.Equal(t, kafka.MsgStatusNotPersisted, m.Status())
				require.True(t, e.IsRetriable())
				require.True(t, errors.Is(e, client.ErrPurged) && errors.Is(e, client.ErrNotWritten))
			}
			if inFlight {
				for i := range 10 {
					m := got[fmt.Sprintf("held-%d", i)]
					e := m.TopicPartition.Error.(kafka.Error)
					require.Equal(t, kafka.ErrPurgeInflight, e.Code(), "%v", e)
					require.Equal(t, kafka.MsgStatusPossiblyPersisted, m.Status())
					require.False(t, e.IsRetriable(), "resending may duplicate it")
				}
			}

			all = append(all, produce("after", 30)...)
			require.Zero(t, p.Flush(10000))
			take(len(all)-len(got), time.Second)
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
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			log, err := readback.ReadTopic(ctx, c.Addrs(), topic)
			require.NoError(t, err)
			rep := readback.Check(log, produced, func(r readback.Record) string { return string(r.Value) })
			require.True(t, rep.OK(), "%s\n%s", rep, strings.Join(rep.Problems, "\n"))
			require.Len(t, log[0], 1+10+30, "warm, held (appended, purged or not) and after")
		})
	}
	c := newCluster(t, 1)
	p := newProducer(t, c, nil)
	require.Equal(t, kafka.ErrInvalidArg, p.Purge(0x8).(kafka.Error).Code())
	require.NoError(t, p.Purge(0))
	p.Close()
	require.Equal(t, kafka.ErrState, p.Purge(kafka.PurgeQueue).(kafka.Error).Code())
}
