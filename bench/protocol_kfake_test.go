package bench

import (
	"context"
	"hash/crc32"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/kafkaerr"
	"github.com/rollsafe/rollsafe/protocol"
)

var crc32c = crc32.MakeTable(crc32.Castagnoli)

// buildBatch encodes an idempotent record batch (magic 2, uncompressed) by
// hand: records, then the header, then the CRC-32C over attributes..end.
func buildBatch(pid int64, epoch int16, firstSeq int32, values [][]byte) []byte {
	now := time.Now().UnixMilli()
	var records []byte
	for i, v := range values {
		r := kmsg.Record{OffsetDelta: int32(i), Key: []byte("k"), Value: v}
		r.Length = int32(len(r.AppendTo(nil)) - 1) // body size after a 1-byte varint 0
		records = r.AppendTo(records)
	}
	b := kmsg.RecordBatch{
		FirstOffset:          0,
		PartitionLeaderEpoch: -1,
		Magic:                2,
		Attributes:           0,
		LastOffsetDelta:      int32(len(values) - 1),
		FirstTimestamp:       now,
		MaxTimestamp:         now,
		ProducerID:           pid,
		ProducerEpoch:        epoch,
		FirstSequence:        firstSeq,
		NumRecords:           int32(len(values)),
		Records:              records,
	}
	raw := b.AppendTo(nil)
	b.Length = int32(len(raw) - 12) // everything after FirstOffset and Length
	raw = b.AppendTo(nil)
	// CRC covers from Attributes (offset 21) to the end; CRC sits at 17..21.
	crc := crc32.Checksum(raw[21:], crc32c)
	b.CRC = int32(crc)
	return b.AppendTo(nil)
}

func TestProtocolAgainstKfake(t *testing.T) {
	base := runtime.NumGoroutine()
	const topic = "rollsafe-proto"
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, topic))
	require.NoError(t, err)
	defer cluster.Close()
	addrs := cluster.ListenAddrs()

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	// ApiVersions happens in Dial.
	md := protocol.NewMetadata(addrs, protocol.MetadataConfig{})
	defer md.Close()
	require.NoError(t, md.Refresh(ctx, topic))
	n, err := md.Partitions(topic)
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	leader, _, err := md.Leader(topic, 0)
	require.NoError(t, err)
	err = md.Refresh(ctx, "no-such-topic")
	require.ErrorIs(t, err, protocol.ErrUnknownTopicOrPartition)

	pool := protocol.NewPool(md, protocol.PoolConfig{})
	defer pool.Close()
	conn, err := pool.Conn(ctx, leader)
	require.NoError(t, err)
	pv, ok := conn.Versions().Broker(0)
	require.True(t, ok, "kfake advertises Produce")
	require.GreaterOrEqual(t, pv.Max, int16(3))

	// InitProducerId (idempotent: no transactional id).
	ipReq := kmsg.NewPtrInitProducerIDRequest()
	ipReq.TransactionTimeoutMillis = -1
	ipReq.ProducerID, ipReq.ProducerEpoch = -1, -1
	raw, err := conn.Request(ctx, ipReq)
	require.NoError(t, err)
	ip := raw.(*kmsg.InitProducerIDResponse)
	require.NoError(t, protocol.ErrorForCode(ip.ErrorCode))
	require.GreaterOrEqual(t, ip.ProducerID, int64(0))

	// One Produce of a hand-built batch.
	values := [][]byte{[]byte("alpha"), []byte("beta"), []byte("gamma")}
	batch := buildBatch(ip.ProducerID, ip.ProducerEpoch, 0, values)
	produce := kmsg.NewPtrProduceRequest()
	produce.Acks = -1
	produce.TimeoutMillis = 5000
	pt := kmsg.NewProduceRequestTopic()
	pt.Topic = topic
	pp := kmsg.NewProduceRequestTopicPartition()
	pp.Partition = 0
	pp.Records = batch
	pt.Partitions = append(pt.Partitions, pp)
	produce.Topics = append(produce.Topics, pt)
	raw, err = conn.Request(ctx, produce)
	require.NoError(t, err)
	presp := raw.(*kmsg.ProduceResponse)
	require.Len(t, presp.Topics, 1)
	require.Len(t, presp.Topics[0].Partitions, 1)
	part := presp.Topics[0].Partitions[0]
	require.NoError(t, protocol.PartitionError(part.ErrorCode, topic, 0, ""))
	require.Equal(t, kafkaerr.OutcomeAppended, kafkaerr.Code(part.ErrorCode).ProduceOutcome(produce.Acks == -1))
	require.EqualValues(t, 0, part.BaseOffset)

	// The same batch again is recognised as a retry: no second copy.
	raw, err = conn.Request(ctx, produce)
	require.NoError(t, err)
	part = raw.(*kmsg.ProduceResponse).Topics[0].Partitions[0]
	require.Equal(t, kafkaerr.OutcomeAppended, kafkaerr.Code(part.ErrorCode).ProduceOutcome(true))

	// ListOffsets and FetchPartition see exactly three records.
	latest, _, err := protocol.ListOffsets(ctx, conn, topic, 0, protocol.ListLatest)
	require.NoError(t, err)
	require.EqualValues(t, 3, latest)
	earliest, _, err := protocol.ListOffsets(ctx, conn, topic, 0, protocol.ListEarliest)
	require.NoError(t, err)
	require.EqualValues(t, 0, earliest)
	recs, hwm, _, err := protocol.FetchPartition(ctx, conn, topic, 0, 0, 1<<20)
	require.NoError(t, err)
	require.EqualValues(t, 3, hwm)
	var got kmsg.RecordBatch
	require.NoError(t, got.ReadFrom(recs))
	require.Equal(t, ip.ProducerID, got.ProducerID)
	require.EqualValues(t, 0, got.FirstSequence)
	require.EqualValues(t, 3, got.NumRecords)

	// Read back with a kgo consumer.
	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	require.NoError(t, err)
	defer cl.Close()
	var consumed []string
	for len(consumed) < len(values) {
		fs := cl.PollFetches(ctx)
		require.NoError(t, ctx.Err(), "timed out after %d records", len(consumed))
		fs.EachError(func(_ string, _ int32, err error) { t.Fatalf("fetch: %v", err) })
		fs.EachRecord(func(r *kgo.Record) { consumed = append(consumed, string(r.Value)) })
	}
	require.Equal(t, []string{"alpha", "beta", "gamma"}, consumed)
	cl.Close()

	require.NoError(t, pool.Close())
	require.NoError(t, md.Close())
	<-conn.Done()
	cluster.Close()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	require.LessOrEqual(t, runtime.NumGoroutine(), base, "goroutines left after Close")
}
