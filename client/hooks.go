package client

import "time"

// Hooks receives the producer's metrics. Every method is called
// synchronously from producer goroutines and must be fast and safe for
// concurrent use; embed NopHooks to implement only some.
type Hooks interface {
	// BatchSent: a batch of records went out to broker (a first send or a retry).
	BatchSent(topic string, partition int32, broker int32, records int, bytes int, retry bool)
	// BatchAcked: a batch was acknowledged at baseOffset.
	BatchAcked(topic string, partition int32, records int, baseOffset int64)
	// EpochBumped: a partition moved to a new producer epoch.
	EpochBumped(topic string, partition int32, producerID int64, epoch int16)
	// TailRead: the producer read a partition's log to resolve an outcome.
	TailRead(topic string, partition int32, fromOffset int64)
	// DataLossDetected: acknowledged records are missing from the log.
	DataLossDetected(ev DataLoss)
	// Buffered: records and bytes buffered and not yet resolved (as
	// Producer.Buffered returns them), sampled every BufferedInterval
	// and called only when they changed since the last call.
	Buffered(records int, bytes int64)
	// RequestLatency: a produce request's round trip to broker.
	RequestLatency(broker int32, d time.Duration)
}

// NopHooks implements Hooks doing nothing.
type NopHooks struct{}

func (NopHooks) BatchSent(string, int32, int32, int, int, bool) {}
func (NopHooks) BatchAcked(string, int32, int, int64)           {}
func (NopHooks) EpochBumped(string, int32, int64, int16)        {}
func (NopHooks) TailRead(string, int32, int64)                  {}
func (NopHooks) DataLossDetected(DataLoss)                      {}
func (NopHooks) Buffered(int, int64)                            {}
func (NopHooks) RequestLatency(int32, time.Duration)            {}
