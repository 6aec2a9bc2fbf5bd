package kafkatest

import (
	"context"
	"encoding/binary"
	"hash/crc32"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/protocol"
)

// testInvalidRecords sends Apache Kafka produced batches whose records
// break DefaultRecord's rules, and checks the answer the sim gives for
// each (sim/records_check.go): INVALID_RECORD for a byte left inside a
// record's size, a negative header count, a negative header key size and
// bytes after the last counted record; a well-formed batch is taken.
func testInvalidRecords(t *testing.T, ctx context.Context, c *Cluster) {
	const topic = "records"
	if err := c.CreateTopic(ctx, Topic{Name: topic, Replication: 1}); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitFor(ctx, topic, "led", func(p Partition) bool { return p.Leader >= 0 }); err != nil {
		t.Fatal(err)
	}
	ps, err := c.Partitions(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := protocol.Dial(ctx, c.DirectAddr(ps[0].Leader), protocol.ConnConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// body encodes a record's fields: offset delta off, key "k", value
	// "v", headers as the count written (each header "h"="x"), extra bytes
	// after them; record prefixes a body with its size.
	body := func(off, headers int64, extra ...byte) []byte {
		b := []byte{0}                // attributes
		b = binary.AppendVarint(b, 0) // timestamp delta
		b = binary.AppendVarint(b, off)
		b = append(binary.AppendVarint(b, 1), 'k')
		b = append(binary.AppendVarint(b, 1), 'v')
		b = binary.AppendVarint(b, headers)
		for range max(headers, 0) {
			b = append(binary.AppendVarint(b, 1), 'h')
			b = append(binary.AppendVarint(b, 1), 'x')
		}
		return append(b, extra...)
	}
	record := func(b []byte) []byte { return append(binary.AppendVarint(nil, int64(len(b))), b...) }
	negHeaderKey := body(0, 0)
	negHeaderKey = negHeaderKey[:len(negHeaderKey)-1] // the header count goes:
	negHeaderKey = binary.AppendVarint(negHeaderKey, 1)
	negHeaderKey = binary.AppendVarint(negHeaderKey, -2) // key size
	negHeaderKey = binary.AppendVarint(negHeaderKey, -1) // null value
	for _, tc := range []struct {
		name string
		recs []byte
		n    int32
		want protocol.ErrorCode
	}{
		{"well-formed", append(record(body(0, 0)), record(body(1, 1))...), 2, 0},
		{"byte left inside a record", record(body(0, 0, 0)), 1, protocol.InvalidRecord},
		{"negative header count", record(body(0, -1)), 1, protocol.InvalidRecord},
		{"negative header key size", record(negHeaderKey), 1, protocol.InvalidRecord},
		{"bytes after the last record", append(record(body(0, 0)), 0), 1, protocol.InvalidRecord},
	} {
		now := time.Now().UnixMilli()
		rb := kmsg.RecordBatch{PartitionLeaderEpoch: -1, Magic: 2, LastOffsetDelta: tc.n - 1,
			FirstTimestamp: now, MaxTimestamp: now, ProducerID: -1, ProducerEpoch: -1, FirstSequence: -1,
			NumRecords: tc.n, Records: tc.recs, Length: int32(49 + len(tc.recs))}
		raw := rb.AppendTo(nil)
		binary.BigEndian.PutUint32(raw[17:], crc32.Checksum(raw[21:], crc32.MakeTable(crc32.Castagnoli)))
		req := kmsg.NewPtrProduceRequest()
		req.Acks = -1
		req.TimeoutMillis = 10000
		rt := kmsg.NewProduceRequestTopic()
		rt.Topic = topic
		rp := kmsg.NewProduceRequestTopicPartition()
		rp.Records = raw
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
		resp, err := conn.Request(ctx, req)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := protocol.ErrorCode(resp.(*kmsg.ProduceResponse).Topics[0].Partitions[0].ErrorCode)
		if got != tc.want {
			t.Errorf("%s: Kafka answered %v, the sim answers %v", tc.name, got, tc.want)
		}
	}
}
