package kafkacheck

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/compress"
	"github.com/rollsafe/rollsafe/protocol"
)

// batchCase is one produce of BatchRules: the partition's records as
// sent, the acks, and the answer Apache Kafka 4.4 gives.
type batchCase struct {
	what    string
	records []byte
	acks    int16
	want    error // nil: taken
}

// BatchRules produces to partition p of topic, over conn to its leader,
// batches that break the rules a broker checks before it looks at records
// or sequences — checksum, batch count and framing, magic, offset range
// against record count, producer fields, control and transactional flags,
// codec, size, acks — and one that breaks none, and checks each answer
// against what Apache Kafka 4.4 gives. The topic must have the default
// max.message.bytes (1 MiB + 12 bytes).
func BatchRules(ctx context.Context, conn *protocol.Conn, topic string, p int32) error {
	one := recordsOf("x")
	two := recordsOf("x", "y")
	good := batchOf(one, 1, 0)
	badCRC := append([]byte(nil), good...)
	badCRC[len(badCRC)-1] ^= 1
	magic1 := append([]byte(nil), good...)
	magic1[16] = 1
	rangeShort := append([]byte(nil), batchOf(two, 2, 0)...)
	binary.BigEndian.PutUint32(rangeShort[23:], 0) // last offset delta 0 for 2 records
	recrc(rangeShort)
	noSeq := producerBatch(one, 1, 0, 1000, 0, -1)
	control := producerBatch(one, 1, 0x20, 1000, 0, 0)
	transactional := producerBatch(one, 1, 0x10, 1000, 0, 0)
	codec5 := batchOf(one, 1, 5)
	badGzip := batchOf([]byte("not gzip at all"), 1, 1)
	gz, err := compress.NewCompressor(compress.Gzip, compress.DefaultLevel)
	if err != nil {
		return err
	}
	zipped, err := gz.Compress(nil, recordsOf(strings.Repeat("abcdefgh", 64), "y"))
	if err != nil {
		return err
	}
	gzipShort := batchOf(zipped, 3, 1) // two records inside, three counted
	corrupt := append([]byte(nil), zipped...)
	for i := 12; i < len(corrupt)-8; i += 3 {
		corrupt[i] ^= 0x5a
	}
	gzipCorrupt := batchOf(corrupt, 2, 1)
	truncated := good[:len(good)-3]
	baseOffset5 := append([]byte(nil), good...)
	binary.BigEndian.PutUint64(baseOffset5, 5) // outside the CRC
	large := batchOf(recordsOf(strings.Repeat("v", 1<<20)), 1, 0)
	var errs []error
	for _, tc := range []batchCase{
		{what: "a well-formed batch", records: good, acks: -1},
		{what: "a wrong CRC", records: badCRC, acks: -1, want: protocol.ErrCorruptMessage},
		{what: "two batches", records: append(append([]byte(nil), good...), good...), acks: -1, want: protocol.ErrInvalidRecord},
		{what: "magic 1", records: magic1, acks: -1, want: protocol.ErrInvalidRecord},
		{what: "last offset delta 0 for 2 records", records: rangeShort, acks: -1, want: protocol.ErrInvalidRecord},
		{what: "a producer id without a sequence", records: noSeq, acks: -1, want: protocol.ErrInvalidRecord},
		{what: "a control batch", records: control, acks: -1, want: protocol.ErrInvalidRecord},
		{what: "a transactional batch outside a transaction", records: transactional, acks: -1, want: protocol.ErrTransactionalIDAuthorizationFailed},
		{what: "codec 5", records: codec5, acks: -1, want: protocol.ErrUnknownServerError},
		{what: "gzip that is not gzip", records: badGzip, acks: -1, want: protocol.ErrUnknownServerError},
		{what: "gzip with a corrupt body", records: gzipCorrupt, acks: -1, want: protocol.ErrUnknownServerError},
		{what: "gzip holding fewer records than counted", records: gzipShort, acks: -1, want: protocol.ErrInvalidRecord},
		{what: "snappy that is not snappy", records: batchOf([]byte("not snappy at all"), 1, 2), acks: -1, want: protocol.ErrUnknownServerError},
		{what: "lz4 that is not lz4", records: batchOf([]byte("not lz4 at all"), 1, 3), acks: -1, want: protocol.ErrUnknownServerError},
		{what: "zstd that is not zstd", records: batchOf([]byte("not zstd at all"), 1, 4), acks: -1, want: protocol.ErrUnknownServerError},
		{what: "a batch 3 bytes short of its length", records: truncated, acks: -1, want: protocol.ErrInvalidRecord},
		{what: "a batch at base offset 5", records: baseOffset5, acks: -1, want: protocol.ErrInvalidRecord},
		{what: "a size below 14 where a batch begins", records: append(append([]byte(nil), good...), make([]byte, 12)...), acks: -1, want: protocol.ErrCorruptMessage},
		{what: "a batch and 3 stray bytes", records: append(append([]byte(nil), good...), 1, 2, 3), acks: -1},
		{what: "a batch and the first 30 bytes of another", records: append(append([]byte(nil), good...), good[:30]...), acks: -1},
		{what: "no records", records: []byte{}, acks: -1, want: protocol.ErrInvalidRecord},
		{what: "a batch over max.message.bytes", records: large, acks: -1, want: protocol.ErrMessageTooLarge},
		{what: "acks 2", records: good, acks: 2, want: protocol.ErrInvalidRequiredAcks},
	} {
		_, err := produceAcks(ctx, conn, topic, p, tc.records, tc.acks)
		if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
			errs = append(errs, fmt.Errorf("%s: the broker answered %v; Kafka answers %v", tc.what, answer(err), answer(tc.want)))
		}
	}
	return errors.Join(errs...)
}

// recordsOf encodes records of the given values, no key, offset deltas
// 0..n-1, timestamp deltas 0.
func recordsOf(values ...string) []byte {
	return recordsAt(nil, nil, values...)
}

// recordsAt encodes records of the given values, no key, no headers, at
// the given offset deltas (nil: 0..n-1) and timestamp deltas (nil: 0).
func recordsAt(offDeltas, tsDeltas []int64, values ...string) []byte {
	var recs []byte
	for j, v := range values {
		off, ts := int64(j), int64(0)
		if offDeltas != nil {
			off = offDeltas[j]
		}
		if tsDeltas != nil {
			ts = tsDeltas[j]
		}
		body := []byte{0} // attributes
		body = binary.AppendVarint(body, ts)
		body = binary.AppendVarint(body, off)
		body = binary.AppendVarint(body, -1) // no key
		body = append(binary.AppendVarint(body, int64(len(v))), v...)
		body = binary.AppendVarint(body, 0) // no headers
		recs = append(binary.AppendVarint(recs, int64(len(body))), body...)
	}
	return recs
}

// recrc recomputes a batch's CRC-32C after an edit.
func recrc(raw []byte) {
	binary.BigEndian.PutUint32(raw[17:], crc32.Checksum(raw[21:], crc32.MakeTable(crc32.Castagnoli)))
}

// produceAcks is produce with the given acks.
func produceAcks(ctx context.Context, conn *protocol.Conn, topic string, p int32, raw []byte, acks int16) (int64, error) {
	resp, err := conn.Request(ctx, produceRequest(topic, p, raw, acks))
	if err != nil {
		return -1, err
	}
	r := resp.(*kmsg.ProduceResponse)
	if len(r.Topics) != 1 || len(r.Topics[0].Partitions) != 1 {
		return -1, fmt.Errorf("produce response of %d topics for one partition", len(r.Topics))
	}
	pr := r.Topics[0].Partitions[0]
	if err := protocol.ErrorForCode(pr.ErrorCode); err != nil {
		return -1, fmt.Errorf("the broker answered %w", err)
	}
	return pr.BaseOffset, nil
}
