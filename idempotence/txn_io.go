package idempotence

import "github.com/rollsafe/rollsafe/kafkaerr"

// The inputs and events of a transactional producer (Config.Transactional).
// The application's calls are inputs (InitTransactions, BeginTxn,
// CommitTxn, AbortTxn); the requests to the transaction coordinator are
// events (FindCoordinator, InitProducerIDRequest, AddPartitionsRequest,
// EndTxnRequest), each answered by an input; TxnStateChanged says where
// the transaction stands after each change. At most one coordinator
// request is outstanding at a time.

// InitTransactions starts a transactional producer: InitProducerId with
// its transactional id, which fences older instances and aborts a
// transaction they left open.
type InitTransactions struct{}

// BeginTxn opens a transaction (from TxnReady). NewBatch is taken only
// while one is open.
type BeginTxn struct{}

// CommitTxn asks for the open transaction to be committed: EndTxn(commit)
// goes once every batch of it is acknowledged. TxnStateChanged to TxnReady
// with a nil Err says it is committed (its batches' Delivered events come
// with it); to TxnAbortableError, that it cannot be.
type CommitTxn struct{}

// AbortTxn aborts the open transaction (from TxnInTransaction or
// TxnAbortableError). Every batch of it fails with ErrAborted.
type AbortTxn struct{}

// SendOffsets adds a consumer group's offsets to the open transaction
// (from TxnInTransaction): AddOffsetsRequest, then OffsetsCommitRequest
// to the group's coordinator. TxnStateChanged back to TxnInTransaction
// says the offsets are pending in the transaction (committed with it,
// dropped if it aborts); to TxnAbortableError, that they cannot be.
type SendOffsets struct{ Group string }

// CoordinatorFound answers FindCoordinator: the broker that coordinates
// the transactional id (Group empty) or the group, -1 if none is known now
// (it is asked again after the backoff). Code, with -1, is the code
// answered: for a group GROUP_AUTHORIZATION_FAILED makes the transaction
// abortable, for the transactional id a fatal code
// (TRANSACTIONAL_ID_AUTHORIZATION_FAILED…) the producer fatal (kafkaerr's
// TxnAction); a code retried, or none, asks again.
type CoordinatorFound struct {
	Broker int32
	Group  string
	Code   kafkaerr.Code
}

// AddOffsetsAnswer answers AddOffsetsRequest: Code kafkaerr.Transport
// when no answer came (the group's partition may have been added).
type AddOffsetsAnswer struct{ Code kafkaerr.Code }

// OffsetsCommitAnswer answers OffsetsCommitRequest: Code is the
// request's own error (kafkaerr.Transport when no answer came), else
// Partitions holds each offset's partition's code.
type OffsetsCommitAnswer struct {
	Code       kafkaerr.Code
	Partitions map[TopicPartition]kafkaerr.Code
}

// InitProducerIDAnswer answers InitProducerIDRequest: Code
// kafkaerr.Transport when no answer came.
type InitProducerIDAnswer struct {
	Code       kafkaerr.Code
	ProducerID int64
	Epoch      int16
}

// AddPartitionsAnswer answers AddPartitionsRequest: Code is the
// request's own error (kafkaerr.Transport when no answer came), else
// Partitions holds each partition's code (a partition missing from it
// counts as not added).
type AddPartitionsAnswer struct {
	Code       kafkaerr.Code
	Partitions map[TopicPartition]kafkaerr.Code
}

// EndTxnAnswer answers EndTxnRequest: Code kafkaerr.Transport when no
// answer came (the request may have been applied: it is sent again with
// the same epoch, which the coordinator answers as the first).
type EndTxnAnswer struct{ Code kafkaerr.Code }

func (InitTransactions) isInput()     {}
func (BeginTxn) isInput()             {}
func (CommitTxn) isInput()            {}
func (AbortTxn) isInput()             {}
func (CoordinatorFound) isInput()     {}
func (InitProducerIDAnswer) isInput() {}
func (AddPartitionsAnswer) isInput()  {}
func (EndTxnAnswer) isInput()         {}
func (SendOffsets) isInput()          {}
func (AddOffsetsAnswer) isInput()     {}
func (OffsetsCommitAnswer) isInput()  {}

// FindCoordinator: look up the transaction coordinator of the
// transactional id (Group empty) or the coordinator of Group, and answer
// with CoordinatorFound (with the same Group).
type FindCoordinator struct{ Group string }

// InitProducerIDRequest: send InitProducerId for the transactional id to
// Broker (the coordinator). ProducerID and Epoch are -1 at the start, and
// the current identity when a fresh epoch is asked after an abort
// (KIP-360). Answer with InitProducerIDAnswer.
type InitProducerIDRequest struct {
	Broker     int32
	ProducerID int64
	Epoch      int16
}

// AddPartitionsRequest: send AddPartitionsToTxn (v1 and later, one
// transaction) with these partitions to Broker. Answer with
// AddPartitionsAnswer.
type AddPartitionsRequest struct {
	Broker     int32
	ProducerID int64
	Epoch      int16
	Partitions []TopicPartition
}

// AddOffsetsRequest: send AddOffsetsToTxn for Group to Broker (the
// transaction coordinator). Answer with AddOffsetsAnswer.
type AddOffsetsRequest struct {
	Broker     int32
	ProducerID int64
	Epoch      int16
	Group      string
}

// OffsetsCommitRequest: send TxnOffsetCommit with the offsets SendOffsets
// was called for (and the group's generation, member and instance ids) to
// Broker (the group's coordinator). Answer with OffsetsCommitAnswer.
type OffsetsCommitRequest struct {
	Broker     int32
	ProducerID int64
	Epoch      int16
	Group      string
}

// EndTxnRequest: send EndTxn to Broker. Answer with EndTxnAnswer.
type EndTxnRequest struct {
	Broker     int32
	ProducerID int64
	Epoch      int16
	Commit     bool
}

// TxnStateChanged: the transaction moved to State. Err says why for
// TxnAbortableError (matches ErrTxnAbortable) and TxnFatal (matches
// ErrTxnFatal, and ErrFenced when a newer instance holds the
// transactional id); for TxnReady after an abort it matches ErrAborted
// (the commit asked was not applied when the producer had not called
// AbortTxn), and it is nil after a commit.
type TxnStateChanged struct {
	State TxnState
	Err   error
}

// TxnRefused: an application call (InitTransactions, BeginTxn, CommitTxn,
// AbortTxn, SendOffsets) is not allowed in the current state; Err matches ErrTxnState.
type TxnRefused struct{ Err error }

func (FindCoordinator) isEvent()       {}
func (InitProducerIDRequest) isEvent() {}
func (AddPartitionsRequest) isEvent()  {}
func (EndTxnRequest) isEvent()         {}
func (AddOffsetsRequest) isEvent()     {}
func (OffsetsCommitRequest) isEvent()  {}
func (TxnStateChanged) isEvent()       {}
func (TxnRefused) isEvent()            {}
