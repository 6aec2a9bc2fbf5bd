// Package batching accumulates records per partition and turns each closed
// batch into a Kafka RecordBatch v2, encoded, compressed and checksummed once.
//
// An Accumulator keeps one open batch per partition. Append only references
// each record (its key, value and headers stay the caller's, unmodified,
// until the batch is released) and counts its encoded size; AppendSourceTo
// keeps a Source, 16 bytes per record, and reads its fields again when the
// batch is encoded. A batch closes
// when it reaches Config.BatchBytes, when its linger ends, or on Flush.
// Closed batches are encoded (varints, as on the wire, the CRC32C computed
// right behind the copy), compressed and checksummed by worker goroutines
// (GOMAXPROCS by default), in parallel even within one partition, and
// handed to the ready callback in closing order per partition; records are
// streamed to the compressor 32 KiB at a time from a reused buffer. A
// compressed batch keeps only its compressed bytes; an uncompressed one
// gets a buffer of its size class from a pool. While encoded batches not
// yet handed out (Bytes) hold eight batches' worth (compressed: a quarter
// of MaxBufferedBytes, if more), closed batches are delivered unencoded and
// encoded by a worker as room frees, or by their first Bytes: a stalled
// broker then costs the callers' records and a bounded part more, not a
// second copy of them. The
// bytes of a Batch are then reused verbatim on every retry; SetProducer
// patches only the producer id, epoch and base sequence and the CRC (an
// epoch bump costs no recompression), and Split re-batches the records of a
// batch the broker found too large.
//
// Buffered records and bytes are counted from Append to Release and bounded
// by Config.MaxBufferedRecords and MaxBufferedBytes (backpressure).
//
// ParseBatchHeaders and DecodeBatches read record batches back, as found in
// fetch responses, with CRC checks and bounded decompression.
//
// See docs/architecture.md (the packages and the loop) and
// docs/performance.md (what building batches costs) in the repository.
package batching
