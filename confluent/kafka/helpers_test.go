package kafka_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/confluent/kafka"
	"github.com/rollsafe/rollsafe/sim"
)

// newCluster starts a 3-broker sim holding topic "t" with parts partitions.
func newCluster(t testing.TB, parts int32, opts ...sim.Option) *sim.Cluster {
	t.Helper()
	opts = append([]sim.Option{sim.Brokers(3), sim.Topic("t", parts, 3), sim.Seed(1)}, opts...)
	c, err := sim.NewCluster(opts...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	return c
}

// newProducer makes a producer on c with extra properties and closes it
// (checking that no goroutine is left) when the test ends.
func newProducer(t testing.TB, c *sim.Cluster, props kafka.ConfigMap) *kafka.Producer {
	t.Helper()
	before := runtime.NumGoroutine()
	conf := kafka.ConfigMap{"bootstrap.servers": strings.Join(c.Addrs(), ",")}
	for k, v := range props {
		conf[k] = v
	}
	p, err := kafka.NewProducer(&conf)
	require.NoError(t, err)
	t.Cleanup(func() {
		p.Close()
		waitGoroutines(t, before)
	})
	return p
}

// waitGoroutines fails the test if the goroutine count does not fall back
// to before within a few seconds.
func waitGoroutines(t testing.TB, before int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		t.Fatalf("goroutines leaked: %d before, %d after\n%s", before, n, buf)
	}
}

// report is what a producer said about one message, by its value.
type report struct {
	partition int32
	offset    int64
	acked     bool
	status    kafka.MsgStatus
}

// verify reads topic back from brokers and checks that exactly the
// messages values[i] reported acknowledged are in the log, once each, at
// the reported place, in order; and that every message was acknowledged
// when all is set.
func verify(t testing.TB, brokers []string, topic string, values []string, got map[string]report, all bool) map[int32][]readback.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	log, err := readback.ReadTopic(ctx, brokers, topic)
	require.NoError(t, err)
	produced := make([]readback.Produced, len(values))
	for i, v := range values {
		r, ok := got[v]
		if all {
			require.True(t, ok && r.acked, "no successful delivery report for %s", v)
		}
		produced[i] = readback.Produced{ID: v, Partition: r.partition, Offset: -1}
		if ok && r.acked {
			produced[i].Acked, produced[i].Offset = true, r.offset
		}
		if ok && !r.acked {
			produced[i].NotWritten = r.status == kafka.MsgStatusNotPersisted
		}
	}
	rep := readback.Check(log, produced, func(r readback.Record) string { return string(r.Value) })
	require.True(t, rep.OK(), "%s\n%s", rep, strings.Join(rep.Problems, "\n"))
	if all {
		require.Equal(t, len(values), rep.InLog, "records in the log")
	}
	return log
}

// drain reads n delivery reports from ch (skipping other events).
func drain(t testing.TB, ch chan kafka.Event, n int) map[string]report {
	t.Helper()
	got := map[string]report{}
	timeout := time.After(60 * time.Second)
	for len(got) < n {
		select {
		case e := <-ch:
			m, ok := e.(*kafka.Message)
			if !ok {
				continue
			}
			v := string(m.Value)
			if _, dup := got[v]; dup {
				t.Fatalf("two delivery reports for %s", v)
			}
			got[v] = report{partition: m.TopicPartition.Partition, offset: int64(m.TopicPartition.Offset), acked: m.TopicPartition.Error == nil, status: m.Status()}
		case <-timeout:
			t.Fatalf("%d of %d delivery reports after 60s", len(got), n)
		}
	}
	return got
}

func values(prefix string, n int) []string {
	vs := make([]string, n)
	for i := range vs {
		vs[i] = fmt.Sprintf("%s-%d", prefix, i)
	}
	return vs
}
