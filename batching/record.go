package batching

// minRecordLen is the smallest encoded record: length, attributes,
// timestamp delta, offset delta, null key, null value, no headers.
const minRecordLen = 7

func bytesFieldLen(b []byte) int {
	if b == nil {
		return 1 // varint -1
	}
	return varintLen(int64(len(b))) + len(b)
}

// recordBodyLen is the encoded size of r after its length prefix.
func recordBodyLen(r *Record, tsDelta int64, offDelta int32) int {
	n := 1 + varintLen(tsDelta) + varintLen(int64(offDelta)) +
		bytesFieldLen(r.Key) + bytesFieldLen(r.Value) + varintLen(int64(len(r.Headers)))
	for i := range r.Headers {
		h := &r.Headers[i]
		n += varintLen(int64(len(h.Key))) + len(h.Key) + bytesFieldLen(h.Value)
	}
	return n
}

// recordLen is the full encoded size of r, length prefix included.
func recordLen(r *Record, tsDelta int64, offDelta int32) int {
	body := recordBodyLen(r, tsDelta, offDelta)
	return varintLen(int64(body)) + body
}

func appendBytesField(b, v []byte) []byte {
	if v == nil {
		return appendVarint(b, -1)
	}
	b = appendVarint(b, int64(len(v)))
	return append(b, v...)
}

// appendRecord encodes r (body length body, from recordBodyLen) onto b.
func appendRecord(b []byte, r *Record, body int, tsDelta int64, offDelta int32) []byte {
	b = appendVarint(b, int64(body))
	b = append(b, 0) // attributes: unused in v2
	b = appendVarint(b, tsDelta)
	b = appendVarint(b, int64(offDelta))
	b = appendBytesField(b, r.Key)
	b = appendBytesField(b, r.Value)
	b = appendVarint(b, int64(len(r.Headers)))
	for i := range r.Headers {
		h := &r.Headers[i]
		b = appendVarint(b, int64(len(h.Key)))
		b = append(b, h.Key...)
		b = appendBytesField(b, h.Value)
	}
	return b
}

// recordTooLarge reports whether r can never fit a batch of max bytes, and
// the size of its batch of one.
func batchOfOneLen(r *Record) int {
	return batchHeaderLen + recordLen(r, 0, 0)
}
