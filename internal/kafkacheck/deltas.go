// Package kafkacheck holds checks of what a broker does with a request,
// written once and run against Apache Kafka (kafkatest) and against the
// sim, so that a behaviour of the sim is proven to be one Kafka has. Each
// check talks to the broker it is given over a protocol.Conn and returns
// an error saying where the broker's answer or log differs from Kafka's.
// For tests.
//
// See docs/simulator.md ("The sim checked against Kafka": what the checks
// cover and how to run them on both brokers) in the repository.
package kafkacheck

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/compress"
	"github.com/rollsafe/rollsafe/protocol"
)

// OffsetDeltas produces to partition p of topic, over conn to its leader,
// three batches of no producer: A, uncompressed, whose three records carry
// offset deltas 0, 2, 1; B, gzip, with the same deltas; C, one well-formed
// uncompressed record. Then it reads the partition back from A's offset.
//
// What Apache Kafka 4.4 does (LogValidator): it does not check the offset
// deltas of an uncompressed batch's records; the batch is kept as sent,
// only its base offset set, so a consumer sees A's records at base+0,
// base+2 and base+1, and C at base+3. A compressed batch whose inner
// offsets are not 0..n-1 is meant to be rebuilt with fresh offsets, but
// the broker read its records without their keys and values (the path
// that keeps a batch as sent) and fails rebuilding them
// (UnsupportedOperationException "key is skipped in PartialDefaultRecord"):
// B is answered UNKNOWN_SERVER_ERROR and not written.
func OffsetDeltas(ctx context.Context, conn *protocol.Conn, topic string, p int32) error {
	deltas := []int64{0, 2, 1}
	gz, err := compress.NewCompressor(compress.Gzip, compress.DefaultLevel)
	if err != nil {
		return err
	}
	a, err := rawBatch(nil, "a", deltas)
	if err != nil {
		return err
	}
	b, err := rawBatch(gz, "b", deltas)
	if err != nil {
		return err
	}
	c, err := rawBatch(nil, "c", []int64{0})
	if err != nil {
		return err
	}
	base, err := produce(ctx, conn, topic, p, a)
	if err != nil {
		return fmt.Errorf("batch A, offset deltas 0, 2, 1, uncompressed: %w (Kafka takes it)", err)
	}
	if _, err := produce(ctx, conn, topic, p, b); !errors.Is(err, protocol.ErrUnknownServerError) {
		return fmt.Errorf("batch B, offset deltas 0, 2, 1, gzip: %v; Kafka answers UNKNOWN_SERVER_ERROR", err)
	}
	baseC, err := produce(ctx, conn, topic, p, c)
	if err != nil {
		return fmt.Errorf("batch C: %w", err)
	}
	if baseC != base+3 {
		return fmt.Errorf("batch A at %d, C at %d: Kafka gives A its record count (3) of offsets and B none", base, baseC)
	}
	want := []logRecord{{base, "a0"}, {base + 2, "a1"}, {base + 1, "a2"}, {base + 3, "c0"}}
	wantCodecs := []compress.Codec{compress.None, compress.None}
	got, codecs, hw, err := readLog(ctx, conn, topic, p, base, base+4)
	if err != nil {
		return err
	}
	if hw < base+4 {
		return fmt.Errorf("high watermark %d below %d after acks=all", hw, base+4)
	}
	if !slices.Equal(got, want) || !slices.Equal(codecs, wantCodecs) {
		return fmt.Errorf("read back (offset, value) %v in batches of %v; Kafka keeps %v in %v", got, codecs, want, wantCodecs)
	}
	return nil
}

// rawBatch is a magic-2 batch of no producer whose records, "<x>0",
// "<x>1", ..., carry the given offset deltas, compressed by cm (nil: none).
func rawBatch(cm *compress.Compressor, x string, deltas []int64) ([]byte, error) {
	var values []string
	for i := range deltas {
		values = append(values, fmt.Sprintf("%s%d", x, i))
	}
	recs := recordsAt(deltas, nil, values...)
	var attrs int16
	if cm != nil {
		var err error
		if recs, err = cm.Compress(nil, recs); err != nil {
			return nil, err
		}
		attrs = int16(cm.Codec())
	}
	return batchOf(recs, int32(len(deltas)), attrs), nil
}

// batchOf is a magic-2 batch of no producer holding n records, recs, as
// encoded (and compressed, per attrs).
func batchOf(recs []byte, n int32, attrs int16) []byte {
	return producerBatch(recs, n, attrs, -1, -1, -1)
}

// producerBatch is batchOf with producer id, epoch and base sequence.
func producerBatch(recs []byte, n int32, attrs int16, pid int64, epoch int16, seq int32) []byte {
	now := time.Now().UnixMilli()
	rb := kmsg.RecordBatch{PartitionLeaderEpoch: -1, Magic: 2, Attributes: attrs, LastOffsetDelta: n - 1,
		FirstTimestamp: now, MaxTimestamp: now, ProducerID: pid, ProducerEpoch: epoch, FirstSequence: seq,
		NumRecords: n, Records: recs, Length: int32(49 + len(recs))}
	raw := rb.AppendTo(nil)
	binary.BigEndian.PutUint32(raw[17:], crc32.Checksum(raw[21:], crc32.MakeTable(crc32.Castagnoli)))
	return raw
}

// produce sends raw, acks=all, and returns the base offset the broker gave
// it.
func produce(ctx context.Context, conn *protocol.Conn, topic string, p int32, raw []byte) (int64, error) {
	return produceAcks(ctx, conn, topic, p, raw, -1)
}
