package batching

import (
	"fmt"
	"math"
)

// Split re-batches b's records (as for a batch the broker refused with
// MESSAGE_TOO_LARGE) into new batches of the same partition and codec, each
// at most maxBytes uncompressed (header included), with b's tokens split
// accordingly. There are always at least two: when b already fits maxBytes
// it is halved, so that a retry loop makes progress. The new batches carry
// b's producer id and epoch, and base sequences continuing b's. They are
// compressed on the caller's goroutine, take over b's share of the buffer
// accounting, and must each be released; b must still be released too.
// A record that cannot fit maxBytes gives a *RecordTooLargeError, and a
// batch of one record ErrCannotSplit.
func (b *Batch) Split(maxBytes int) ([]*Batch, error) {
	a := b.acc
	if a == nil {
		return nil, ErrReleased
	}
	if b.Records < 2 {
		return nil, fmt.Errorf("%w (%d bytes)", ErrCannotSplit, b.rawLen)
	}
	target := maxBytes
	if b.rawLen <= maxBytes {
		target = batchHeaderLen + (b.rawLen-batchHeaderLen)/2
	}
	// Each source is read once: its fields' length and timestamp.
	type sized struct {
		fields int
		ts     int64
	}
	recs := make([]sized, len(b.srcs))
	for i, src := range b.srcs {
		key, value, headers, ts := src.BatchRecord()
		recs[i] = sized{fieldsLen(key, value, headers), ts}
		body := bodyLenOf(recs[i].fields, 0, 0)
		if n := batchHeaderLen + varintLen(int64(body)) + body; n > maxBytes {
			return nil, &RecordTooLargeError{Size: n, Max: maxBytes}
		}
	}

	var out []*Batch
	var cur *Batch
	var chargeBytes int64
	for i, src := range b.srcs {
		fields, ts := recs[i].fields, recs[i].ts
		var size int
		if cur != nil {
			body := bodyLenOf(fields, ts-cur.firstTS, int32(cur.Records))
			size = varintLen(int64(body)) + body
			if cur.rawLen+size > target {
				cur = nil
			}
		}
		if cur == nil {
			cur = a.pool.get()
			cur.reset(a, nil, b.TP, 0)
			cur.codec = b.codec
			out = append(out, cur)
			body := bodyLenOf(fields, 0, 0)
			size = varintLen(int64(body)) + body
		}
		cur.add(src, ts, size)
		chargeBytes += int64(size)
	}
	seq := int64(b.baseSequence)
	var sc scratch
	for _, c := range out {
		c.finish(a.comp, &sc)
		if b.producerID != -1 || b.epoch != -1 || b.baseSequence != -1 {
			s := int32(-1)
			if b.baseSequence >= 0 {
				s = int32(seq % (math.MaxInt32 + 1))
			}
			c.SetProducer(b.producerID, b.epoch, s)
		}
		seq += int64(c.Records)
	}

	a.mu.Lock()
	a.bufBytes += chargeBytes - b.chargeBytes
	a.bufRecords += b.Records - b.chargeRecords
	b.chargeBytes, b.chargeRecords = 0, 0
	a.mu.Unlock()
	return out, nil
}
