package idempotence

import (
	"time"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

// TopicPartition names one partition of one topic.
type TopicPartition struct {
	Topic     string
	Partition int32
}

// BatchID identifies a batch. The caller assigns it and keeps it unique for
// the lifetime of the Producer.
type BatchID uint64

// DefaultMaxInFlight is the largest number of batches per partition whose
// outcome may be pending at once: the broker keeps the metadata of the last
// five batches per producer, so a retry is only deduplicated within five.
const DefaultMaxInFlight = 5

// DefaultRetryBackoff is the pause before a partition resends after an error.
const DefaultRetryBackoff = 100 * time.Millisecond

// DefaultRetryBackoffMax is the longest pause failures in a row grow to
// (the Java producer's retry.backoff.max.ms default).
const DefaultRetryBackoffMax = time.Second

// Config tunes a Producer. The zero value is usable.
type Config struct {
	// MaxInFlight bounds the batches of one partition that carry a sequence
	// number and are not yet delivered (1..5; 0 or more than 5 means 5).
	MaxInFlight int
	// StopOnDataLoss stops a partition when acknowledged records are found
	// missing from its log: its pending and future batches fail with
	// ErrPartitionStopped. Without it the loss is reported as a DataLoss
	// event and the partition carries on.
	StopOnDataLoss bool
	// RetryBackoff is the pause after a retriable error before the partition
	// sends again, and between failed tail reads. 0 means
	// DefaultRetryBackoff; a negative value means no pause.
	RetryBackoff time.Duration
	// RetryBackoffMax caps the pause: each failure in a row on a partition
	// (a retriable produce error, a failed tail read) doubles it from
	// RetryBackoff up to this, with ±20% jitter, and a success brings it
	// back to RetryBackoff (as KIP-580's exponential backoff). 0 or less
	// means DefaultRetryBackoffMax; below RetryBackoff it is the pause, always
	// (as with the Java producer and librdkafka).
	RetryBackoffMax time.Duration
	// LeaderAcks says the produce requests carry acks=1; the zero value
	// means acks=all (-1), the only setting idempotence allows. It decides
	// what some codes mean: with acks=all a leader can append, lose
	// leadership while waiting for its followers and answer
	// NOT_LEADER_OR_FOLLOWER, so that answer leaves the outcome unknown.
	LeaderAcks bool
	// ProducerIDExpiration is the brokers' producer.id.expiration.ms; 0
	// means Kafka's default, a day, and a negative value turns the guard
	// below off. Kafka measures it from the largest record timestamp of
	// the producer's last batch, not from when the batch arrived, and a
	// broker loading its producer-state snapshot (a restart) drops every
	// producer so stamped: it then accepts that producer's next batch at
	// any sequence, so resending a batch whose earlier attempt landed
	// would write it twice. A partition holding a batch stamped three
	// quarters of this long ago therefore resolves an unknown outcome by
	// reading its log, never by resending unchanged.
	ProducerIDExpiration time.Duration
	// AnswerTimeout is how long the caller waits for a produce answer
	// before it gives up on the request (the connection's request
	// timeout); 0 means DefaultAnswerTimeout. A broker completes a request
	// it has read even after the connection dropped, so an attempt left
	// without an answer (kafkaerr.Transport) may still land up to about
	// this long after it was written — at the latest, this long after the
	// failure is reported. Where that matters — a partition holding a
	// batch stamped long ago (ProducerIDExpiration), whose broker may have
	// forgotten the producer and would take a resend as a second copy —
	// the read that settles the attempt waits until then.
	AnswerTimeout time.Duration

	// Transactional makes the producer transactional (it has a
	// transactional id): the transaction machine (txn_state.go, README)
	// owns the producer id and epoch — InitTransactions asks for them,
	// SetIdentity is ignored — batches are taken only inside a
	// transaction, a partition's batches go out once it is added to the
	// transaction, and their outcomes are told when it ends. A partition
	// never bumps its epoch on its own: a hole in its sequences makes the
	// transaction abortable, and the epoch moves after the abort.
	Transactional bool
	// TxnNoEpochBump says the coordinator cannot bump an epoch for the
	// current producer id (InitProducerId before v3, Kafka before 2.5):
	// after an abort the epoch stays, and a partition that needs a fresh
	// one makes the producer fatal.
	TxnNoEpochBump bool

	// history bounds the acknowledged batches a partition remembers for
	// its loss checks (0: historySize). Only the package's tests shrink
	// it, so that walks reach the loss-below-history rules.
	history int
}

// DefaultAnswerTimeout is the AnswerTimeout of the zero Config: the Java
// producer's request.timeout.ms default.
const DefaultAnswerTimeout = 30 * time.Second

// DefaultProducerIDExpiration is Kafka's producer.id.expiration.ms default.
const DefaultProducerIDExpiration = 24 * time.Hour

// Class is the caller's classification of a produce outcome for error codes
// this package has no rule of its own for. The zero value, MaybeAppended, is
// the safe default: such a batch is retried unchanged and never reported as
// not written.
type Class uint8

const (
	// MaybeAppended: the batch may or may not be in the log (request timed
	// out, connection lost after the request was written).
	MaybeAppended Class = iota
	// NotAppended: the broker did not append the batch; retry.
	NotAppended
	// NotAppendedFatal: the broker did not append the batch and retrying
	// will not help (authorization, corrupt message, unsupported version).
	NotAppendedFatal
	// Appended: the batch is in the log at BaseOffset.
	Appended
)

// String returns the class name.
func (c Class) String() string {
	switch c {
	case MaybeAppended:
		return "MaybeAppended"
	case NotAppended:
		return "NotAppended"
	case NotAppendedFatal:
		return "NotAppendedFatal"
	case Appended:
		return "Appended"
	}
	return "Class(?)"
}

// Response is the outcome of one produce attempt for one batch: the
// partition's error code as the broker answered it. What a code means is
// decided here, from kafkaerr's table of Kafka codes and the acks in
// Config; Class is read only for kafkaerr.Transport (no answer): MaybeAppended
// when the request had been written to the connection, NotAppended when it
// never was, NotAppendedFatal when it never can be (credentials refused).
// A client fabricating an answer for acks=0 sends Code 0, Class Appended.
type Response struct {
	Code           kafkaerr.Code
	Class          Class
	BaseOffset     int64 // valid when the batch was appended
	LogStartOffset int64 // as reported by the broker; -1 when unknown
}

// Send is one batch the caller must write now, with the header values it
// must carry (the caller patches producer id, epoch and base sequence into
// the encoded batch) and the broker it must go to.
type Send struct {
	TP           TopicPartition
	ID           BatchID
	ProducerID   int64
	Epoch        int16
	BaseSequence int32
	Broker       int32
	LeaderEpoch  int32
}

// TailBatch is the header of one record batch found in a partition's log.
type TailBatch struct {
	BaseOffset   int64
	ProducerID   int64
	Epoch        int16
	BaseSequence int32
	Records      int32
}

// Tail is the result of reading a partition's log, answering a ReadTail
// event: every batch header from the requested offset up to HighWatermark,
// read from the partition's current leader (a read checked against the
// leader epoch), and — where the broker can tell — the leader's own
// producer state.
//
// Batches must be complete from the requested offset to HighWatermark (a
// read cut short would make present batches look absent): page through the
// fetch until the high watermark. A fetch shows only committed batches: a
// batch the leader appended but has not replicated is invisible to it.
// That is what Producers is for: the leader's state moves on append, so a
// batch it holds above the high watermark is known appended, and one it
// does not hold is known absent from it. Ask for it (DescribeProducers,
// KIP-664) before the fetch. Control batches may be left out.
//
// Err, when set, means the log could not be read this time (it is asked
// again). Unreadable means it never can be (the producer may not read the
// topic): outcomes that only a read could settle stay unknown.
type Tail struct {
	Batches        []TailBatch
	LogStartOffset int64
	HighWatermark  int64
	// LogEndOffset is the leader's log end offset in its current epoch
	// when the read began (OffsetForLeaderEpoch), uncommitted appends
	// included; -1 if the broker could not say (before Kafka 2.3, no
	// OffsetForLeaderEpoch v3). A read whose high watermark stays below it
	// has not seen everything the leader holds; without it, a read whose
	// high watermark is below what was acknowledged is never believed.
	LogEndOffset int64
	// Described: the leader answered DescribeProducers; Producers is its
	// state for every producer id it keeps on the partition.
	Described  bool
	Producers  []ProducerState
	Err        error
	Unreadable bool
}

// ProducerState is the partition leader's state for one producer id: the
// epoch and the last sequence of the last batch it appended (committed or
// not).
type ProducerState struct {
	ProducerID   int64
	Epoch        int16
	LastSequence int32
}

// Part is one piece of a batch split after MESSAGE_TOO_LARGE.
type Part struct {
	ID      BatchID
	Records int32
}
