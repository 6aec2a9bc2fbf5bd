//go:build linux

package bench

import (
	"encoding/binary"
	"strconv"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client/readback"
)

// Java's String.hashCode: "hello" is 99162322, "polygenelubricants"
// Integer.MIN_VALUE (Utils.abs gives 0).
func TestJavaStringHash(t *testing.T) {
	for s, want := range map[string]int32{"": 0, "a": 97, "hello": 99162322, "polygenelubricants": -1 << 31} {
		if got := javaStringHash(s); got != want {
			t.Errorf("javaStringHash(%q) = %d, want %d", s, got, want)
		}
	}
	if p := txnStatePartition("polygenelubricants", 3); p != 0 {
		t.Errorf("partition of MIN_VALUE = %d, want 0", p)
	}
	// "hello": 99162322 % 3 = 1.
	if p := txnStatePartition("hello", 3); p != 1 {
		t.Errorf("partition of hello = %d, want 1", p)
	}
	for _, peer := range []string{"rollsafe", "kgo", "java"} {
		if id := txnID("coordkill", peer); txnStatePartition(id, txnStateParts) != 0 {
			t.Errorf("txnID %s is not on partition 0", id)
		}
	}
}

func marker(part int32, off, pid int64, epoch int16, commit bool) readback.Record {
	key := make([]byte, 4)
	if commit {
		binary.BigEndian.PutUint16(key[2:], 1)
	}
	return readback.Record{Partition: part, Offset: off, Key: key, ProducerID: pid, Epoch: epoch, Control: true, Transactional: true}
}

func txnRec(part int32, off, pid int64, epoch int16, id int) readback.Record {
	return readback.Record{Partition: part, Offset: off, Value: peerValue(strconv.Itoa(id)), ProducerID: pid, Epoch: epoch, Transactional: true}
}

// The result holds each transaction's records in the read_committed log to
// what the peer said: here transaction 0 committed and is whole,
// transaction 1 was reported committed but the log aborted it, transaction
// 2 was reported aborted but the log committed half of it.
func TestTxnResult(t *testing.T) {
	fault := time.Now()
	r := &txnRun{peer: "p", tl: newTally(), ended: fault.Add(3 * time.Second)}
	var log = map[int32][]readback.Record{}
	off := map[int32]int64{}
	add := func(rec readback.Record) {
		rec.Offset = off[rec.Partition]
		off[rec.Partition]++
		log[rec.Partition] = append(log[rec.Partition], rec)
	}
	outcomes := []txnOutcome{txnCommitted, txnCommitted, txnAbortedPlan}
	for n, out := range outcomes {
		req := txnReq{n: n}
		for i := range txnRecords {
			id := n*txnRecords + i
			p := int32(i % realParts)
			req.recs = append(req.recs, peerRec{id: strconv.Itoa(id), partition: p})
			if n == 2 && p >= 3 {
				continue // partitions 3-5 lost transaction 2's records
			}
			add(txnRec(p, 0, 7, int16(n), id))
		}
		for p := range int32(realParts) {
			add(marker(p, 0, 7, int16(n), n != 1))
		}
		r.done = append(r.done, txnDone{req: req, reply: txnReply{outcome: out}, at: fault.Add(time.Duration(n+1) * time.Second)})
	}
	add(readback.Record{Partition: 0, Value: peerValue("z0")})
	res := r.result("sc", fault, log)
	if res.committed != 2 || res.aborted != 1 {
		t.Errorf("committed %d aborted %d, want 2 and 1", res.committed, res.aborted)
	}
	if res.missing != txnRecords {
		t.Errorf("missing %d, want %d (transaction 1)", res.missing, txnRecords)
	}
	if res.abortedVisible != txnRecords/2 || res.partial != 1 {
		t.Errorf("aborted visible %d partial %d, want %d and 1", res.abortedVisible, res.partial, txnRecords/2)
	}
	if res.foreign != 1 || res.duplicates != 0 {
		t.Errorf("foreign %d duplicates %d, want 1 and 0", res.foreign, res.duplicates)
	}
	// Commits at +1 s and +2 s, the load ends at +3 s.
	if res.stall != time.Second {
		t.Errorf("stall %v, want 1s", res.stall)
	}
	if res.protocol != "?" {
		t.Errorf("protocol %q from 3 markers, want ?", res.protocol)
	}
}

func TestTxnProtocol(t *testing.T) {
	var v1, v1bump, v2 []readback.Record
	for n := range 12 {
		v1 = append(v1, marker(0, int64(n), 5, 0, true))
		v1bump = append(v1bump, marker(0, int64(n), 5, int16(n/4), true)) // a bump after every fourth
		v2 = append(v2, marker(0, int64(n), 5, int16(n), true))
	}
	if got := txnProtocol(map[int32][]readback.Record{0: v1}); got != "v1" {
		t.Errorf("one epoch: %s, want v1", got)
	}
	if got := txnProtocol(map[int32][]readback.Record{0: v1bump}); got != "v1" {
		t.Errorf("an epoch bumped after every fourth: %s, want v1", got)
	}
	if got := txnProtocol(map[int32][]readback.Record{0: v1[:8]}); got != "?" {
		t.Errorf("8 markers: %s, want ?", got)
	}
	if got := txnProtocol(map[int32][]readback.Record{0: v2}); got != "v2" {
		t.Errorf("an epoch per transaction: %s, want v2", got)
	}
}
