package idempotence

import "fmt"

// A transactional producer (Config.Transactional) is in exactly one
// transaction state at a time. Every change goes through txn.on, which
// looks the next state up in txnTransitions below; README's transaction
// diagram is checked against that table (TestTxnStateDiagram).
//
// Beside the state, orthogonal to it (any of them can go with any
// state but Fatal), the transaction keeps:
//
//   - the coordinator (known or being looked up), the one request in
//     flight to it and the pause before the next: a retry or a
//     re-discovery changes no state;
//   - per partition, where its AddPartitionsToTxn stands (to send, sent,
//     answer lost, acknowledged): a partition's batches are released only
//     once it is acknowledged;
//   - stale: a stale epoch was answered (the coordinator's timeout or a
//     newer instance): the abort asks InitProducerId instead of EndTxn;
//   - endLost: an EndTxn(commit) went unanswered, so it may have been
//     applied;
//   - the outcomes of the transaction's batches, reported when it ends.

// TxnState is where a transactional producer stands.
type TxnState uint8

const (
	// TxnUninitialized: no producer id yet; InitTransactions starts.
	TxnUninitialized TxnState = iota
	// TxnInitializing: InitProducerId with the transactional id asked.
	TxnInitializing
	// TxnReady: no transaction open; BeginTxn opens one.
	TxnReady
	// TxnInTransaction: batches are taken; each partition is added to the
	// transaction (AddPartitionsToTxn) before its first batch goes out.
	TxnInTransaction
	// TxnCommitting: CommitTxn called; EndTxn(commit) goes once every
	// batch of the transaction is acknowledged.
	TxnCommitting
	// TxnAbortableError: the transaction cannot commit; the application
	// must call AbortTxn. Batches never sent are failed as aborted.
	TxnAbortableError
	// TxnAborting: AbortTxn called; EndTxn(abort) goes once no batch of
	// the transaction is in flight or of unknown outcome.
	TxnAborting
	// TxnBumping: the transaction is over (aborted); InitProducerId with
	// the current producer id and epoch (KIP-360) asked for a fresh epoch.
	TxnBumping
	// TxnFatal: fenced by a newer instance with the same transactional id,
	// or refused: nothing more is sent.
	TxnFatal
	// TxnSendingOffsets: SendOffsets called in a transaction: the group's
	// offsets partition is added to it (AddOffsetsToTxn), then the offsets
	// go to the group's coordinator (TxnOffsetCommit), pending until the
	// transaction ends. Batches are still taken.
	TxnSendingOffsets
	numTxnStates
)

var txnStateNames = [numTxnStates]string{"Uninitialized", "Initializing", "Ready", "InTransaction", "Committing", "AbortableError", "Aborting", "Bumping", "Fatal", "SendingOffsets"}

func (s TxnState) String() string {
	if s < numTxnStates {
		return txnStateNames[s]
	}
	return fmt.Sprintf("TxnState(%d)", uint8(s))
}

// tevent is what moves the transaction from one state to another.
type tevent uint8

const (
	tvInit        tevent = iota // InitTransactions
	tvIdentity                  // InitProducerId answered with an identity
	tvBegin                     // BeginTxn
	tvCommit                    // CommitTxn
	tvAbort                     // AbortTxn
	tvAbortable                 // an error the transaction cannot commit after
	tvCommitted                 // EndTxn(commit) applied (or nothing to commit)
	tvAborted                   // the transaction is aborted; the epoch moves next
	tvAbortedSame               // the transaction is aborted; the epoch stays (no bump possible, none needed)
	tvFatal                     // fenced, or a code no retry or abort cures
	tvSendOffsets               // SendOffsets
	tvOffsetsSent               // TxnOffsetCommit acknowledged: the offsets are pending in the transaction
	numTevents
)

var teventNames = [numTevents]string{"Init", "Identity", "Begin", "Commit", "Abort", "Abortable", "Committed", "Aborted", "AbortedSameEpoch", "Fatal", "SendOffsets", "OffsetsSent"}

func (e tevent) String() string {
	if e < numTevents {
		return teventNames[e]
	}
	return fmt.Sprintf("tevent(%d)", uint8(e))
}

type ttransition struct {
	from TxnState
	ev   tevent
	to   TxnState
	why  string
}

// txnTransitions is every state change of a transaction. A pair (from,
// ev) appears at most once; a pair not listed does not happen (the code
// that raises ev guards it).
var txnTransitions = []ttransition{
	{TxnUninitialized, tvInit, TxnInitializing, "InitProducerId with the transactional id (fences older instances)"},
	{TxnInitializing, tvIdentity, TxnReady, "producer id and epoch of the transactional id"},
	{TxnReady, tvBegin, TxnInTransaction, "a transaction is open"},
	{TxnInTransaction, tvCommit, TxnCommitting, "EndTxn(commit) once every batch is acknowledged"},
	{TxnInTransaction, tvAbort, TxnAborting, "the application aborts"},
	{TxnAbortableError, tvAbort, TxnAborting, "the application aborts after the error"},
	{TxnInTransaction, tvSendOffsets, TxnSendingOffsets, "AddOffsetsToTxn, then TxnOffsetCommit to the group's coordinator"},
	{TxnSendingOffsets, tvOffsetsSent, TxnInTransaction, "the offsets are pending in the transaction: committed with it, dropped if it aborts"},
	{TxnSendingOffsets, tvAbortable, TxnAbortableError, "the offsets cannot be committed (the group moved on, no access), or a batch failed"},
	{TxnSendingOffsets, tvFatal, TxnFatal, "a fatal code answering AddOffsetsToTxn or TxnOffsetCommit"},
	{TxnInTransaction, tvAbortable, TxnAbortableError, "a batch failed, a partition needs a fresh epoch, or an abortable or stale-epoch code"},
	{TxnCommitting, tvAbortable, TxnAbortableError, "the commit cannot be applied: the application aborts"},
	{TxnAbortableError, tvAbortable, TxnAbortableError, "already aborting; the cause is kept"},
	{TxnAborting, tvAbortable, TxnAborting, "already aborting; a stale epoch makes the abort ask InitProducerId"},
	{TxnCommitting, tvCommitted, TxnReady, "committed: its batches are reported delivered"},
	{TxnAborting, tvAborted, TxnBumping, "aborted: a fresh epoch before the next transaction (KIP-360)"},
	{TxnAborting, tvAbortedSame, TxnReady, "aborted: the broker gives no bump and no partition needs one"},
	{TxnBumping, tvIdentity, TxnReady, "the fresh epoch: sequences restart at 0"},
	{TxnInitializing, tvFatal, TxnFatal, "refused (authorization, timeout too large, ...)"},
	{TxnInTransaction, tvFatal, TxnFatal, "a fatal code answering AddPartitionsToTxn"},
	{TxnCommitting, tvFatal, TxnFatal, "a fatal code answering AddPartitionsToTxn or EndTxn"},
	{TxnAbortableError, tvFatal, TxnFatal, "a fatal code answering the request out when the error came"},
	{TxnAborting, tvFatal, TxnFatal, "a fatal code, or a fresh epoch needed that the broker cannot give"},
	{TxnBumping, tvFatal, TxnFatal, "fenced: a newer instance holds the transactional id"},
}

var txnNext = func() (t [numTxnStates][numTevents]struct {
	to TxnState
	ok bool
}) {
	for _, r := range txnTransitions {
		if t[r.from][r.ev].ok {
			panic(fmt.Sprintf("idempotence: transaction transition %v on %v listed twice", r.from, r.ev))
		}
		t[r.from][r.ev].to, t[r.from][r.ev].ok = r.to, true
	}
	return t
}()

// on moves the transaction along the table on ev and reports whether it
// moved (a pair the table lacks panics under the package's tests and is
// ignored otherwise).
func (t *txn) on(ev tevent) bool {
	n := txnNext[t.state][ev]
	if !n.ok {
		if checkTransitions {
			panic(fmt.Sprintf("idempotence: no transaction transition from %v on %v", t.state, ev))
		}
		return false
	}
	t.state = n.to
	return true
}
