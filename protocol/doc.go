// Package protocol turns kmsg requests into bytes on a Kafka connection and
// back: dialing, framing, ApiVersions negotiation, pipelined correlation,
// metadata, the connection pool and the Kafka error-code table. It holds no
// producer logic.
//
// # Connections
//
// Dial connects (optionally over TLS), runs ApiVersions and an optional
// Authenticate hook (the SASL seam). Each request is sent at
// min(our max, broker max); an API the broker cannot take fails with a
// *VersionError matching ErrUnsupportedVersion. Conn.Send pipelines up to
// ConnConfig.MaxInFlight requests; responses are matched strictly in send
// order. Any protocol violation closes the connection: requests that were
// written fail with errors matching ErrConnLostAfterWrite (outcome unknown),
// requests that were not fail with ErrNotWritten.
//
// Produce requests are not copied into a frame buffer: their fields are
// encoded around the batches, which are referenced in place and written
// with one writev on TCP (flattened into the write buffer on TLS). The
// batches must not change until Send returns.
//
// # Errors
//
// Every Kafka error code has an Err* sentinel; its name, retriability and
// produce outcome come from package kafkaerr, the module's one table of
// codes. ErrorForCode and PartitionError return *KafkaError values that
// match the sentinels under errors.Is.
//
// # Metadata and pool
//
// Metadata is a single-flight, periodically refreshed view of leaders (with
// leader epochs) and brokers; each change is also an immutable Snapshot,
// told to Watch's watchers after every refresh (so that one goroutine can
// act on the view without sharing it), and ApplyLeaderHints applies
// KIP-951 leader hints and returns the next one. Pool keeps one connection per broker id and
// redials with backoff; when the metadata moves a broker id to a new
// address, the next Conn for it closes the old connection and dials the new
// address.
//
// # Reads and producer state
//
// Fetch (FetchOptions: leader epoch, leader-only) and ListOffsets serve
// log-tail reads; FetchPartition is Fetch without an epoch. A Fetch stops at
// the answering replica's high watermark, which a follower or a new leader
// may hold below what is committed. DescribeProducers (KIP-664) asks a
// replica for its producer state, uncommitted appends included on the leader.
//
// See docs/architecture.md in the repository.
package protocol
