package batching

// BatchOfOneLen is the encoded size, uncompressed, of a record batch that
// holds only a record with this key, value and headers: the batch header
// and the record with its framing. It is what MaxRecordBytes bounds, and
// what a broker's max.message.bytes counts for a record sent alone.
func BatchOfOneLen(key, value []byte, headers []Header) int {
	return batchHeaderLen + encodedLen(bodyLenOf(fieldsLen(key, value, headers), 0, 0))
}
