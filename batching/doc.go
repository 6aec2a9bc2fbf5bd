// Package batching accumulates records per partition and turns each closed
// batch into a Kafka RecordBatch v2, encoded, compressed and checksummed once.
//
// An Accumulator keeps one open batch per partition. Append encodes each
// record (varints, as on the wire) straight into the batch's pooled buffer;
// a batch closes when it reaches Config.BatchBytes, when its linger ends, or
// on Flush. Closed batches are compressed and CRC32C-summed by worker
// goroutines (GOMAXPROCS by default), in parallel even within one partition,
// and handed to the ready callback in closing order per partition. The
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
package batching
