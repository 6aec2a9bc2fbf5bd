package kafka_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/confluent/kafka"
	"github.com/rollsafe/rollsafe/sim"
)

// TestAcceptedPropertiesReported: properties librdkafka producers set that
// change nothing here are accepted, each reported once on Logs() (Tag
// CONFWARN, warning), a consumer property with librdkafka's producer
// warning; "acks" 1 without "enable.idempotence" gives a
// non-idempotent producer, as librdkafka's default, which delivers.
func TestAcceptedPropertiesReported(t *testing.T) {
	c := newCluster(t, 2)
	p := newProducer(t, c, kafka.ConfigMap{
		"retries": 10, "debug": "broker,topic,msg", "socket.keepalive.enable": true,
		"go.batch.producer": true, "acks": 1, "go.logs.channel.enable": true,
		"socket.timeout.ms": 20000, "group.id": "g",
	})
	want := []string{`"acks"=1 without "enable.idempotence"`, `"debug"="broker,topic,msg"`, `"go.batch.producer"=true`,
		`"retries"=10`, `"socket.keepalive.enable"=true`, `"socket.timeout.ms"="20000" accepted and ignored`,
		"Configuration property group.id is a consumer property and will be ignored by this producer instance"}
	var got []string
	timeout := time.After(30 * time.Second)
	for len(got) < len(want) {
		select {
		case ev := <-p.Logs():
			if ev.Tag == "CONFWARN" {
				require.Equal(t, 4, ev.Level)
				got = append(got, ev.Message)
			}
		case <-timeout:
			t.Fatalf("CONFWARN events: %q", got)
		}
	}
	slices.Sort(got)
	for i, w := range want {
		require.True(t, strings.HasPrefix(got[i], w), "%q starts with %q", got[i], w)
	}

	topic := "t"
	vs := values("acks1", 50)
	for _, v := range vs {
		require.NoError(t, p.Produce(msg(&topic, v), nil))
	}
	verify(t, c.Addrs(), "t", vs, drain(t, p.Events(), len(vs)), true)
	for _, e := range c.Recorder().Produces() {
		require.Equal(t, int16(1), e.Acks)
		require.Equal(t, int64(-1), e.ProducerID, "not idempotent")
	}
	for {
		select {
		case ev := <-p.Logs():
			require.NotEqual(t, "CONFWARN", ev.Tag, "reported once: %v", ev)
			continue
		default:
		}
		break
	}
}

// TestAllowAutoCreateTopics: as librdkafka's producer, the drop-in asks
// brokers to create a topic it does not know (allow.auto.create.topics,
// default true), and a broker with auto.create.topics.enable does;
// allow.auto.create.topics=false keeps it unknown: ErrUnknownTopicOrPart.
func TestAllowAutoCreateTopics(t *testing.T) {
	c := newCluster(t, 1, sim.AutoCreateTopics(2, 3))
	created := "created"
	p := newProducer(t, c, nil)
	vs := values("auto", 20)
	for _, v := range vs {
		require.NoError(t, p.Produce(msg(&created, v), nil))
	}
	got := drain(t, p.Events(), len(vs))
	verify(t, c.Addrs(), created, vs, got, true)

	off := newProducer(t, c, kafka.ConfigMap{"allow.auto.create.topics": false, "topic.metadata.propagation.max.ms": 300})
	never := "never"
	require.NoError(t, off.Produce(msg(&never, "x"), nil))
	for _, r := range drain(t, off.Events(), 1) {
		require.False(t, r.acked)
		require.Equal(t, kafka.MsgStatusNotPersisted, r.status)
	}
	md, err := off.GetMetadata(nil, true, 5000)
	require.NoError(t, err)
	require.NotContains(t, md.Topics, never)
	require.Contains(t, md.Topics, created)
}
