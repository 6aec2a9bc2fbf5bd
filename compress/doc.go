// Package compress encodes and decodes the record-batch payloads of Kafka's
// four codecs (gzip, snappy, lz4, zstd) with pooled encoders and decoders,
// refusing decompression bombs with a typed error.
//
// See docs/architecture.md in the repository.
package compress
