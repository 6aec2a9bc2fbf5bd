package idempotence

import (
	"errors"
	"strings"
	"testing"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

// One test per SendOffsets rule (README, transactions). Each fails
// without its rule.

const grp = "g1"

// sendOffsets opens a transaction and brings SendOffsets to the
// TxnOffsetCommit at the group's coordinator 5.
func (r *trig) sendOffsets() {
	r.t.Helper()
	r.step(BeginTxn{})
	r.step(SendOffsets{Group: grp})
	r.state(TxnSendingOffsets)
	r.want(AddOffsetsRequest{Broker: 9, ProducerID: 1000, Epoch: 3, Group: grp})
	r.step(AddOffsetsAnswer{Code: kafkaerr.None})
	r.want(FindCoordinator{Group: grp})
	r.step(CoordinatorFound{Broker: 5, Group: grp})
	r.want(OffsetsCommitRequest{Broker: 5, ProducerID: 1000, Epoch: 3, Group: grp})
	r.take()
}

func offsetCodes(c kafkaerr.Code) OffsetsCommitAnswer {
	return OffsetsCommitAnswer{Partitions: map[TopicPartition]kafkaerr.Code{tp0: kafkaerr.None, tp1: c}}
}

func TestTxnRuleSendOffsetsAddThenCommitAtGroupCoordinator(t *testing.T) {
	r := newTrig(t, Config{})
	r.init()
	r.sendOffsets()
	r.step(offsetCodes(kafkaerr.None))
	r.state(TxnInTransaction)
	// Offsets alone open the transaction at the coordinator: the commit
	// goes as EndTxn.
	r.step(CommitTxn{})
	r.want(EndTxnRequest{Broker: 9, ProducerID: 1000, Epoch: 3, Commit: true})
	r.step(EndTxnAnswer{Code: kafkaerr.None})
	r.state(TxnReady)
}

func TestTxnRuleSendOffsetsOnlyInTransaction(t *testing.T) {
	r := newTrig(t, Config{})
	r.init()
	r.step(SendOffsets{Group: grp})
	if len(find[TxnRefused](r.ev)) != 1 || r.pr.TxnState() != TxnReady {
		t.Fatalf("SendOffsets outside a transaction not refused: %v", r.ev)
	}
	r.take()
	r.step(BeginTxn{})
	r.step(SendOffsets{Group: ""})
	if len(find[TxnRefused](r.ev)) != 1 {
		t.Fatalf("SendOffsets without a group not refused: %v", r.ev)
	}
	r.take()
	r.step(SendOffsets{Group: grp})
	r.step(CommitTxn{}) // not while the offsets are under way
	if len(find[TxnRefused](r.ev)) != 1 {
		t.Fatalf("CommitTxn during SendOffsets not refused: %v", r.ev)
	}
	r.state(TxnSendingOffsets)
}

func TestTxnRuleSendOffsetsRetries(t *testing.T) {
	r := newTrig(t, Config{})
	r.init()
	r.step(BeginTxn{})
	r.step(SendOffsets{Group: grp})
	r.take()
	// AddOffsetsToTxn: load in progress, the same coordinator after the
	// backoff; NOT_COORDINATOR, looked up again.
	r.step(AddOffsetsAnswer{Code: kafkaerr.CoordinatorLoadInProgress})
	r.wantNo(AddOffsetsRequest{})
	r.later()
	r.wantNo(FindCoordinator{})
	r.want(AddOffsetsRequest{Broker: 9, ProducerID: 1000, Epoch: 3, Group: grp})
	r.take()
	r.step(AddOffsetsAnswer{Code: kafkaerr.NotCoordinator})
	r.later()
	r.want(FindCoordinator{})
	r.step(CoordinatorFound{Broker: 4})
	r.want(AddOffsetsRequest{Broker: 4, ProducerID: 1000, Epoch: 3, Group: grp})
	r.step(AddOffsetsAnswer{Code: kafkaerr.None})
	r.step(CoordinatorFound{Broker: 5, Group: grp})
	r.take()
	// TxnOffsetCommit: load in progress or an unknown partition, again at
	// the same group coordinator; NOT_COORDINATOR and REQUEST_TIMED_OUT,
	// at the one looked up again.
	for _, c := range []kafkaerr.Code{kafkaerr.CoordinatorLoadInProgress, kafkaerr.UnknownTopicOrPartition, kafkaerr.ConcurrentTransactions} {
		r.step(offsetCodes(c))
		r.wantNo(OffsetsCommitRequest{})
		r.later()
		r.wantNo(FindCoordinator{})
		r.want(OffsetsCommitRequest{Broker: 5, ProducerID: 1000, Epoch: 3, Group: grp})
		r.take()
	}
	for i, c := range []kafkaerr.Code{kafkaerr.NotCoordinator, kafkaerr.RequestTimedOut, kafkaerr.CoordinatorNotAvailable} {
		r.step(offsetCodes(c))
		r.later()
		r.want(FindCoordinator{Group: grp})
		r.step(CoordinatorFound{Broker: 6 + int32(i), Group: grp})
		r.want(OffsetsCommitRequest{Broker: 6 + int32(i), ProducerID: 1000, Epoch: 3, Group: grp})
		r.take()
	}
	r.step(OffsetsCommitAnswer{Code: kafkaerr.Transport})
	r.later()
	r.want(FindCoordinator{Group: grp})
	r.step(CoordinatorFound{Broker: -1, Group: grp, Code: kafkaerr.CoordinatorNotAvailable})
	r.later()
	r.step(CoordinatorFound{Broker: 5, Group: grp})
	r.want(OffsetsCommitRequest{Broker: 5, ProducerID: 1000, Epoch: 3, Group: grp})
	r.step(offsetCodes(kafkaerr.None))
	r.state(TxnInTransaction)
}

func TestTxnRuleSendOffsetsGroupMovedOnIsAbortable(t *testing.T) {
	for _, c := range []kafkaerr.Code{kafkaerr.IllegalGeneration, kafkaerr.UnknownMemberID, kafkaerr.FencedInstanceID, kafkaerr.GroupAuthorizationFailed, kafkaerr.TransactionAbortable} {
		r := newTrig(t, Config{})
		r.init()
		r.sendOffsets()
		r.step(offsetCodes(c))
		r.state(TxnAbortableError)
		e := find[TxnStateChanged](r.ev)
		if len(e) != 1 || !errors.Is(e[0].Err, ErrTxnAbortable) || !strings.Contains(e[0].Err.Error(), c.String()) {
			t.Fatalf("%v: %v, want ErrTxnAbortable with the code", c, e)
		}
		r.take()
		// The group's partition was added: the abort ends the transaction
		// at the coordinator.
		r.step(AbortTxn{})
		r.want(EndTxnRequest{Broker: 9, ProducerID: 1000, Epoch: 3, Commit: false})
	}
	// No access to the group, answered by its lookup.
	r := newTrig(t, Config{})
	r.init()
	r.step(BeginTxn{})
	r.step(SendOffsets{Group: grp})
	r.step(AddOffsetsAnswer{Code: kafkaerr.None})
	r.step(CoordinatorFound{Broker: -1, Group: grp, Code: kafkaerr.GroupAuthorizationFailed})
	r.state(TxnAbortableError)
}

func TestTxnRuleSendOffsetsStaleEpochAndFatal(t *testing.T) {
	r := newTrig(t, Config{})
	r.init()
	r.sendOffsets()
	// The coordinator refuses the epoch: fenced (coordinatorFenced).
	r.step(offsetCodes(kafkaerr.InvalidProducerEpoch))
	r.state(TxnFatal)
	r.take()
	r.later()
	r.wantNo(InitProducerIDRequest{})

	r = newTrig(t, Config{})
	r.init()
	r.step(BeginTxn{})
	r.step(SendOffsets{Group: grp})
	r.step(AddOffsetsAnswer{Code: kafkaerr.TransactionalIDAuthorizationFailed})
	r.state(TxnFatal)
}

func TestTxnRuleBatchesGoOnDuringSendOffsets(t *testing.T) {
	r := newTrig(t, Config{})
	r.init()
	r.step(BeginTxn{})
	r.step(SendOffsets{Group: grp})
	r.take()
	r.step(NewBatch{TP: tp0, ID: 1, Records: 1})
	r.step(AddOffsetsAnswer{Code: kafkaerr.None})
	// The partition's add goes before the offsets' commit.
	r.want(AddPartitionsRequest{Broker: 9, ProducerID: 1000, Epoch: 3, Partitions: []TopicPartition{tp0}})
	r.wantNo(FindCoordinator{})
	r.step(AddPartitionsAnswer{Partitions: map[TopicPartition]kafkaerr.Code{tp0: kafkaerr.None}})
	if _, s := r.take(); len(s) != 1 || s[0].ID != 1 {
		t.Fatalf("sent %v, want batch 1", s)
	}
	r.state(TxnSendingOffsets)
}

func TestTxnRuleLostAddOffsetsAskedAgainOnAbort(t *testing.T) {
	r := newTrig(t, Config{})
	r.init()
	r.step(BeginTxn{})
	r.step(SendOffsets{Group: grp})
	r.step(AddOffsetsAnswer{Code: kafkaerr.Transport}) // may have been applied
	r.step(NewBatch{TP: tp0, ID: 1, Records: 1})
	r.later()
	r.step(CoordinatorFound{Broker: 9})
	r.want(AddPartitionsRequest{Broker: 9, ProducerID: 1000, Epoch: 3, Partitions: []TopicPartition{tp0}})
	r.step(AddPartitionsAnswer{Partitions: map[TopicPartition]kafkaerr.Code{tp0: kafkaerr.TopicAuthorizationFailed}})
	r.state(TxnAbortableError)
	r.take()
	r.step(AbortTxn{})
	// Nothing acknowledged, but the lost AddOffsetsToTxn may hold the
	// transaction open: asked again, and its answer decides.
	r.want(AddOffsetsRequest{Broker: 9, ProducerID: 1000, Epoch: 3, Group: grp})
	r.wantNo(EndTxnRequest{})
	r.step(AddOffsetsAnswer{Code: kafkaerr.None})
	r.want(EndTxnRequest{Broker: 9, ProducerID: 1000, Epoch: 3, Commit: false})
}
