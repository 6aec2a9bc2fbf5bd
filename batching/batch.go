package batching

import (
	"log/slog"
	"sync"
	"time"

	"github.com/rollsafe/rollsafe/compress"
	"github.com/rollsafe/rollsafe/internal/crcfold"
)

// Batch is one closed RecordBatch v2 of one partition: encoded, compressed
// and checksummed once, by a worker when the batch closes, then reused
// verbatim on every retry. While the batch is open its records are only
// referenced (the caller's Key, Value and Headers); they stay referenced,
// for Split, until Release.
type Batch struct {
	TP      TopicPartition
	Records int // number of records

	acc   *Accumulator
	part  *partition // nil for batches made by Split
	codec compress.Codec
	id    uint64 // unique per open batch, for the linger queue
	seq   uint64 // closing order within the partition

	srcs   []Source // the records, in order, encoded by finish; each also its token
	rawLen int      // header plus the encoded records: the uncompressed size
	raw    []byte   // codec None: the header, then the encoded records (set by finish)
	comp   []byte   // header and compressed records (unused for codec None), from bufs
	wire   []byte   // raw or comp: what Bytes returns

	firstTS, maxTS int64

	// recordsCRC is the CRC32C of wire's records (after the header) and
	// recordsShift crcShift of their length, set by finish.
	recordsCRC, recordsShift uint32

	// unsentBytes: encoded by a worker, and counted (these bytes) in the
	// accumulator's unsent bytes until Bytes, SetProducer or Release.
	unsentBytes int64

	// encMu serialises the finishing of a batch delivered unencoded (by
	// Bytes or SetProducer on its sender's side, or by a worker catching
	// up) and guards what decides it — acc, id, wire — against reset and
	// Release.
	encMu sync.Mutex

	producerID   int64
	epoch        int16
	baseSequence int32

	chargeBytes   int64
	chargeRecords int

	// holding: its linger ended while an earlier batch of the partition
	// was not yet sent (HoldUntilSent); waitSend: closed, counted in its
	// partition's waiting until Sent or Release. Guarded by Accumulator.mu.
	holding, waitSend bool
}

// Bytes returns the whole RecordBatch v2 as it goes on the wire. The slice
// is owned by the batch and valid until Release. An uncompressed batch the
// workers left unencoded (see Accumulator) is encoded by the first call of
// Bytes or SetProducer, which must therefore not run concurrently on the
// same batch.
func (b *Batch) Bytes() []byte {
	b.encode()
	return b.wire
}

// encode encodes a batch the workers left unencoded (waiting for a worker
// that is encoding it), and takes an encoded one out of the accumulator's
// count of encoded batches not handed out.
func (b *Batch) encode() {
	a := b.acc
	if a == nil {
		return
	}
	b.encMu.Lock()
	if b.unsentBytes != 0 {
		a.uncountUnsent(b)
	}
	if b.wire == nil {
		sc := a.scratches.Get().(*scratch)
		b.finish(a.comp, sc)
		a.scratches.Put(sc)
	}
	b.encMu.Unlock()
}

// Sources returns the batch's records as they were appended, in order:
// each the Source given to AppendSourceTo, which is its token (one
// appended by Append or AppendTo is a copy of its fields; Token returns
// its token). The slice is the batch's own, valid until Release: a
// record's source is 16 bytes and no token is kept beside it.
func (b *Batch) Sources() []Source { return b.srcs }

// Token returns the token of the batch's i-th record: the token given to
// Append or AppendTo, or the Source given to AppendSourceTo.
func (b *Batch) Token(i int) any {
	if h, ok := b.srcs[i].(*held); ok {
		return h.token
	}
	return b.srcs[i]
}

// Codec returns the codec the batch is compressed with.
func (b *Batch) Codec() compress.Codec { return b.codec }

// FirstTimestamp returns the batch's first timestamp (ms since the epoch).
func (b *Batch) FirstTimestamp() int64 { return b.firstTS }

// MaxTimestamp returns the batch's largest timestamp (ms since the epoch).
func (b *Batch) MaxTimestamp() int64 { return b.maxTS }

// Producer returns the producer id, epoch and base sequence in the header
// (-1, -1, -1 until SetProducer).
func (b *Batch) Producer() (producerID int64, epoch int16, baseSequence int32) {
	return b.producerID, b.epoch, b.baseSequence
}

// UncompressedBytes returns the size the batch would have uncompressed.
func (b *Batch) UncompressedBytes() int { return b.rawLen }

// SetProducer writes the producer id, epoch and base sequence into the
// header and recomputes the CRC; the records are not touched (no
// recompression). It costs nothing if the fields are unchanged.
func (b *Batch) SetProducer(producerID int64, epoch int16, baseSequence int32) {
	b.encode()
	if producerID == b.producerID && epoch == b.epoch && baseSequence == b.baseSequence {
		return
	}
	b.producerID, b.epoch, b.baseSequence = producerID, epoch, baseSequence
	w := b.wire
	be.PutUint64(w[offProducerID:], uint64(producerID))
	be.PutUint16(w[offProducerEpoch:], uint16(epoch))
	be.PutUint32(w[offBaseSequence:], uint32(baseSequence))
	be.PutUint32(w[offCRC:], b.crc())
}

// crc returns the batch's CRC32C from its header and the records' CRC
// computed by finish, without a pass over the records.
func (b *Batch) crc() uint32 {
	h := crcfold.Checksum(b.wire[offAttributes:batchHeaderLen], crcfold.Castagnoli)
	return crcCombine(h, b.recordsCRC, b.recordsShift)
}

// reset prepares a pooled batch to be the open batch of tp. Its buffers
// are sized when it is finished.
func (b *Batch) reset(a *Accumulator, p *partition, tp TopicPartition, id uint64) {
	b.encMu.Lock()
	defer b.encMu.Unlock()
	b.TP = tp
	b.part = p
	b.holding, b.waitSend = false, false
	b.Records = 0
	b.acc = a
	b.codec = a.cfg.Codec
	b.id = id
	clear(b.srcs)
	b.srcs = b.srcs[:0]
	b.rawLen = batchHeaderLen
	b.wire = nil
	b.unsentBytes = 0
	b.firstTS, b.maxTS = 0, 0
	b.producerID, b.epoch, b.baseSequence = -1, -1, -1
	b.chargeBytes, b.chargeRecords = 0, 0
}

// reserve makes room for n records, and a quarter more, unless the batch
// (from the pool) already has it: a batch that grew record by record would
// copy its list at each doubling and leave every smaller list as garbage.
func (b *Batch) reserve(n int) {
	if cap(b.srcs) >= n {
		return
	}
	n += n / 4
	b.srcs = make([]Source, 0, n)
}

// add appends src, of timestamp ts, whose encoded length in this batch is
// size.
func (b *Batch) add(src Source, ts int64, size int) {
	if b.Records == 0 {
		b.firstTS, b.maxTS = ts, ts
	} else if ts > b.maxTS {
		b.maxTS = ts
	}
	b.srcs = append(b.srcs, src)
	b.rawLen += size
	b.Records++
	b.chargeBytes += int64(size)
	b.chargeRecords++
}

// scratch is what a batch worker keeps from one compressed batch to the
// next, so that neither buffer is allocated, or leaves the cache, per
// batch.
type scratch struct {
	enc []byte // records encoded before compression
	out []byte // compressed output, before its copy to the batch
}

// maxKeptScratch bounds each scratch buffer kept between batches: one
// unusually large batch does not pin its buffers.
const maxKeptScratch = 4 << 20

// finish encodes the records, compresses them and writes the header and
// CRC, once. sc holds the caller's buffers between calls (nil for none):
// the records of a compressed batch are encoded and compressed there, and
// only the compressed bytes, copied into a buffer of their size, stay with
// the batch.
func (b *Batch) finish(c *compress.Compressor, sc *scratch) {
	if b.codec == compress.None {
		b.finishRaw()
		return
	}
	if sc == nil {
		sc = new(scratch)
	}
	out, err := b.compressRecords(c, sc)
	if err != nil {
		// Unreachable with the codecs of package compress; an
		// uncompressed batch is still valid, so send that.
		slog.Error("batching: compression failed, sending batch uncompressed",
			"topic", b.TP.Topic, "partition", b.TP.Partition, "codec", b.codec, "err", err)
		b.codec = compress.None
		b.finishRaw()
		return
	}
	// The copy reads out hot from the cache; compressing straight into a
	// batch's own buffer meant a fresh buffer sized for the worst case
	// (half the records), zeroed and written out of the cache. The copy's
	// buffer comes from the size-class pool, as an uncompressed batch's
	// does: kept with the Batch, a buffer of one batch's exact size was too
	// small for the next batch half the time, and a fresh one costs the
	// page faults of memory the runtime had returned to the system.
	b.comp = append(b.acc.bufs.get(len(out)), out...)
	if cap(out) > maxKeptScratch {
		out = nil
	}
	sc.out = out[:0]
	b.wire = b.comp
	b.writeHeader(crcfold.Checksum(b.wire[batchHeaderLen:], crcfold.Castagnoli))
}

// finishRaw encodes the records uncompressed, with their CRC32C, into a
// pooled buffer of their size class and writes the header.
func (b *Batch) finishRaw() {
	b.raw = b.acc.bufs.get(b.rawLen)
	var crc uint32
	b.raw, crc, _ = b.encodeRecords(b.raw[:batchHeaderLen], true, nil)
	b.wire = b.raw
	b.writeHeader(crc)
}

// compressRecords encodes b's records and returns a batch header's room
// followed by their compressed form, in sc.out. Codecs that compress a
// stream (gzip, lz4) get the records streamChunk at a time, encoded into
// sc.enc and reused; the others get them whole, encoded into sc.enc.
func (b *Batch) compressRecords(c *compress.Compressor, sc *scratch) ([]byte, error) {
	if cap(sc.out) < batchHeaderLen {
		sc.out = make([]byte, 0, batchHeaderLen+b.rawLen/2)
	}
	s := sc.enc
	defer func() {
		if cap(s) > maxKeptScratch {
			s = nil
		}
		sc.enc = s[:0]
	}()
	if st, ok := c.Stream(sc.out[:batchHeaderLen]); ok {
		if cap(s) < 2*streamChunk {
			s = make([]byte, 0, 2*streamChunk)
		}
		var err error
		s, _, err = b.encodeRecords(s[:0], false, &st)
		out, cerr := st.Close()
		if err != nil {
			return nil, err
		}
		return out, cerr
	}
	if cap(s) < b.rawLen {
		s = make([]byte, 0, b.rawLen)
	}
	s, _, _ = b.encodeRecords(s[:0], false, nil)
	return c.Compress(sc.out[:batchHeaderLen], s)
}

// writeHeader fills in the header of wire, whose records (after the
// header) have the CRC32C recordsCRC.
func (b *Batch) writeHeader(recordsCRC uint32) {
	w := b.wire
	be.PutUint64(w[offBaseOffset:], 0)
	be.PutUint32(w[offLength:], uint32(len(w)-lengthFieldEnd))
	be.PutUint32(w[offLeaderEpoch:], 0xffffffff) // -1: set by the broker
	w[offMagic] = magicV2
	attrs := uint16(b.codec) & attrCodecMask
	if b.acc != nil && b.acc.cfg.Transactional {
		attrs |= attrTransactional
	}
	be.PutUint16(w[offAttributes:], attrs)
	be.PutUint32(w[offLastOffsetDelta:], uint32(b.Records-1))
	be.PutUint64(w[offFirstTimestamp:], uint64(b.firstTS))
	be.PutUint64(w[offMaxTimestamp:], uint64(b.maxTS))
	be.PutUint64(w[offProducerID:], uint64(b.producerID))
	be.PutUint16(w[offProducerEpoch:], uint16(b.epoch))
	be.PutUint32(w[offBaseSequence:], uint32(b.baseSequence))
	be.PutUint32(w[offNumRecords:], uint32(b.Records))
	b.recordsCRC = recordsCRC
	b.recordsShift = crcShift(len(w) - batchHeaderLen)
	be.PutUint32(w[offCRC:], b.crc())
}

// timestampMillis returns r's timestamp in ms, or now's if it is zero.
func timestampMillis(r *Record, now func() time.Time) int64 {
	if r.Timestamp.IsZero() {
		return now().UnixMilli()
	}
	return r.Timestamp.UnixMilli()
}
