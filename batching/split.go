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
	fields := make([]int, len(b.srcs))
	ts := make([]int64, len(b.srcs))
	for i, src := range b.srcs {
		key, value, headers, t := src.BatchRecord()
		fields[i], ts[i] = fieldsLen(key, value, headers), t
		body := bodyLenOf(fields[i], 0, 0)
		if n := batchHeaderLen + varintLen(int64(body)) + body; n > maxBytes {
			return nil, &RecordTooLargeError{Size: n, Max: maxBytes}
		}
	}
	return b.rebatch(b.srcs, fields, ts, target), nil
}

// Without re-batches b's records but those for which drop returns true
// (as for records taken back before the batch was sent) into one new
// batch of the same partition and codec, or returns nil when every record
// is dropped. The new batch carries b's producer id, epoch and base
// sequence, is compressed on the caller's goroutine and takes over b's
// share of the buffer accounting for the records it keeps: the dropped
// records' room is free at once. It must be released, and b must still
// be released too.
func (b *Batch) Without(drop func(i int) bool) (*Batch, error) {
	if b.acc == nil {
		return nil, ErrReleased
	}
	var srcs []Source
	var fields []int
	var ts []int64
	for i, src := range b.srcs {
		if drop(i) {
			continue
		}
		key, value, headers, t := src.BatchRecord()
		srcs = append(srcs, src)
		fields = append(fields, fieldsLen(key, value, headers))
		ts = append(ts, t)
	}
	out := b.rebatch(srcs, fields, ts, 0)
	if len(out) == 0 {
		return nil, nil
	}
	return out[0], nil
}

// rebatch builds new batches of srcs (each of fields bytes, stamped ts),
// cut before a batch would exceed target uncompressed bytes (target <= 0:
// one batch), finishes them, gives them b's producer id and epoch with
// base sequences continuing b's, and moves b's share of the buffer
// accounting to them.
func (b *Batch) rebatch(srcs []Source, fields []int, ts []int64, target int) []*Batch {
	a := b.acc
	var out []*Batch
	var cur *Batch
	var chargeBytes int64
	records := 0
	for i, src := range srcs {
		var size int
		if cur != nil {
			body := bodyLenOf(fields[i], ts[i]-cur.firstTS, int32(cur.Records))
			size = varintLen(int64(body)) + body
			if target > 0 && cur.rawLen+size > target {
				cur = nil
			}
		}
		if cur == nil {
			cur = a.pool.get()
			cur.reset(a, nil, b.TP, 0)
			cur.codec = b.codec
			out = append(out, cur)
			body := bodyLenOf(fields[i], 0, 0)
			size = varintLen(int64(body)) + body
		}
		cur.add(src, ts[i], size)
		chargeBytes += int64(size)
		records++
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
	a.bufRecords += records - b.chargeRecords
	freed := chargeBytes < b.chargeBytes || records < b.chargeRecords
	b.chargeBytes, b.chargeRecords = 0, 0
	if freed && a.waiters > 0 && a.room != nil {
		close(a.room)
		a.room = nil
	}
	a.mu.Unlock()
	return out
}
