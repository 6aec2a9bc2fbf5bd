package idempotence

import "fmt"

// Event is a decision of the Producer, returned by Ready. The concrete types
// are Delivered, Failed, ReadTail, DataLoss, EpochBumped, NeedProducerID,
// NeedSplit and RefreshMetadata, and for a transactional producer those of
// txn_io.go: FindCoordinator, InitProducerIDRequest, AddPartitionsRequest,
// EndTxnRequest, TxnStateChanged and TxnRefused.
type Event interface{ isEvent() }

// Delivered: the batch is in the log. BaseOffset is -1 when unknown (the
// broker answered DUPLICATE_SEQUENCE_NUMBER). Per partition, Delivered events
// come in the order the batches were enqueued.
type Delivered struct {
	TP         TopicPartition
	ID         BatchID
	BaseOffset int64
}

// Failed: the batch is finished without a delivery. Err matches (errors.Is)
// ErrNotWritten when the records are known not to be in the log, or
// ErrOutcomeUnknown when they may be.
type Failed struct {
	TP  TopicPartition
	ID  BatchID
	Err error
}

// ReadTail asks the caller to read the partition's log from FromOffset to the
// high watermark, with the leader's producer state, and hand them over as a
// TailRead input. It is asked only when nothing of the partition is in
// flight. FromOffset is the base offset of the last batch delivered with a
// known offset: the read must show it there, which proves the log was not
// truncated below it (otherwise a second, wider ReadTail follows, from the
// oldest acknowledged batch remembered). FromOffset -1 means from the log
// start: nothing acknowledged with an offset is remembered.
type ReadTail struct {
	TP         TopicPartition
	FromOffset int64
}

// DataLoss reports acknowledged records missing from the log: offsets
// FromOffset..ToOffset (inclusive) had been acknowledged and are gone.
// Records counts the acknowledged records known in that range. Only batches
// the caller heard were delivered count: one reported unknown (a deadline,
// a purge) and acknowledged afterwards is not reported lost. A partition
// remembers its last 64 acknowledged batches one by one and, below them, the
// run of its offsets without another producer's between (offsets its own
// later batches now hold count as lost there: they were written after the
// truncation); a loss reaching below both (or, below the batches, another
// producer's records written over the truncated offsets before the read)
// is reported from what is known: Records is then a lower bound.
type DataLoss struct {
	TP         TopicPartition
	FromOffset int64
	ToOffset   int64
	Records    int64
}

// Error implements error; DataLoss matches ErrDataLoss with errors.Is.
func (d DataLoss) Error() string {
	return fmt.Sprintf("idempotence: %s[%d]: %d acknowledged records lost at offsets %d..%d",
		d.TP.Topic, d.TP.Partition, d.Records, d.FromOffset, d.ToOffset)
}

// Is reports whether target is ErrDataLoss.
func (d DataLoss) Is(target error) bool { return target == ErrDataLoss }

// EpochBumped: the partition now writes under ProducerID and Epoch, its
// sequences starting again at 0.
type EpochBumped struct {
	TP         TopicPartition
	ProducerID int64
	Epoch      int16
}

// NeedProducerID: the epoch is exhausted; the caller must obtain a new
// producer id (InitProducerId) and call SetIdentity. Partitions needing a
// bump hold until then; the others keep flowing.
type NeedProducerID struct{}

// NeedSplit: the broker refused the batch as too large (it was not written).
// The caller must call Split with its parts.
type NeedSplit struct {
	TP TopicPartition
	ID BatchID
}

// RefreshMetadata: the partition's leader must be looked up again. The
// partition holds until LeaderChanged is called, even with the same leader.
type RefreshMetadata struct{ TP TopicPartition }

func (Delivered) isEvent()       {}
func (Failed) isEvent()          {}
func (ReadTail) isEvent()        {}
func (DataLoss) isEvent()        {}
func (EpochBumped) isEvent()     {}
func (NeedProducerID) isEvent()  {}
func (NeedSplit) isEvent()       {}
func (RefreshMetadata) isEvent() {}
