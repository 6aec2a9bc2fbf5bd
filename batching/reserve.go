package batching

import "context"

// Reservation is buffer room taken for one record before its partition is
// known (a producer waiting for its topic's metadata): it counts against
// MaxBufferedRecords and MaxBufferedBytes, and in Buffered, as an appended
// record does, until AppendReservedTo appends the record into it or
// Unreserve gives it back. Its bytes are the most the record can take in
// any batch, so appending it never exceeds the bounds.
type Reservation struct {
	bytes int64
}

// maxRecordLen is the most a record of fields bytes can take in a batch:
// its timestamp delta and offset delta at their longest.
func maxRecordLen(fields int) int {
	const maxTSDelta, maxOffDelta = 10, 5 // varint bytes of an int64, an int32
	return encodedLen(1 + maxTSDelta + maxOffDelta + fields)
}

// Reserve takes room for src, waiting for it until ctx ends. A record that
// cannot fit MaxRecordBytes fails at once with a *RecordTooLargeError.
func (a *Accumulator) Reserve(ctx context.Context, src Source) (Reservation, error) {
	for {
		rv, ch, err := a.tryReserve(src, true)
		if ch == nil {
			return rv, err
		}
		if err := a.awaitRoom(ctx, ch); err != nil {
			return Reservation{}, err
		}
	}
}

// TryReserve is Reserve without waiting: it fails with ErrBufferFull when
// there is no room.
func (a *Accumulator) TryReserve(src Source) (Reservation, error) {
	rv, _, err := a.tryReserve(src, false)
	return rv, err
}

func (a *Accumulator) tryReserve(src Source, wait bool) (Reservation, <-chan struct{}, error) {
	key, value, headers, _ := src.BatchRecord()
	fields := fieldsLen(key, value, headers)
	if n := batchHeaderLen + encodedLen(bodyLenOf(fields, 0, 0)); n > a.cfg.MaxRecordBytes {
		return Reservation{}, nil, &RecordTooLargeError{Size: n, Max: a.cfg.MaxRecordBytes}
	}
	size := int64(maxRecordLen(fields))
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return Reservation{}, nil, ErrClosed
	}
	if a.bufRecords+1 > a.cfg.MaxBufferedRecords || a.bufBytes+size > a.cfg.MaxBufferedBytes {
		if a.openBytes*2 >= a.bufBytes || a.openRecords*2 >= a.bufRecords {
			a.flushLocked()
		}
		if !wait {
			return Reservation{}, nil, ErrBufferFull
		}
		if a.room == nil {
			a.room = make(chan struct{})
		}
		a.waiters++
		return Reservation{}, a.room, nil
	}
	a.bufRecords++
	a.bufBytes += size
	return Reservation{bytes: size}, nil, nil
}

// AppendReservedTo appends src, admitted by rv, to the partition ref
// names, without waiting: the room is rv's. rv ends whatever the outcome
// (ErrClosed, ErrBadRef, a *RecordTooLargeError).
func (a *Accumulator) AppendReservedTo(ref PartitionRef, src Source, rv Reservation) error {
	_, err := a.tryAppend(ref, src, false, &rv)
	return err
}

// Unreserve gives rv's room back.
func (a *Accumulator) Unreserve(rv Reservation) {
	a.mu.Lock()
	a.unreserveLocked(rv)
	a.mu.Unlock()
}

// endReservation gives rv's room back, if there is an rv.
func (a *Accumulator) endReservation(rv *Reservation) {
	if rv != nil {
		a.Unreserve(*rv)
	}
}

func (a *Accumulator) unreserveLocked(rv Reservation) {
	if rv.bytes == 0 {
		return // the zero Reservation: none
	}
	a.bufRecords--
	a.bufBytes -= rv.bytes
	if a.waiters > 0 && a.room != nil {
		close(a.room)
		a.room = nil
	}
}
