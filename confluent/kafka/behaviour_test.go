package kafka_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/confluent/kafka"
	"github.com/rollsafe/rollsafe/protocol"
	"github.com/rollsafe/rollsafe/sim"
)

func msg(topic *string, value string) *kafka.Message {
	return &kafka.Message{TopicPartition: kafka.TopicPartition{Topic: topic, Partition: kafka.PartitionAny}, Value: []byte(value)}
}

// TestQueueFullIsSynchronous: with queue.buffering.max.messages reached,
// Produce returns ErrQueueFull at once; reading delivery reports makes room.
func TestQueueFullIsSynchronous(t *testing.T) {
	c := newCluster(t, 2)
	// An unbuffered Events() channel nobody reads holds every report, so
	// the queue cannot drain.
	p := newProducer(t, c, kafka.ConfigMap{"queue.buffering.max.messages": 10, "go.events.channel.size": 0})
	topic := "t"
	vs := values("q", 11)
	for _, v := range vs[:10] {
		require.NoError(t, p.Produce(msg(&topic, v), nil))
	}
	err := p.Produce(msg(&topic, "overflow"), nil)
	var ke kafka.Error
	require.True(t, errors.As(err, &ke), "%v", err)
	require.Equal(t, kafka.ErrQueueFull, ke.Code())
	require.True(t, ke.IsRetriable())
	require.True(t, errors.Is(err, client.ErrBufferFull))
	// Once written, nine reports wait in the client and the tenth is in
	// the callback goroutine's hand, being given to Events(): Len leaves
	// that one out, as confluent-kafka-go's leaves out the one its poller
	// holds, yet it still counts against the queue limit.
	require.Eventually(t, func() bool { return p.Len() == 9 }, 10*time.Second, time.Millisecond)
	require.Equal(t, kafka.ErrQueueFull, p.Produce(msg(&topic, "overflow"), nil).(kafka.Error).Code())
	got := drain(t, p.Events(), 10)
	require.Equal(t, 0, p.Flush(5000))
	require.NoError(t, p.Produce(msg(&topic, vs[10]), nil))
	for k, v := range drain(t, p.Events(), 1) {
		got[k] = v
	}
	verify(t, c.Addrs(), "t", vs, got, true)
}

// TestQueueKBytesLimit: queue.buffering.max.kbytes bounds the bytes queued.
func TestQueueKBytesLimit(t *testing.T) {
	c := newCluster(t, 1)
	p := newProducer(t, c, kafka.ConfigMap{"queue.buffering.max.kbytes": 1, "go.events.channel.size": 0})
	topic := "t"
	big := bytes.Repeat([]byte("x"), 600)
	require.NoError(t, p.Produce(&kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: kafka.PartitionAny}, Value: big}, nil))
	err := p.Produce(&kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: kafka.PartitionAny}, Value: big}, nil)
	require.Equal(t, kafka.ErrQueueFull, err.(kafka.Error).Code())
	<-p.Events()
	require.Equal(t, 0, p.Flush(5000))
}

// TestMessageTooLargeIsSynchronous: a message over message.max.bytes is
// refused by Produce itself, like librdkafka does.
func TestMessageTooLargeIsSynchronous(t *testing.T) {
	c := newCluster(t, 1)
	p := newProducer(t, c, kafka.ConfigMap{"message.max.bytes": 1000})
	topic := "t"
	err := p.Produce(&kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: kafka.PartitionAny}, Value: make([]byte, 2000)}, nil)
	require.Equal(t, kafka.ErrMsgSizeTooLarge, err.(kafka.Error).Code())
	require.True(t, errors.Is(err, client.ErrRecordTooLarge))
	require.Equal(t, 0, p.Len())
	require.Equal(t, kafka.ErrInvalidArg, p.Produce(nil, nil).(kafka.Error).Code())
	require.Equal(t, kafka.ErrInvalidArg, p.Produce(&kafka.Message{}, nil).(kafka.Error).Code())
}

// TestNoDeliveryReports: go.delivery.reports=false sends no report to
// Events(), yet the messages are written and Flush returns 0.
func TestNoDeliveryReports(t *testing.T) {
	c := newCluster(t, 2)
	p := newProducer(t, c, kafka.ConfigMap{"go.delivery.reports": false})
	topic := "t"
	vs := values("nodr", 500)
	for _, v := range vs {
		require.NoError(t, p.Produce(msg(&topic, v), nil))
	}
	require.Equal(t, 0, p.Flush(10000))
	require.Equal(t, 0, len(p.Events()))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	log, err := readback.ReadTopic(ctx, c.Addrs(), "t")
	require.NoError(t, err)
	n := 0
	for _, recs := range log {
		n += len(recs)
	}
	require.Equal(t, len(vs), n)
}

// TestLenAndFlush: Len counts reports the application has not read, as
// librdkafka's does, and Flush waits for them until its timeout.
func TestLenAndFlush(t *testing.T) {
	c := newCluster(t, 2)
	p := newProducer(t, c, nil)
	topic := "t"
	for i := 0; i < 50; i++ {
		require.NoError(t, p.Produce(msg(&topic, fmt.Sprint(i)), nil))
	}
	require.Equal(t, 50, p.Flush(300), "nobody reads Events(): 50 reports outstanding")
	require.Eventually(t, func() bool { return len(p.Events()) == 50 }, 10*time.Second, time.Millisecond)
	require.Equal(t, 50, p.Len())
	drain(t, p.Events(), 50)
	require.Equal(t, 0, p.Len())
	require.Equal(t, 0, p.Flush(0))
}

// TestLenAfterEachReport: a program that waits for each message's report
// on its own unbuffered channel finds Len() at 0 as soon as it has the
// report, every time (the report stops counting before it is handed over,
// not after).
func TestLenAfterEachReport(t *testing.T) {
	c := newCluster(t, 2)
	p := newProducer(t, c, nil)
	topic := "t"
	vs := values("each", 300)
	got := map[string]report{}
	ch := make(chan kafka.Event)
	for i, v := range vs {
		require.NoError(t, p.Produce(&kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: int32(i % 2)}, Value: []byte(v)}, ch))
		m := (<-ch).(*kafka.Message)
		require.Equal(t, 0, p.Len(), "after the report of %s", v)
		require.NoError(t, m.TopicPartition.Error)
		got[v] = report{partition: m.TopicPartition.Partition, offset: int64(m.TopicPartition.Offset), acked: true}
	}
	verify(t, c.Addrs(), "t", vs, got, true)
}

// TestPartitioners: each librdkafka partitioner name puts keyed messages
// where its hash says, and the log agrees with the reports.
func TestPartitioners(t *testing.T) {
	const parts = 5
	want := map[string]func(key []byte) int32{
		"consistent":        func(k []byte) int32 { return int32(crc32.ChecksumIEEE(k) % parts) },
		"consistent_random": func(k []byte) int32 { return int32(crc32.ChecksumIEEE(k) % parts) },
		"murmur2":           func(k []byte) int32 { return client.KeyPartition(k, parts) },
		"murmur2_random":    func(k []byte) int32 { return client.KeyPartition(k, parts) },
		"fnv1a":             nil, "fnv1a_random": nil, "random": nil,
	}
	for name, fn := range want {
		t.Run(name, func(t *testing.T) {
			c := newCluster(t, parts)
			p := newProducer(t, c, kafka.ConfigMap{"partitioner": name})
			topic := "t"
			vs := values(name, 300)
			for i, v := range vs {
				m := msg(&topic, v)
				if i%3 != 0 {
					m.Key = []byte(fmt.Sprintf("key-%d", i%17))
				}
				require.NoError(t, p.Produce(m, nil))
			}
			got := drain(t, p.Events(), len(vs))
			log := verify(t, c.Addrs(), "t", vs, got, true)
			used := map[int32]bool{}
			for part, recs := range log {
				for _, r := range recs {
					used[part] = true
					if r.Key != nil && fn != nil {
						require.Equal(t, fn(r.Key), part, "key %s", r.Key)
					}
				}
			}
			if name == "random" {
				require.Greater(t, len(used), 1)
			}
		})
	}
}

// TestCompressionCodecs: every compression.type is written and read back.
func TestCompressionCodecs(t *testing.T) {
	for _, codec := range []string{"none", "gzip", "snappy", "lz4", "zstd"} {
		t.Run(codec, func(t *testing.T) {
			c := newCluster(t, 2)
			p := newProducer(t, c, kafka.ConfigMap{"compression.type": codec, "compression.level": -1})
			topic := "t"
			vs := values(codec, 400)
			for _, v := range vs {
				require.NoError(t, p.Produce(msg(&topic, v), nil))
			}
			verify(t, c.Addrs(), "t", vs, drain(t, p.Events(), len(vs)), true)
		})
	}
}

// TestAcksOneWithoutIdempotence: enable.idempotence=false allows acks=1;
// the batches carry no producer id.
func TestAcksOneWithoutIdempotence(t *testing.T) {
	c := newCluster(t, 2)
	p := newProducer(t, c, kafka.ConfigMap{"enable.idempotence": false, "acks": 1, "max.in.flight": 20})
	topic := "t"
	vs := values("acks1", 300)
	for _, v := range vs {
		require.NoError(t, p.Produce(msg(&topic, v), nil))
	}
	got := drain(t, p.Events(), len(vs))
	// acks=1 is answered before the followers copy the batch: wait for
	// the high watermark to cover everything before reading back.
	require.Eventually(t, func() bool { return countRecords(t, c.Addrs(), "t") == len(vs) }, 10*time.Second, 20*time.Millisecond)
	log := verify(t, c.Addrs(), "t", vs, got, true)
	for _, recs := range log {
		for _, r := range recs {
			require.Equal(t, int64(-1), r.ProducerID)
		}
	}
}

// TestUnknownTopicReport: a topic the cluster does not have fails its
// messages with ErrUnknownTopicOrPart, known not written, safe to retry.
func TestUnknownTopicReport(t *testing.T) {
	c := newCluster(t, 1)
	p := newProducer(t, c, kafka.ConfigMap{"topic.metadata.propagation.max.ms": 200})
	topic := "missing"
	ch := make(chan kafka.Event, 1)
	require.NoError(t, p.Produce(msg(&topic, "x"), ch))
	m := (<-ch).(*kafka.Message)
	err := m.TopicPartition.Error
	require.Error(t, err)
	ke := err.(kafka.Error)
	require.Equal(t, kafka.ErrUnknownTopicOrPart, ke.Code())
	require.Equal(t, kafka.MsgStatusNotPersisted, m.Status())
	require.Equal(t, kafka.MsgStatusNotPersisted, ke.MsgStatus())
	require.True(t, ke.IsRetriable())
	require.True(t, errors.Is(err, client.ErrUnknownTopic))
	require.True(t, errors.Is(err, client.ErrNotWritten))
	require.Equal(t, kafka.OffsetInvalid, m.TopicPartition.Offset)
	require.Equal(t, "missing", *m.TopicPartition.Topic)
}

// TestMessageTimeout: with every broker down, messages fail after
// message.timeout.ms with ErrMsgTimedOut, a timeout.
func TestMessageTimeout(t *testing.T) {
	c := newCluster(t, 1)
	p := newProducer(t, c, kafka.ConfigMap{"message.timeout.ms": 300, "request.timeout.ms": 200})
	topic := "t"
	ch := make(chan kafka.Event, 1)
	require.NoError(t, p.Produce(msg(&topic, "warm"), ch))
	require.NoError(t, (<-ch).(*kafka.Message).TopicPartition.Error)
	for b := int32(0); b < 3; b++ {
		require.NoError(t, c.StopBroker(b))
	}
	require.NoError(t, p.Produce(msg(&topic, "late"), ch))
	m := (<-ch).(*kafka.Message)
	ke, ok := m.TopicPartition.Error.(kafka.Error)
	require.True(t, ok, "%v", m.TopicPartition.Error)
	require.Equal(t, kafka.ErrMsgTimedOut, ke.Code())
	require.True(t, ke.IsTimeout())
	require.True(t, errors.Is(ke, client.ErrDeliveryTimeout))
	require.NotEqual(t, kafka.MsgStatusPersisted, m.Status())
	t.Logf("timed out: %v (status %v, retriable %v)", ke, m.Status(), ke.IsRetriable())
}

// TestClosedProducer: after Close, Produce and GetFatalError return
// ErrState, Events() is closed and Close may be called again.
func TestClosedProducer(t *testing.T) {
	c := newCluster(t, 1)
	p := newProducer(t, c, nil)
	require.NoError(t, p.GetFatalError())
	require.False(t, p.IsClosed())
	p.Close()
	p.Close()
	require.True(t, p.IsClosed())
	topic := "t"
	require.Equal(t, kafka.ErrState, p.Produce(msg(&topic, "x"), nil).(kafka.Error).Code())
	require.Equal(t, kafka.ErrState, p.GetFatalError().(kafka.Error).Code())
	_, open := <-p.Events()
	require.False(t, open)
}

// TestProduceChannel: the deprecated channel-based producer delivers too.
func TestProduceChannel(t *testing.T) {
	c := newCluster(t, 2)
	p := newProducer(t, c, nil)
	topic := "t"
	vs := values("chan", 300)
	for _, v := range vs {
		p.ProduceChannel() <- msg(&topic, v)
	}
	verify(t, c.Addrs(), "t", vs, drain(t, p.Events(), len(vs)), true)
}

// TestOpaqueAndReportFields: the report carries Opaque, Key and Value by
// default, not the headers (go.delivery.report.fields' default).
func TestOpaqueAndReportFields(t *testing.T) {
	c := newCluster(t, 1)
	p := newProducer(t, c, nil)
	topic := "t"
	ch := make(chan kafka.Event, 1)
	type tag struct{ n int }
	require.NoError(t, p.Produce(&kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: 0}, Key: []byte("k"), Value: []byte("v"),
		Headers: []kafka.Header{{Key: "h", Value: []byte("1")}}, Opaque: tag{7}}, ch))
	m := (<-ch).(*kafka.Message)
	require.NoError(t, m.TopicPartition.Error)
	require.Equal(t, tag{7}, m.Opaque)
	require.Equal(t, "k", string(m.Key))
	require.Equal(t, "v", string(m.Value))
	require.Nil(t, m.Headers)
	require.Equal(t, int32(0), m.TopicPartition.Partition)
	require.Equal(t, kafka.Offset(0), m.TopicPartition.Offset)
	require.Equal(t, kafka.MsgStatusPersisted, m.Status())
	require.Equal(t, "t[0]@0", m.TopicPartition.String())
}

// TestTLSAndSASL: security.protocol=sasl_ssl with ssl.*.location files and
// SCRAM-SHA-512 against a sim that requires both.
func TestTLSAndSASL(t *testing.T) {
	ca, err := sim.NewTestCA()
	require.NoError(t, err)
	dir := t.TempDir()
	caFile := filepath.Join(dir, "ca.pem")
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	require.NoError(t, os.WriteFile(caFile, ca.CACertPEM, 0o600))
	require.NoError(t, os.WriteFile(certFile, ca.ServerCertPEM, 0o600))
	require.NoError(t, os.WriteFile(keyFile, ca.ServerKeyPEM, 0o600))
	c := newCluster(t, 2, sim.TLS(ca.ServerConfig()), sim.SASL(sim.MechScramSHA512, "alice", "s3cret"))
	p := newProducer(t, c, kafka.ConfigMap{
		"security.protocol": "sasl_ssl", "ssl.ca.location": caFile,
		"ssl.certificate.location": certFile, "ssl.key.location": keyFile,
		"sasl.mechanisms": "SCRAM-SHA-512", "sasl.username": "alice", "sasl.password": "s3cret",
	})
	topic := "t"
	vs := values("secure", 200)
	for _, v := range vs {
		require.NoError(t, p.Produce(msg(&topic, v), nil))
	}
	got := drain(t, p.Events(), len(vs))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	log, err := readback.ReadTopicConn(ctx, c.Addrs(), "t", protocol.ConnConfig{TLS: ca.ClientConfig(), Authenticate: protocol.SASL(protocol.SASLScramSHA512("alice", "s3cret"))})
	require.NoError(t, err)
	produced := make([]readback.Produced, len(vs))
	for i, v := range vs {
		r := got[v]
		require.True(t, r.acked, v)
		produced[i] = readback.Produced{ID: v, Partition: r.partition, Offset: r.offset, Acked: true}
	}
	rep := readback.Check(log, produced, func(r readback.Record) string { return string(r.Value) })
	require.True(t, rep.OK(), "%s", rep)
	require.Equal(t, len(vs), rep.InLog)
}

// TestWrongPassword: a refused SASL login fails messages with
// ErrAuthentication (not a fatal error), and says they were not written.
func TestWrongPassword(t *testing.T) {
	c := newCluster(t, 1, sim.SASL(sim.MechPlain, "alice", "right"))
	p := newProducer(t, c, kafka.ConfigMap{"security.protocol": "sasl_plaintext", "sasl.mechanisms": "PLAIN",
		"sasl.username": "alice", "sasl.password": "wrong", "message.timeout.ms": 2000})
	topic := "t"
	ch := make(chan kafka.Event, 1)
	require.NoError(t, p.Produce(msg(&topic, "x"), ch))
	m := (<-ch).(*kafka.Message)
	ke := m.TopicPartition.Error.(kafka.Error)
	require.Equal(t, kafka.ErrAuthentication, ke.Code(), "%v", ke)
	require.False(t, ke.IsFatal())
	require.NotContains(t, ke.Error(), "wrong")
	require.NoError(t, p.GetFatalError())
}

func countRecords(t *testing.T, brokers []string, topic string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	log, err := readback.ReadTopic(ctx, brokers, topic)
	require.NoError(t, err)
	n := 0
	for _, recs := range log {
		n += len(recs)
	}
	return n
}

// TestAllBrokersDown: with no broker reachable, a message fails with
// ErrAllBrokersDown (known not written), and an ErrAllBrokersDown Error
// event comes first, as librdkafka raises one.
func TestAllBrokersDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close()) // nothing listens there now
	before := runtime.NumGoroutine()
	p, err := kafka.NewProducer(&kafka.ConfigMap{"bootstrap.servers": addr, "topic.metadata.propagation.max.ms": 300, "message.timeout.ms": 2000})
	require.NoError(t, err)
	defer func() { p.Close(); waitGoroutines(t, before) }()
	topic := "t"
	require.NoError(t, p.Produce(msg(&topic, "x"), nil))
	ev := <-p.Events()
	ke, ok := ev.(kafka.Error)
	require.True(t, ok, "first event %T %v", ev, ev)
	require.Equal(t, kafka.ErrAllBrokersDown, ke.Code())
	require.Contains(t, ke.Error(), addr)
	m := (<-p.Events()).(*kafka.Message)
	dr := m.TopicPartition.Error.(kafka.Error)
	require.Equal(t, kafka.ErrAllBrokersDown, dr.Code(), "%v", dr)
	require.Equal(t, kafka.MsgStatusNotPersisted, m.Status())
	require.True(t, errors.Is(dr, client.ErrBrokersUnreachable))
}
