package kafkaerr

import "testing"

// The transactional actions the idempotence README's transaction rules
// name, and the default for a code the table lacks.
func TestTxnAction(t *testing.T) {
	for c, want := range map[Code]TxnAction{
		None:                               TxnOK,
		Transport:                          TxnRediscover,
		NotCoordinator:                     TxnRediscover,
		CoordinatorNotAvailable:            TxnRediscover,
		CoordinatorLoadInProgress:          TxnRetry,
		ConcurrentTransactions:             TxnRetry,
		OperationNotAttempted:              TxnRetry,
		UnknownTopicOrPartition:            TxnRetry,
		TransactionAbortable:               TxnAbortable,
		TopicAuthorizationFailed:           TxnAbortable,
		GroupAuthorizationFailed:           TxnAbortable,
		IllegalGeneration:                  TxnAbortable,
		UnknownMemberID:                    TxnAbortable,
		FencedInstanceID:                   TxnAbortable,
		RequestTimedOut:                    TxnRetry,
		InvalidProducerEpoch:               TxnStaleEpoch,
		ProducerFenced:                     TxnStaleEpoch,
		InvalidProducerIDMapping:           TxnStaleEpoch,
		TransactionalIDAuthorizationFailed: TxnFatal,
		ClusterAuthorizationFailed:         TxnFatal,
		InvalidTxnState:                    TxnFatal,
		InvalidTransactionTimeout:          TxnFatal,
		UnsupportedVersion:                 TxnFatal,
		Code(30000):                        TxnFatal,
	} {
		if got := c.TxnAction(); got != want {
			t.Errorf("%v: %v, want %v", c, got, want)
		}
	}
	// TxnOffsetCommit: REQUEST_TIMED_OUT looks the group's coordinator up
	// again; every other code means what TxnAction says.
	for c, want := range map[Code]TxnAction{
		RequestTimedOut:             TxnRediscover,
		NotCoordinator:              TxnRediscover,
		CoordinatorLoadInProgress:   TxnRetry,
		UnknownTopicOrPartition:     TxnRetry,
		IllegalGeneration:           TxnAbortable,
		TransactionAbortable:        TxnAbortable,
		ProducerFenced:              TxnStaleEpoch,
		UnsupportedForMessageFormat: TxnFatal,
	} {
		if got := c.GroupTxnAction(); got != want {
			t.Errorf("TxnOffsetCommit %v: %v, want %v", c, got, want)
		}
	}
	if TxnStaleEpoch.String() != "stale-epoch" || TxnAction(99).String() != "TxnAction(99)" {
		t.Errorf("names: %v %v", TxnStaleEpoch, TxnAction(99))
	}
}
