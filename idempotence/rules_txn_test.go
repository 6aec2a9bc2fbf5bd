package idempotence

import (
	"errors"
	"strings"
	"testing"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

// One test per transaction rule (README, transactions). Each fails
// without its rule.

func TestTxnRuleInitAsksProducerID(t *testing.T) {
	r := newTrig(t, Config{})
	r.state(TxnUninitialized)
	r.step(NewBatch{TP: tp0, ID: 1, Records: 1})
	r.failedIs(1, []error{ErrTxnState, ErrNotWritten}, nil)
	r.take()
	r.init()
	if pid, epoch, ok := r.pr.Identity(); !ok || pid != 1000 || epoch != 3 {
		t.Fatalf("identity %d/%d/%v, want 1000/3", pid, epoch, ok)
	}
	r.step(SetIdentity{ProducerID: 5, Epoch: 5}) // the coordinator owns it
	if pid, _, _ := r.pr.Identity(); pid != 1000 {
		t.Fatalf("SetIdentity changed a transactional producer's identity to %d", pid)
	}
}

func TestTxnRuleBatchOnlyInsideTransaction(t *testing.T) {
	r := newTrig(t, Config{})
	r.init()
	r.step(NewBatch{TP: tp0, ID: 1, Records: 1})
	r.failedIs(1, []error{ErrTxnState, ErrNotWritten}, nil)
	r.step(CommitTxn{})
	if len(find[TxnRefused](r.ev)) != 1 {
		t.Fatalf("CommitTxn without a transaction not refused: %v", r.ev)
	}
}

func TestTxnRuleBatchWaitsForItsAdd(t *testing.T) {
	r := newTrig(t, Config{})
	r.init()
	r.step(BeginTxn{})
	r.step(NewBatch{TP: tp0, ID: 1, Records: 1})
	r.want(AddPartitionsRequest{Broker: 9, ProducerID: 1000, Epoch: 3, Partitions: []TopicPartition{tp0}})
	if _, s := r.take(); len(s) != 0 {
		t.Fatalf("batch sent before its partition was added: %v", s)
	}
	// A lost answer: the add goes again; still nothing sent.
	r.step(AddPartitionsAnswer{Code: kafkaerr.Transport})
	r.later()
	r.want(FindCoordinator{})
	r.step(CoordinatorFound{Broker: 9})
	r.want(AddPartitionsRequest{Broker: 9, ProducerID: 1000, Epoch: 3, Partitions: []TopicPartition{tp0}})
	if _, s := r.take(); len(s) != 0 {
		t.Fatalf("batch sent before its partition was added: %v", s)
	}
	r.step(AddPartitionsAnswer{Partitions: map[TopicPartition]kafkaerr.Code{tp0: kafkaerr.None}})
	if _, s := r.take(); len(s) != 1 || s[0].ID != 1 || s[0].Epoch != 3 || s[0].BaseSequence != 0 {
		t.Fatalf("after the add: sent %v, want batch 1 at 3/0", s)
	}
}

func TestTxnRuleCoordinatorRetries(t *testing.T) {
	r := newTrig(t, Config{})
	r.init()
	r.step(BeginTxn{})
	r.step(NewBatch{TP: tp0, ID: 1, Records: 1})
	r.take()
	// CONCURRENT_TRANSACTIONS: the same request after the backoff, same
	// coordinator.
	r.step(AddPartitionsAnswer{Partitions: map[TopicPartition]kafkaerr.Code{tp0: kafkaerr.ConcurrentTransactions}})
	r.wantNo(AddPartitionsRequest{})
	r.later()
	r.wantNo(FindCoordinator{})
	r.want(AddPartitionsRequest{Broker: 9, ProducerID: 1000, Epoch: 3, Partitions: []TopicPartition{tp0}})
	r.take()
	// NOT_COORDINATOR: look it up again, send to the new one.
	r.step(AddPartitionsAnswer{Code: kafkaerr.NotCoordinator})
	r.later()
	r.want(FindCoordinator{})
	r.step(CoordinatorFound{Broker: 4})
	r.want(AddPartitionsRequest{Broker: 4, ProducerID: 1000, Epoch: 3, Partitions: []TopicPartition{tp0}})
	r.state(TxnInTransaction)
}

func TestTxnRuleCommitAfterEveryBatchAcknowledged(t *testing.T) {
	r := newTrig(t, Config{})
	r.init()
	s := r.begin(tp0, 1, 2)
	r.step(CommitTxn{})
	r.answer(tp0, s[0].ID, kafkaerr.None, 40)
	_, s = r.take()
	r.wantNo(EndTxnRequest{})
	r.answer(tp0, s[0].ID, kafkaerr.None, 41)
	r.want(EndTxnRequest{Broker: 9, ProducerID: 1000, Epoch: 3, Commit: true})
	r.noOutcome(1) // delivered only once committed
	r.noOutcome(2)
	r.step(EndTxnAnswer{Code: kafkaerr.None})
	r.state(TxnReady)
	if d := find[Delivered](r.ev); len(d) != 2 || d[0].ID != 1 || d[0].BaseOffset != 40 || d[1].ID != 2 || d[1].BaseOffset != 41 {
		t.Fatalf("committed: delivered %v, want 1@40 2@41", d)
	}
	// The next transaction continues the sequences (no bump after a commit).
	r.take()
	s = r.begin(tp0, 3)
	if len(s) != 1 || s[0].Epoch != 3 || s[0].BaseSequence != 2 {
		t.Fatalf("next transaction sent %v, want epoch 3 seq 2", s)
	}
}

func TestTxnRuleEmptyCommitNeedsNoEndTxn(t *testing.T) {
	r := newTrig(t, Config{})
	r.init()
	r.step(BeginTxn{})
	r.step(CommitTxn{})
	r.wantNo(EndTxnRequest{})
	r.state(TxnReady)
}

func TestTxnRuleLostEndTxnRetriedWithSameEpoch(t *testing.T) {
	r := newTrig(t, Config{})
	r.init()
	s := r.begin(tp0, 1)
	r.step(CommitTxn{})
	r.answer(tp0, s[0].ID, kafkaerr.None, 40)
	r.step(EndTxnAnswer{Code: kafkaerr.Transport})
	r.take()
	r.later()
	r.step(CoordinatorFound{Broker: 9})
	r.want(EndTxnRequest{Broker: 9, ProducerID: 1000, Epoch: 3, Commit: true})
	r.step(EndTxnAnswer{Code: kafkaerr.None})
	r.state(TxnReady)
	if d, ok := r.outcome(1).(Delivered); !ok || d.BaseOffset != 40 {
		t.Fatalf("batch 1: %v, want delivered at 40", r.outcome(1))
	}
}

func TestTxnRuleFailedBatchMakesItAbortable(t *testing.T) {
	r := newTrig(t, Config{})
	r.init()
	s := r.begin(tp0, 1, 2)
	r.answer(tp0, s[0].ID, kafkaerr.TopicAuthorizationFailed, -1)
	r.state(TxnAbortableError)
	r.noOutcome(1) // told when the transaction ends
	r.step(CommitTxn{})
	r.state(TxnAbortableError)
	r.step(NewBatch{TP: tp0, ID: 3, Records: 1})
	r.failedIs(3, []error{ErrTxnState, ErrNotWritten}, nil)
	r.take()
	r.step(AbortTxn{})
	r.want(EndTxnRequest{Broker: 9, ProducerID: 1000, Epoch: 3, Commit: false})
	r.step(EndTxnAnswer{Code: kafkaerr.None})
	r.failedIs(1, []error{ErrAborted, ErrNotWritten}, []error{ErrOutcomeUnknown})
	r.failedIs(2, []error{ErrAborted, ErrNotWritten}, []error{ErrOutcomeUnknown})
	// KIP-360: a fresh epoch with the current identity, then sequences from 0.
	r.state(TxnBumping)
	r.want(InitProducerIDRequest{Broker: 9, ProducerID: 1000, Epoch: 3})
	r.wantNo(EpochBumped{}) // never bumped locally
	r.step(InitProducerIDAnswer{Code: kafkaerr.None, ProducerID: 1000, Epoch: 4})
	r.state(TxnReady)
	r.take()
	s = r.begin(tp0, 4)
	if len(s) != 1 || s[0].Epoch != 4 || s[0].BaseSequence != 0 {
		t.Fatalf("after the abort sent %v, want epoch 4 seq 0", s)
	}
}

func TestTxnRuleAbortWaitsForEveryAnswer(t *testing.T) {
	r := newTrig(t, Config{})
	r.init()
	s := r.begin(tp0, 1, 2) // 1 in flight (first batch of the id goes alone), 2 queued
	r.answer(tp0, s[0].ID, kafkaerr.None, 40)
	_, s = r.take() // 2 in flight
	r.step(AbortTxn{})
	r.wantNo(EndTxnRequest{})
	// An answer lost: resent unchanged until it is known, then the abort.
	r.answer(tp0, 2, kafkaerr.Transport, -1)
	r.wantNo(EndTxnRequest{})
	r.later()
	r.step(LeaderChanged{TP: tp0, Broker: 1, LeaderEpoch: 7}) // transport asks for metadata
	_, s = r.take()
	if len(s) != 1 || s[0].ID != 2 || s[0].BaseSequence != 1 {
		t.Fatalf("sent %v, want batch 2 resent unchanged", s)
	}
	r.answer(tp0, 2, kafkaerr.None, 41)
	r.want(EndTxnRequest{Broker: 9, ProducerID: 1000, Epoch: 3, Commit: false})
	r.step(EndTxnAnswer{Code: kafkaerr.None})
	r.failedIs(1, []error{ErrAborted}, []error{ErrNotWritten, ErrOutcomeUnknown})
	r.failedIs(2, []error{ErrAborted}, []error{ErrNotWritten, ErrOutcomeUnknown})
}

func TestTxnRuleStaleEpochAbortsWithEndTxn(t *testing.T) {
	// A leader answers a stale epoch (the coordinator's timeout or a newer
	// instance moved it): abortable; the abort's EndTxn says whether the
	// coordinator still takes the epoch — no InitProducerId naming it (a
	// transactions v2 coordinator would take that as a retry even after a
	// newer instance's fence: ROLLSAFE_WALK_FIRST=192 of TestTxnRandomWalk).
	r := newTrig(t, Config{})
	r.init()
	s := r.begin(tp0, 1)
	r.answer(tp0, s[0].ID, kafkaerr.InvalidProducerEpoch, -1)
	r.state(TxnAbortableError)
	r.take()
	r.step(AbortTxn{})
	r.wantNo(InitProducerIDRequest{})
	r.want(EndTxnRequest{Broker: 9, ProducerID: 1000, Epoch: 3, Commit: false})
	r.step(EndTxnAnswer{Code: kafkaerr.ProducerFenced})
	r.state(TxnFatal)
	r.failedIs(1, []error{ErrAborted, ErrNotWritten}, nil)
	r.take()
	r.later()
	r.wantNo(InitProducerIDRequest{})
}

func TestTxnRuleFencedIsFatal(t *testing.T) {
	r := newTrig(t, Config{})
	r.init()
	s := r.begin(tp0, 1)
	r.step(CommitTxn{})
	r.answer(tp0, s[0].ID, kafkaerr.None, 40)
	r.step(EndTxnAnswer{Code: kafkaerr.ProducerFenced})
	r.state(TxnFatal)
	sc := find[TxnStateChanged](r.ev)
	if last := sc[len(sc)-1]; !errors.Is(last.Err, ErrFenced) || !errors.Is(last.Err, ErrTxnFatal) {
		t.Fatalf("fatal with %v, want ErrFenced and ErrTxnFatal", last.Err)
	}
	// The commit was refused, never applied: aborted (written, hidden).
	r.failedIs(1, []error{ErrAborted}, []error{ErrNotWritten, ErrOutcomeUnknown})
	r.take()
	r.later()
	r.wantNo(InitProducerIDRequest{}) // never asks with the fenced epoch
	r.step(NewBatch{TP: tp0, ID: 2, Records: 1})
	r.failedIs(2, []error{ErrTxnFatal, ErrNotWritten}, nil)
}

func TestTxnRuleLostCommitThenFencedIsUnknown(t *testing.T) {
	r := newTrig(t, Config{})
	r.init()
	s := r.begin(tp0, 1)
	r.step(CommitTxn{})
	r.answer(tp0, s[0].ID, kafkaerr.None, 40)
	r.step(EndTxnAnswer{Code: kafkaerr.Transport}) // may have been applied
	r.later()
	r.step(CoordinatorFound{Broker: 9})
	r.step(EndTxnAnswer{Code: kafkaerr.ProducerFenced})
	r.step(AbortTxn{})
	r.step(InitProducerIDAnswer{Code: kafkaerr.ProducerFenced})
	r.state(TxnFatal)
	r.failedIs(1, []error{ErrOutcomeUnknown, ErrFenced}, []error{ErrAborted, ErrNotWritten})
}

func TestTxnRuleNoBumpFromBrokerKeepsEpochOrIsFatal(t *testing.T) {
	// A clean abort: the epoch and the sequences go on.
	r := newTrig(t, Config{TxnNoEpochBump: true})
	r.init()
	s := r.begin(tp0, 1)
	r.answer(tp0, s[0].ID, kafkaerr.None, 40)
	r.step(AbortTxn{})
	r.step(EndTxnAnswer{Code: kafkaerr.None})
	r.wantNo(InitProducerIDRequest{})
	r.state(TxnReady)
	r.take()
	s = r.begin(tp0, 2)
	if len(s) != 1 || s[0].Epoch != 3 || s[0].BaseSequence != 1 {
		t.Fatalf("sent %v, want epoch 3 seq 1", s)
	}
	// A hole (batch 3 refused for good): no fresh epoch to be had.
	r.answer(tp0, 2, kafkaerr.None, 41)
	r.step(NewBatch{TP: tp0, ID: 3, Records: 1})
	r.take()
	r.answer(tp0, 3, kafkaerr.TopicAuthorizationFailed, -1)
	r.step(AbortTxn{})
	r.step(EndTxnAnswer{Code: kafkaerr.None})
	r.state(TxnFatal)
}

func TestTxnRuleCloseAbortsTheOpenTransaction(t *testing.T) {
	r := newTrig(t, Config{})
	r.init()
	s := r.begin(tp0, 1, 2)
	r.answer(tp0, s[0].ID, kafkaerr.None, 40)
	r.step(Close{})
	r.failedIs(1, []error{ErrAborted}, []error{ErrNotWritten, ErrOutcomeUnknown})
	r.failedIs(2, []error{ErrAborted}, []error{ErrNotWritten, ErrOutcomeUnknown})
}

func TestTxnRuleDesyncMakesItAbortable(t *testing.T) {
	// OUT_OF_ORDER at the head, and the read shows the batch absent: the
	// partition needs a fresh epoch, which only the end of the
	// transaction gives.
	r := newTrig(t, Config{})
	r.init()
	s := r.begin(tp0, 1)
	r.answer(tp0, s[0].ID, kafkaerr.OutOfOrderSequenceNumber, -1)
	rt := find[ReadTail](r.ev)
	if len(rt) != 1 {
		t.Fatalf("no ReadTail: %v", r.ev)
	}
	r.step(TailRead{TP: tp0, Tail: Tail{LogStartOffset: 0, HighWatermark: 0, LogEndOffset: 0, Described: true}})
	r.state(TxnAbortableError)
	r.wantNo(EpochBumped{})
}

func TestTxnRuleAbortResolvesALostAdd(t *testing.T) {
	r := newTrig(t, Config{})
	r.init()
	r.step(BeginTxn{})
	r.step(NewBatch{TP: tp0, ID: 1, Records: 1})
	r.step(AddPartitionsAnswer{Code: kafkaerr.Transport}) // the coordinator may hold it
	r.step(AbortTxn{})
	r.take()
	r.later()
	r.step(CoordinatorFound{Broker: 9})
	r.want(AddPartitionsRequest{Broker: 9, ProducerID: 1000, Epoch: 3, Partitions: []TopicPartition{tp0}})
	r.wantNo(EndTxnRequest{})
	r.step(AddPartitionsAnswer{Partitions: map[TopicPartition]kafkaerr.Code{tp0: kafkaerr.None}})
	r.want(EndTxnRequest{Broker: 9, ProducerID: 1000, Epoch: 3, Commit: false})
	if _, s := r.take(); len(s) != 0 {
		t.Fatalf("sent %v while aborting", s)
	}
	r.step(EndTxnAnswer{Code: kafkaerr.None})
	r.failedIs(1, []error{ErrAborted, ErrNotWritten}, nil)
}

func TestTxnRuleAbortTakesARefusedAddAsNotAdded(t *testing.T) {
	// The lost add's resend is refused for its partition (not authorized):
	// the coordinator added nothing, so the abort asks no more and ends
	// without EndTxn (ROLLSAFE_WALK_FIRST=144 of TestTxnRandomWalk resent it
	// forever without this rule).
	r := newTrig(t, Config{})
	r.init()
	r.step(BeginTxn{})
	r.step(NewBatch{TP: tp0, ID: 1, Records: 1})
	r.step(AddPartitionsAnswer{Code: kafkaerr.Transport}) // the coordinator may hold it
	r.step(AbortTxn{})
	r.take()
	r.later()
	r.step(CoordinatorFound{Broker: 9})
	r.want(AddPartitionsRequest{Broker: 9, ProducerID: 1000, Epoch: 3, Partitions: []TopicPartition{tp0}})
	r.take()
	r.step(AddPartitionsAnswer{Partitions: map[TopicPartition]kafkaerr.Code{tp0: kafkaerr.TopicAuthorizationFailed}})
	r.later()
	r.wantNo(AddPartitionsRequest{})
	r.wantNo(EndTxnRequest{})
	r.failedIs(1, []error{ErrAborted, ErrNotWritten}, nil)
}

func TestTxnRuleFindCoordinatorRefusedIsFatal(t *testing.T) {
	// FindCoordinator answered TRANSACTIONAL_ID_AUTHORIZATION_FAILED: no
	// broker will coordinate the id for us; asking again would never end
	// (ROLLSAFE_WALK_FIRST=84 of TestTxnRandomWalk did without this rule).
	r := newTrig(t, Config{})
	r.step(InitTransactions{})
	r.want(FindCoordinator{})
	r.step(CoordinatorFound{Broker: -1, Code: kafkaerr.CoordinatorNotAvailable})
	r.later()
	r.want(FindCoordinator{}) // retried
	r.step(CoordinatorFound{Broker: -1, Code: kafkaerr.TransactionalIDAuthorizationFailed})
	r.state(TxnFatal)
	r.take()
	r.later()
	r.wantNo(FindCoordinator{})
}

func TestTxnRuleStaleEpochWithoutBumpIsFatal(t *testing.T) {
	// A coordinator before KIP-360 cannot be asked with our identity (its
	// InitProducerId would take the id over from a newer instance).
	r := newTrig(t, Config{TxnNoEpochBump: true})
	r.init()
	s := r.begin(tp0, 1)
	r.answer(tp0, s[0].ID, kafkaerr.InvalidProducerEpoch, -1)
	r.step(AbortTxn{})
	r.wantNo(InitProducerIDRequest{})
	r.wantNo(EndTxnRequest{})
	r.state(TxnFatal)
	r.failedIs(1, []error{ErrAborted, ErrNotWritten}, nil)
}

func TestTxnRuleAbortWithNothingAddedAsksTheBumpAtOnce(t *testing.T) {
	// Nothing reached the coordinator: the abort ends without EndTxn, and
	// the bump is asked in the same step (nothing else would wake it).
	r := newTrig(t, Config{})
	r.init()
	r.step(BeginTxn{})
	r.step(NewBatch{TP: tp0, ID: 1, Records: 1})
	r.step(AddPartitionsAnswer{Code: kafkaerr.CoordinatorLoadInProgress})
	r.step(AbortTxn{})
	r.take()
	r.later()
	r.wantNo(EndTxnRequest{})
	r.state(TxnBumping)
	r.want(InitProducerIDRequest{Broker: 9, ProducerID: 1000, Epoch: 3})
	r.failedIs(1, []error{ErrAborted, ErrNotWritten}, nil)
}

func TestTxnRuleFatalCodes(t *testing.T) {
	isFatal := func(r *trig, code kafkaerr.Code) {
		t.Helper()
		r.state(TxnFatal)
		sc := find[TxnStateChanged](r.ev)
		if last := sc[len(sc)-1]; !errors.Is(last.Err, ErrTxnFatal) || errors.Is(last.Err, ErrFenced) || !strings.Contains(last.Err.Error(), code.String()) {
			t.Fatalf("fatal with %v, want ErrTxnFatal naming %v, not fenced", last.Err, code)
		}
	}
	// InitProducerId refused.
	r := newTrig(t, Config{})
	r.step(InitTransactions{})
	r.step(CoordinatorFound{Broker: 9})
	r.step(InitProducerIDAnswer{Code: kafkaerr.TransactionalIDAuthorizationFailed})
	isFatal(r, kafkaerr.TransactionalIDAuthorizationFailed)

	// AddPartitionsToTxn refused: the batches held fail as aborted.
	r = newTrig(t, Config{})
	r.init()
	r.step(BeginTxn{})
	r.step(NewBatch{TP: tp0, ID: 1, Records: 1})
	r.step(AddPartitionsAnswer{Partitions: map[TopicPartition]kafkaerr.Code{tp0: kafkaerr.TransactionalIDAuthorizationFailed}})
	isFatal(r, kafkaerr.TransactionalIDAuthorizationFailed)
	r.failedIs(1, []error{ErrAborted, ErrNotWritten}, nil)

	// EndTxn(commit) refused: never applied, aborted.
	r = newTrig(t, Config{})
	r.init()
	s := r.begin(tp0, 1)
	r.step(CommitTxn{})
	r.answer(tp0, s[0].ID, kafkaerr.None, 40)
	r.step(EndTxnAnswer{Code: kafkaerr.InvalidTxnState})
	isFatal(r, kafkaerr.InvalidTxnState)
	r.failedIs(1, []error{ErrAborted}, []error{ErrNotWritten, ErrOutcomeUnknown})
	if _, s := r.take(); len(s) != 0 {
		t.Fatalf("sent %v after a fatal error", s)
	}
}

// A batch refused as too large inside a transaction waits for its split
// like any other (the caller answers every NeedSplit): its parts, not the
// batch the caller no longer holds, are the ones the abort reports.
func TestTxnRuleTooLargeBatchIsSplitThenAborted(t *testing.T) {
	r := newTrig(t, Config{})
	r.init()
	s := r.begin(tp0, 1)
	r.answer(tp0, s[0].ID, kafkaerr.MessageTooLarge, -1)
	r.state(TxnAbortableError)
	r.want(NeedSplit{TP: tp0, ID: 1})
	r.noOutcome(1)
	r.take()
	r.step(SplitBatch{TP: tp0, ID: 1, Parts: []Part{{ID: 7, Records: 1}, {ID: 8, Records: 1}}})
	r.step(AbortTxn{})
	r.want(EndTxnRequest{Broker: 9, ProducerID: 1000, Epoch: 3, Commit: false})
	r.step(EndTxnAnswer{Code: kafkaerr.None})
	r.failedIs(7, []error{ErrAborted, ErrNotWritten}, []error{ErrOutcomeUnknown})
	r.failedIs(8, []error{ErrAborted, ErrNotWritten}, []error{ErrOutcomeUnknown})
	for _, e := range r.ev {
		if f, ok := e.(Failed); ok && f.ID == 1 {
			t.Fatalf("the split batch 1 reported %v: the caller holds its parts, not it", f)
		}
	}
}

// A fatal error while a batch awaits its split: the caller's SplitBatch
// still comes (it answers every NeedSplit), and the parts, where the
// caller holds the records, are the ones failed.
func TestTxnRuleFatalWhileAwaitingSplitFailsTheParts(t *testing.T) {
	r := newTrig(t, Config{})
	r.init()
	s := r.begin(tp0, 1)
	r.step(NewBatch{TP: tp1, ID: 2, Records: 1})
	r.want(AddPartitionsRequest{Broker: 9, ProducerID: 1000, Epoch: 3, Partitions: []TopicPartition{tp1}})
	r.answer(tp0, s[0].ID, kafkaerr.MessageTooLarge, -1)
	r.want(NeedSplit{TP: tp0, ID: 1})
	r.take()
	r.step(AddPartitionsAnswer{Partitions: map[TopicPartition]kafkaerr.Code{tp1: kafkaerr.TransactionalIDAuthorizationFailed}})
	r.state(TxnFatal)
	r.step(SplitBatch{TP: tp0, ID: 1, Parts: []Part{{ID: 7, Records: 1}, {ID: 8, Records: 1}}})
	r.failedIs(7, []error{ErrAborted, ErrNotWritten}, nil)
	r.failedIs(8, []error{ErrAborted, ErrNotWritten}, nil)
	r.failedIs(2, []error{ErrNotWritten}, nil)
	for _, e := range r.ev {
		if f, ok := e.(Failed); ok && f.ID == 1 {
			t.Fatalf("the split batch 1 reported %v: the caller holds its parts, not it", f)
		}
	}
}

// TestTxnErrorsCarryTheCode: an abortable or fatal error a Kafka code
// caused carries that code (*TxnCodeError, errors.As) beside the kind
// (ErrTxnAbortable, ErrTxnFatal, ErrFenced), its text unchanged; errors
// without a code carry none.
func TestTxnErrorsCarryTheCode(t *testing.T) {
	last := func(r *trig) error {
		t.Helper()
		sc := find[TxnStateChanged](r.ev)
		return sc[len(sc)-1].Err
	}
	hasCode := func(err error, kind error, code kafkaerr.Code) {
		t.Helper()
		var ce *TxnCodeError
		if !errors.As(err, &ce) || ce.Code != code || !errors.Is(err, kind) || !strings.Contains(err.Error(), code.String()) {
			t.Fatalf("%v: want %v with the code %v", err, kind, code)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Fatalf("%q: not one line", err)
		}
	}

	// A batch the leader refused: the batch's code.
	r := newTrig(t, Config{})
	r.init()
	s := r.begin(tp0, 1)
	r.answer(tp0, s[0].ID, kafkaerr.TopicAuthorizationFailed, -1)
	r.state(TxnAbortableError)
	hasCode(last(r), ErrTxnAbortable, kafkaerr.TopicAuthorizationFailed)

	// A stale epoch a leader answered, then the abort's EndTxn fenced.
	r = newTrig(t, Config{})
	r.init()
	s = r.begin(tp0, 1)
	r.answer(tp0, s[0].ID, kafkaerr.InvalidProducerEpoch, -1)
	r.state(TxnAbortableError)
	hasCode(last(r), ErrTxnAbortable, kafkaerr.InvalidProducerEpoch)
	r.take()
	r.step(AbortTxn{})
	r.step(EndTxnAnswer{Code: kafkaerr.ProducerFenced})
	r.state(TxnFatal)
	hasCode(last(r), ErrFenced, kafkaerr.ProducerFenced)
	hasCode(last(r), ErrTxnFatal, kafkaerr.ProducerFenced)

	// The coordinator refused InitProducerId.
	r = newTrig(t, Config{})
	r.step(InitTransactions{})
	r.step(CoordinatorFound{Broker: 9})
	r.step(InitProducerIDAnswer{Code: kafkaerr.TransactionalIDAuthorizationFailed})
	r.state(TxnFatal)
	hasCode(last(r), ErrTxnFatal, kafkaerr.TransactionalIDAuthorizationFailed)

	// EndTxn(commit) refused.
	r = newTrig(t, Config{})
	r.init()
	s = r.begin(tp0, 1)
	r.step(CommitTxn{})
	r.answer(tp0, s[0].ID, kafkaerr.None, 40)
	r.step(EndTxnAnswer{Code: kafkaerr.InvalidTxnState})
	r.state(TxnFatal)
	hasCode(last(r), ErrTxnFatal, kafkaerr.InvalidTxnState)

	// No code: the broker cannot bump the epoch.
	r = newTrig(t, Config{TxnNoEpochBump: true})
	r.init()
	s = r.begin(tp0, 1)
	r.answer(tp0, s[0].ID, kafkaerr.InvalidProducerEpoch, -1)
	r.step(AbortTxn{})
	r.state(TxnFatal)
	var ce *TxnCodeError
	if err := last(r); errors.As(err, &ce) || !errors.Is(err, ErrTxnFatal) {
		t.Fatalf("%v: want ErrTxnFatal without a code", err)
	}
}
