package sim

// checkRecords walks n records of a produced batch (uncompressed, or as
// inflated) the way Kafka's broker reads them (DefaultRecord.readFrom, the
// batch iterator): each record's size, then attributes, timestamp delta,
// offset delta, key, value and headers must fill exactly that size; a
// negative header count or header key size, or a varint longer than Kafka
// reads, is an invalid record; so are bytes left after the n-th record.
// Kafka answers INVALID_RECORD for all of these, and, for a compacted
// topic, for a record without a key. inOrder says whether the records'
// offset deltas are 0..n-1, which Kafka does not require (see
// parseProduceBatch).
//
// It reads the bytes in place: no record is decoded into a struct, nothing
// allocated (a broker child decoding every record into a kmsg.Record spent
// about half of its time in kmsg's varint decoding, the collector and
// write barriers).
func checkRecords(recs []byte, n int32, keyed bool) (inOrder bool, err error) {
	var w recordWalker
	w.b = recs
	inOrder = true
	for i := range n {
		size, ok := w.varint()
		if !ok {
			return false, batchErr(errInvalidRecord, "record %d: found invalid record structure (size)", i)
		}
		if size < 0 || int(size) > len(w.b)-w.off {
			return false, batchErr(errInvalidRecord, "record %d: invalid record size: expected %d bytes in record payload, %d remaining", i, size, len(w.b)-w.off)
		}
		start := w.off
		w.off++ // attributes
		_, ok1 := w.varlong()
		delta, ok2 := w.varint()
		key, ok3 := w.bytesField()
		_, ok4 := w.bytesField()
		headers, ok5 := w.varint()
		if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 {
			return false, batchErr(errInvalidRecord, "record %d: found invalid record structure", i)
		}
		if headers < 0 || int(headers) > len(w.b)-w.off {
			return false, batchErr(errInvalidRecord, "record %d: found invalid number of record headers %d", i, headers)
		}
		for h := range headers {
			kl, ok := w.varint()
			if ok && kl < 0 {
				return false, batchErr(errInvalidRecord, "record %d header %d: invalid negative header key size %d", i, h, kl)
			}
			if !ok || !w.skip(int(kl)) {
				return false, batchErr(errInvalidRecord, "record %d header %d: found invalid record structure", i, h)
			}
			if _, ok := w.bytesField(); !ok {
				return false, batchErr(errInvalidRecord, "record %d header %d: found invalid record structure", i, h)
			}
		}
		if read := w.off - start; read != int(size) {
			return false, batchErr(errInvalidRecord, "record %d: invalid record size: expected to read %d bytes in record payload, but instead read %d", i, size, read)
		}
		if delta != i {
			inOrder = false
		}
		if keyed && key < 0 {
			return false, batchErr(errInvalidRecord, "compacted topic cannot accept a record without key (record %d)", i)
		}
	}
	if left := len(w.b) - w.off; left != 0 {
		return false, batchErr(errInvalidRecord, "incorrect declared batch size: %d bytes remain after the last of %d records", left, n)
	}
	return inOrder, nil
}

// recordWalker reads Kafka's zigzag varints and length-prefixed fields
// from b at off. A read past the end leaves off beyond len(b) and reports
// false, as every later read then does.
type recordWalker struct {
	b   []byte
	off int
}

// uvarint reads an unsigned varint of at most max bytes.
func (w *recordWalker) uvarint(max int) (uint64, bool) {
	var u uint64
	for i := range max {
		if w.off >= len(w.b) {
			w.off = len(w.b) + 1
			return 0, false
		}
		c := w.b[w.off]
		w.off++
		u |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return u, true
		}
	}
	return 0, false
}

// varint reads a zigzag varint of at most 5 bytes (Kafka's readVarint:
// a fifth byte with its high bit set is too long; the bits of a fifth
// byte beyond 32 are dropped, as Java's int shift drops them).
func (w *recordWalker) varint() (int32, bool) {
	u, ok := w.uvarint(5)
	v := uint32(u)
	return int32(v>>1) ^ -int32(v&1), ok
}

// varlong reads a zigzag varint of at most 10 bytes (Kafka's readVarlong).
func (w *recordWalker) varlong() (int64, bool) {
	u, ok := w.uvarint(10)
	return int64(u>>1) ^ -int64(u&1), ok
}

// bytesField skips a varint-length-prefixed field (a negative length is
// null, nothing follows) and returns its length.
func (w *recordWalker) bytesField() (int32, bool) {
	l, ok := w.varint()
	if !ok {
		return 0, false
	}
	if l < 0 {
		return l, true
	}
	return l, w.skip(int(l))
}

func (w *recordWalker) skip(n int) bool {
	if w.off > len(w.b) || n > len(w.b)-w.off {
		w.off = len(w.b) + 1
		return false
	}
	w.off += n
	return true
}
