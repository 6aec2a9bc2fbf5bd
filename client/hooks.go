package client

import "time"

// Hooks receives the producer's metrics, in the manner of
// net/http/httptrace.ClientTrace: every field is optional (nil is not
// called), and fields added in later versions never break a caller. Each
// is called synchronously from a producer goroutine — never under a lock
// of the producer — and must be quick, never block, and be safe for
// concurrent use: a hook that blocks stalls the goroutine it runs on (the
// loop, a connection's reader, a sender), and with it every record behind.
// Hand anything slow to a goroutine of your own. The goroutine of each is
// named with it. Packages plugin/prom and plugin/otel (modules of their
// own) export them as Prometheus and OpenTelemetry metrics.
type Hooks struct {
	// BatchSent: a batch of records went out to broker (a first send or a retry).
	BatchSent func(topic string, partition int32, broker int32, records int, bytes int, retry bool)
	// BatchAcked: a batch was acknowledged at baseOffset.
	BatchAcked func(topic string, partition int32, records int, baseOffset int64)
	// EpochBumped: a partition moved to a new producer epoch.
	EpochBumped func(topic string, partition int32, producerID int64, epoch int16)
	// TailRead: the producer read a partition's log to resolve an outcome.
	TailRead func(topic string, partition int32, fromOffset int64)
	// DataLossDetected: acknowledged records are missing from the log.
	DataLossDetected func(ev DataLoss)
	// Buffered: records and bytes buffered and not yet resolved (as
	// Producer.Buffered returns them), sampled every BufferedInterval
	// and called only when they changed since the last call.
	Buffered func(records int, bytes int64)
	// RequestLatency: a produce request's round trip to broker.
	RequestLatency func(broker int32, d time.Duration)
	// AttemptFailed: a produce attempt of a batch to broker failed; err is
	// the broker's code for the partition (a *protocol.KafkaError:
	// errors.Is(err, protocol.ErrNotEnoughReplicas), …) or the request's
	// failure (connection lost, timed out, broker unreachable). The
	// producer decides what follows — a retry after its backoff, a tail
	// read, an epoch bump —; a record's own outcome still comes only from
	// its callback.
	AttemptFailed func(topic string, partition int32, broker int32, records int, err error)

	// BatchDone: a batch's records reached their outcome, all the same:
	// err nil (acknowledged), or the error their callbacks get (matching
	// ErrNotWritten or ErrOutcomeUnknown). d is the time from the batch's
	// closing (its linger ended) to its outcome; bytes its size as sent
	// (0 for records a cancelled context took back before their batch was
	// built, reported with d 0). Called on the loop.
	BatchDone func(topic string, partition int32, records int, bytes int, d time.Duration, err error)
	// BrokerConnect: the producer dialed broker at addr (broker -1: a
	// bootstrap or metadata connection, dialed by address); d is how long
	// the dial took (TCP, TLS, ApiVersions and SASL), err why it failed
	// (nil: connected). Called on the dialing goroutine.
	BrokerConnect func(broker int32, addr string, d time.Duration, err error)
	// BrokerDisconnect: a connection BrokerConnect reported as connected
	// ended; err says why (it matches protocol.ErrConnClosed when the
	// producer closed it). Called on the connection's reader goroutine as
	// it exits; Close returns after the last.
	BrokerDisconnect func(broker int32, addr string, err error)
	// BrokerThrottle: broker throttled the producer for d (a produce
	// response's throttle time, when above zero: a quota was exceeded;
	// the broker reads nothing more from the connection meanwhile,
	// KIP-219). Called on the connection's reader goroutine.
	BrokerThrottle func(broker int32, d time.Duration)
}

// filled returns h with every nil field a no-op, so that the producer
// calls its hooks without checking.
func (h Hooks) filled() Hooks {
	if h.BatchSent == nil {
		h.BatchSent = func(string, int32, int32, int, int, bool) {}
	}
	if h.BatchAcked == nil {
		h.BatchAcked = func(string, int32, int, int64) {}
	}
	if h.EpochBumped == nil {
		h.EpochBumped = func(string, int32, int64, int16) {}
	}
	if h.TailRead == nil {
		h.TailRead = func(string, int32, int64) {}
	}
	if h.DataLossDetected == nil {
		h.DataLossDetected = func(DataLoss) {}
	}
	if h.Buffered == nil {
		h.Buffered = func(int, int64) {}
	}
	if h.RequestLatency == nil {
		h.RequestLatency = func(int32, time.Duration) {}
	}
	if h.AttemptFailed == nil {
		h.AttemptFailed = func(string, int32, int32, int, error) {}
	}
	if h.BatchDone == nil {
		h.BatchDone = func(string, int32, int, int, time.Duration, error) {}
	}
	if h.BrokerConnect == nil {
		h.BrokerConnect = func(int32, string, time.Duration, error) {}
	}
	if h.BrokerDisconnect == nil {
		h.BrokerDisconnect = func(int32, string, error) {}
	}
	if h.BrokerThrottle == nil {
		h.BrokerThrottle = func(int32, time.Duration) {}
	}
	return h
}
