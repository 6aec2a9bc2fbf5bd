package sim

import (
	"testing"
	"time"
)

// txnEntry is a transactional data batch of n records of producer pid at
// epoch and sequence seq, at base.
func txnEntry(pid int64, epoch int16, seq int32, base int64, n int32, txn bool) *entry {
	h := batchHeader{producerID: pid, producerEpoch: epoch, baseSequence: seq, lastOffsetDelta: n - 1, numRecords: n, marker: markerNone}
	if txn {
		h.attributes = attrTransactional
	}
	return &entry{base: base, h: h}
}

// markerEntry is producer pid's marker at base.
func markerEntry(pid int64, epoch int16, t markerType, base int64) *entry {
	h, _ := markerBatch(pid, epoch, t, 4, time.Unix(9, 0))
	return &entry{base: base, h: h}
}

func TestReplicaTracksTransactions(t *testing.T) {
	r := newReplica(0)
	r.append(txnEntry(1, 0, 0, 0, 2, true))  // 0-1: producer 1's transaction
	r.append(txnEntry(2, 0, 0, 2, 1, false)) // 2: a plain batch
	r.append(txnEntry(3, 0, 0, 3, 2, true))  // 3-4: producer 3's
	r.append(txnEntry(1, 0, 2, 5, 1, true))  // 5: producer 1 again
	if got := r.pstate[1].txnFirst; got != 0 {
		t.Fatalf("producer 1's transaction begins at %d", got)
	}
	if lso := r.lastStable(6); lso != 0 {
		t.Fatalf("LSO with two open: %d", lso)
	}
	r.append(markerEntry(1, 0, markerCommit, 6)) // commits 0-5's producer 1
	if lso := r.lastStable(6); lso != 0 {
		t.Fatalf("LSO with the commit marker at the high watermark: %d", lso)
	}
	if lso := r.lastStable(7); lso != 3 {
		t.Fatalf("LSO once the marker is below the high watermark: %d, want producer 3's 3", lso)
	}
	pe := r.pstate[1]
	if pe.txnFirst != -1 || pe.coordEpoch != 4 || len(pe.batches) != 2 || pe.epoch != 0 {
		t.Fatalf("producer 1 after its commit at the same epoch: %+v", pe)
	}
	r.append(markerEntry(3, 1, markerAbort, 7)) // aborts producer 3's at a bumped epoch
	if pe := r.pstate[3]; pe.epoch != 1 || len(pe.batches) != 0 || pe.txnFirst != -1 {
		t.Fatalf("producer 3 after an abort at a new epoch: %+v", pe)
	}
	if lso := r.lastStable(8); lso != 8 {
		t.Fatalf("LSO with everything complete: %d", lso)
	}
	if len(r.done) != 2 || r.done[0] != (completedTxn{1, 0, 6, false}) || r.done[1] != (completedTxn{3, 3, 7, true}) {
		t.Fatalf("completed: %+v", r.done)
	}
	for _, tc := range []struct {
		from, to int64
		n        int
	}{{0, 8, 1}, {3, 4, 1}, {0, 3, 0}, {7, 8, 1}, {8, 9, 0}, {5, 5, 0}} {
		if got := r.abortedIn(tc.from, tc.to); len(got) != tc.n || got == nil {
			t.Errorf("aborted in [%d, %d): %+v", tc.from, tc.to, got)
		}
	}
	// A marker for a producer with nothing open here completes nothing.
	r.append(markerEntry(2, 0, markerCommit, 8))
	if len(r.done) != 2 {
		t.Fatalf("a marker with no transaction here: %+v", r.done)
	}
	// Truncation rebuilds it all from the log.
	r.truncateTo(7)
	if len(r.done) != 1 || r.pstate[3].txnFirst != 3 || r.lastStable(7) != 3 {
		t.Fatalf("after truncating the abort marker: %+v, producer 3 %+v", r.done, r.pstate[3])
	}
}

func TestOpenTransactionsAreNotExpired(t *testing.T) {
	tbl := producerTable{}
	tbl.add(txnEntry(1, 0, 0, 0, 1, true))
	tbl.add(txnEntry(2, 0, 0, 1, 1, false))
	now := time.Now().Add(48 * time.Hour)
	tbl.dropStamped(time.Hour, now)
	if tbl[1] == nil || tbl[2] != nil {
		t.Fatalf("stamped expiry: %v", tbl)
	}
	tbl.add(txnEntry(2, 0, 0, 1, 1, false))
	if got := tbl.expireIdle(time.Hour, now); len(got) != 1 || got[0] != 2 || tbl[1] == nil {
		t.Fatalf("idle expiry: %v, left %v", got, tbl)
	}
}
