// Package protocol turns kmsg requests into bytes on a Kafka connection and
// back: dialing, framing, ApiVersions negotiation, pipelined correlation,
// metadata, the connection pool and the Kafka error-code table. It holds no
// producer logic.
package protocol
