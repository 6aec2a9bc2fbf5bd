// Package batching accumulates records per partition and turns each closed
// batch into a Kafka RecordBatch v2, encoded, compressed and checksummed once.
package batching
