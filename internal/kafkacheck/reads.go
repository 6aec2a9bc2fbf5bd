package kafkacheck

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/batching"
	"github.com/rollsafe/rollsafe/protocol"
)

// ReadRules produces three batches of two records to partition p of topic,
// which must be new and empty, over conn to its leader — timestamps T and
// T+10, T+50 and T+20, T+30 and T+40 (T a minute ago) at offsets 0 to 5 —
// then checks what Apache Kafka 4.4 answers to reads of it:
//
//   - Fetch at 3, inside the second batch: from that whole batch (base 2);
//   - Fetch at 6, the log end: no records, no error, high watermark 6;
//   - Fetch at 7: OFFSET_OUT_OF_RANGE;
//   - Fetch at 0 with 1 byte allowed: the first batch whole, and only it;
//   - ListOffsets earliest 0, latest 6; by timestamp, the first offset
//     whose record's timestamp is at least the one asked (T+15, T+45: 2,
//     with T+50), none past the largest (offset -1); the largest
//     timestamp (-3): the record holding it, offset 2.
func ReadRules(ctx context.Context, conn *protocol.Conn, topic string, p int32) error {
	t0 := time.Now().Add(-time.Minute).UnixMilli()
	for i, ts := range [][2]int64{{0, 10}, {50, 20}, {30, 40}} {
		recs := recordsAt(nil, ts[:], fmt.Sprintf("r%d", 2*i), fmt.Sprintf("r%d", 2*i+1))
		raw := batchOf(recs, 2, 0)
		binary.BigEndian.PutUint64(raw[27:], uint64(t0))                   // first timestamp
		binary.BigEndian.PutUint64(raw[35:], uint64(t0+max(ts[0], ts[1]))) // max timestamp
		recrc(raw)
		if base, err := produce(ctx, conn, topic, p, raw); err != nil || base != int64(2*i) {
			return fmt.Errorf("batch %d: base offset %d, %v; want %d", i, base, err, 2*i)
		}
	}
	var errs []error
	fetch := func(offset int64, maxBytes int32) (protocol.FetchResult, []batching.DecodedBatch, error) {
		r, err := protocol.Fetch(ctx, conn, protocol.FetchOptions{Topic: topic, Partition: p, Offset: offset,
			MaxBytes: maxBytes, CurrentLeaderEpoch: protocol.NoLeaderEpoch})
		if err != nil {
			return r, nil, err
		}
		bs, err := batching.DecodeBatches(r.Records, 1<<20)
		return r, bs, err
	}
	if _, bs, err := fetch(3, 1<<20); err != nil || len(bs) == 0 || bs[0].Header.BaseOffset != 2 {
		errs = append(errs, fmt.Errorf("fetch at 3: %d batches, first at %d, %v; Kafka returns from the batch at 2", len(bs), firstBase(bs), err))
	}
	if r, bs, err := fetch(6, 1<<20); err != nil || len(bs) != 0 || r.HighWatermark != 6 {
		errs = append(errs, fmt.Errorf("fetch at the log end, 6: %d batches, high watermark %d, %v; Kafka returns none, 6, no error", len(bs), r.HighWatermark, err))
	}
	if _, bs, err := fetch(7, 1<<20); !errors.Is(err, protocol.ErrOffsetOutOfRange) {
		errs = append(errs, fmt.Errorf("fetch at 7, past the log end: %d batches, %v; Kafka answers OFFSET_OUT_OF_RANGE", len(bs), answer(err)))
	}
	if _, bs, err := fetch(0, 1); err != nil || len(bs) != 1 || bs[0].Header.BaseOffset != 0 || len(bs[0].Records) != 2 {
		errs = append(errs, fmt.Errorf("fetch at 0 allowing 1 byte: %d batches, first at %d, %v; Kafka returns the first batch whole and only it", len(bs), firstBase(bs), err))
	}
	for _, q := range []struct {
		what          string
		ts            int64
		offset, stamp int64
	}{
		{"earliest", protocol.ListEarliest, 0, -1},
		{"latest", protocol.ListLatest, 6, -1},
		{"T+15", t0 + 15, 2, t0 + 50},
		{"T+45", t0 + 45, 2, t0 + 50},
		{"T+51, past the largest", t0 + 51, -1, -1},
		{"the largest timestamp (-3)", -3, 2, t0 + 50},
	} {
		offset, stamp, err := listOffset(ctx, conn, topic, p, q.ts)
		if err != nil || offset != q.offset || stamp != q.stamp {
			errs = append(errs, fmt.Errorf("ListOffsets %s: offset %d, timestamp T%+d, %v; Kafka answers %d, T%+d", q.what, offset, stamp-t0, err, q.offset, q.stamp-t0))
		}
	}
	return errors.Join(errs...)
}

func firstBase(bs []batching.DecodedBatch) int64 {
	if len(bs) == 0 {
		return -1
	}
	return bs[0].Header.BaseOffset
}

// listOffset asks ListOffsets for ts and returns the offset and timestamp
// answered.
func listOffset(ctx context.Context, conn *protocol.Conn, topic string, p int32, ts int64) (offset, stamp int64, err error) {
	req := kmsg.NewPtrListOffsetsRequest()
	req.ReplicaID = -1
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewListOffsetsRequestTopicPartition()
	rp.Partition, rp.Timestamp, rp.CurrentLeaderEpoch = p, ts, -1
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	resp, err := conn.Request(ctx, req)
	if err != nil {
		return -1, -1, err
	}
	lr := resp.(*kmsg.ListOffsetsResponse)
	if len(lr.Topics) != 1 || len(lr.Topics[0].Partitions) != 1 {
		return -1, -1, fmt.Errorf("ListOffsets response of %d topics for one partition", len(lr.Topics))
	}
	r := lr.Topics[0].Partitions[0]
	if r.ErrorCode != 0 {
		return -1, -1, protocol.ErrorForCode(r.ErrorCode)
	}
	return r.Offset, r.Timestamp, nil
}
