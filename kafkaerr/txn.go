package kafkaerr

import "strconv"

// TxnAction is what a transactional producer does after a code, answered
// by the transaction coordinator (InitProducerId, AddPartitionsToTxn,
// EndTxn) or by a partition leader to a produce of the transaction
// (idempotence/README.md, transaction rules, says the same row by row).
type TxnAction uint8

const (
	// TxnFatal: the producer can go no further (fenced by a newer
	// instance, refused access, a state it cannot recover from). The zero
	// value: a code the table lacks is not retried blindly.
	TxnFatal TxnAction = iota
	// TxnOK: the request was applied.
	TxnOK
	// TxnRetry: not applied; the same request again after a pause
	// (COORDINATOR_LOAD_IN_PROGRESS, CONCURRENT_TRANSACTIONS: the previous
	// transaction's markers are still being written).
	TxnRetry
	// TxnRediscover: not applied; the coordinator must be looked up
	// again (FindCoordinator) before the same request is sent again.
	// Transport (no answer) has this action too, and may have been
	// applied.
	TxnRediscover
	// TxnAbortable: the transaction cannot commit; the application
	// aborts it and goes on.
	TxnAbortable
	// TxnStaleEpoch: the producer's epoch is no longer the coordinator's:
	// a newer instance with the same transactional id fenced it, or the
	// coordinator aborted the transaction on its timeout and bumped the
	// epoch (KIP-588). The transaction cannot commit; InitProducerId with
	// the current producer id and epoch tells the two apart (granted after
	// a timeout, PRODUCER_FENCED after a newer instance).
	TxnStaleEpoch
)

var txnActionNames = [...]string{"fatal", "ok", "retry", "rediscover", "abortable", "stale-epoch"}

// String returns a short name for a.
func (a TxnAction) String() string {
	if int(a) < len(txnActionNames) {
		return txnActionNames[a]
	}
	return "TxnAction(" + strconv.Itoa(int(a)) + ")"
}

// txnTable lists every code with a transactional action other than
// TxnFatal. Codes a produce answers that fail or retry a batch in the
// idempotent producer keep that meaning (Action); this table is read for
// the coordinator's answers and, for a produce, only for TxnAbortable and
// TxnStaleEpoch.
var txnTable = map[Code]TxnAction{
	None:                      TxnOK,
	Transport:                 TxnRediscover,
	NotCoordinator:            TxnRediscover,
	CoordinatorNotAvailable:   TxnRediscover,
	CoordinatorLoadInProgress: TxnRetry,
	ConcurrentTransactions:    TxnRetry,
	// Kafka's producer retries every retriable code a coordinator
	// answers: the request timed out on the broker, not applied.
	RequestTimedOut: TxnRetry,
	// AddPartitionsToTxn, per partition: another partition of the request
	// failed, or its metadata is not known yet.
	OperationNotAttempted:   TxnRetry,
	UnknownTopicOrPartition: TxnRetry,
	// KIP-890: the coordinator or a leader says this transaction must end
	// in an abort.
	TransactionAbortable: TxnAbortable,
	// AddPartitionsToTxn: no access to a topic of the transaction.
	TopicAuthorizationFailed: TxnAbortable,
	// AddOffsetsToTxn, TxnOffsetCommit, FindCoordinator of a group: no
	// access to the group.
	GroupAuthorizationFailed: TxnAbortable,
	// TxnOffsetCommit v3+ (KIP-447): the group moved on from the
	// generation or member the offsets were consumed under, or a newer
	// member took the static instance id; the transaction cannot commit
	// them.
	IllegalGeneration: TxnAbortable,
	UnknownMemberID:   TxnAbortable,
	FencedInstanceID:  TxnAbortable,
	// The coordinator no longer maps the transactional id to this producer
	// id (it expired): InitProducerId with the current identity recovers.
	InvalidProducerIDMapping: TxnStaleEpoch,
	// KIP-588: a leader refuses a produce of an older epoch (the
	// coordinator's timeout bumped it, or a newer instance did); the
	// coordinator answers PRODUCER_FENCED (INVALID_PRODUCER_EPOCH before
	// its version 2 of the APIs) to a request of an older epoch.
	InvalidProducerEpoch: TxnStaleEpoch,
	ProducerFenced:       TxnStaleEpoch,
}

// TxnAction is what a transactional producer does after c (see
// TxnAction). A code the table lacks is TxnFatal: among them
// TRANSACTIONAL_ID_AUTHORIZATION_FAILED, CLUSTER_AUTHORIZATION_FAILED,
// INVALID_TXN_STATE, INVALID_TRANSACTION_TIMEOUT and
// UNSUPPORTED_VERSION.
func (c Code) TxnAction() TxnAction { return txnTable[c] }

// groupTxnTable lists the codes a group coordinator's TxnOffsetCommit
// answer means otherwise than txnTable says: REQUEST_TIMED_OUT (the
// offsets' write timed out) sends the commit to the group's coordinator
// looked up again, as Kafka's producer does.
var groupTxnTable = map[Code]TxnAction{
	RequestTimedOut: TxnRediscover,
}

// GroupTxnAction is what a transactional producer does after c answering
// TxnOffsetCommit (the group coordinator's answer): TxnAction, but for
// the codes groupTxnTable lists.
func (c Code) GroupTxnAction() TxnAction {
	if a, ok := groupTxnTable[c]; ok {
		return a
	}
	return txnTable[c]
}
