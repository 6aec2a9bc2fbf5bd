package compress

// Stream is one compression in progress whose input arrives in pieces:
// gzip and lz4 compress each piece as it is written, so the whole input
// never has to exist in memory at once — a batch encoder can encode a few
// tens of KiB of records into a buffer that stays in the cache, write
// them, and reuse the buffer. The output is byte for byte what Compress
// gives for the pieces' concatenation.
//
// A Stream from Compressor.Stream must be ended with Close. The zero
// Stream is not usable.
type Stream struct {
	cm  *Compressor
	enc *streamEnc
}

// Stream starts compressing into dst (the compressed bytes are appended to
// it). ok is false for the codecs that compress only a whole input (none,
// snappy, zstd: klauspost's EncodeAll is zstd's fastest path, and its
// streaming frames differ); use Compress for those.
func (cm *Compressor) Stream(dst []byte) (s Stream, ok bool) {
	if cm == nil || (cm.codec != Gzip && cm.codec != LZ4) {
		return Stream{}, false
	}
	e := cm.pool.Get().(*streamEnc)
	e.a.b = dst
	e.w.Reset(&e.a)
	return Stream{cm: cm, enc: e}, true
}

// Write compresses p, the input's next piece. p is not kept.
func (s *Stream) Write(p []byte) error {
	if s.enc == nil {
		return ErrStreamClosed
	}
	_, err := s.enc.w.Write(p)
	return err
}

// Close ends the input and returns dst with the compressed bytes
// appended. The Stream is not usable after it.
func (s *Stream) Close() ([]byte, error) {
	if s.enc == nil {
		return nil, ErrStreamClosed
	}
	e := s.enc
	err := e.w.Close()
	out := e.a.b
	e.a.b = nil
	s.cm.pool.Put(e)
	s.enc = nil
	return out, err
}
