package sim

import (
	"maps"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// txnCommitOffset is TxnOffsetCommit at version v of offset for t/0 (and
// t/9, which does not exist, when withUnknown) in group; it returns the
// partitions' codes.
func txnCommitOffset(tc *testConn, v int16, x *txnClient, group string, generation int32, offset int64, withUnknown bool) []int16 {
	req := kmsg.NewPtrTxnOffsetCommitRequest()
	req.SetVersion(v)
	req.TransactionalID, req.Group, req.ProducerID, req.ProducerEpoch = x.id, group, x.pid, x.epoch
	req.Generation = generation
	rt := kmsg.NewTxnOffsetCommitRequestTopic()
	rt.Topic = "t"
	for _, p := range []int32{0, 9} {
		if p == 9 && !withUnknown {
			continue
		}
		rp := kmsg.NewTxnOffsetCommitRequestTopicPartition()
		rp.Partition, rp.Offset = p, offset
		rt.Partitions = append(rt.Partitions, rp)
	}
	req.Topics = append(req.Topics, rt)
	var codes []int16
	for _, p := range tc.do(req).(*kmsg.TxnOffsetCommitResponse).Topics[0].Partitions {
		codes = append(codes, p.ErrorCode)
	}
	return codes
}

// TestTxnOffsetCommit: a transaction's consumed offsets (KIP-98's
// AddOffsetsToTxn then TxnOffsetCommit at the group's coordinator) are
// committed with it and dropped if it aborts.
func TestTxnOffsetCommit(t *testing.T) {
	c := newTestCluster(t, Brokers(3), Topic("t", 1, 3))
	x := newTxnClient(t, c, "tx")
	x.init()
	req := kmsg.NewPtrFindCoordinatorRequest()
	req.SetVersion(3)
	req.CoordinatorKey = "g"
	fc := dial(t, c.Addrs()[0]).do(req).(*kmsg.FindCoordinatorResponse)
	if fc.ErrorCode != 0 {
		t.Fatalf("FindCoordinator(group): %d", fc.ErrorCode)
	}
	gc := x.conn(fc.NodeID)
	notGC := x.conn((fc.NodeID + 1) % 3)

	x.add(tp{"t", 0})
	if codes := txnCommitOffset(gc, 3, x, "g", -1, 42, false); codes[0] != errInvalidTxnState {
		t.Errorf("TxnOffsetCommit v3 without AddOffsetsToTxn: %v", codes)
	}
	if codes := txnCommitOffset(gc, 4, x, "g", -1, 42, false); codes[0] != errTransactionAbortable {
		t.Errorf("TxnOffsetCommit v4 without AddOffsetsToTxn: %v", codes)
	}
	if code := addOffsetsAt(x.coord(), 3, x, "g"); code != 0 {
		t.Fatalf("AddOffsetsToTxn: %d", code)
	}
	d, _ := c.DescribeTransaction("tx")
	if gp := d.Partitions[offsetsTopic]; len(gp) != 1 || gp[0] != int32(c.txn.groups.partitionFor("g")) {
		t.Fatalf("the transaction's partitions: %v", d.Partitions)
	}
	if codes := txnCommitOffset(notGC, 3, x, "g", -1, 42, false); codes[0] != errNotCoordinator {
		t.Errorf("TxnOffsetCommit at a broker not coordinating the group: %v", codes)
	}
	if codes := txnCommitOffset(gc, 3, x, "g", 5, 42, false); codes[0] != errIllegalGeneration {
		t.Errorf("TxnOffsetCommit naming a generation of a group never committed to: %v", codes)
	}
	if codes := txnCommitOffset(gc, 3, x, "g", -1, 42, true); codes[0] != 0 || codes[1] != errUnknownTopicOrPartition {
		t.Fatalf("TxnOffsetCommit: %v", codes)
	}
	x.epoch++
	if codes := txnCommitOffset(gc, 3, x, "g", -1, 43, false); codes[0] != errInvalidProducerEpoch {
		t.Errorf("TxnOffsetCommit at another epoch: %v", codes)
	}
	x.epoch--
	if got := c.CommittedOffsets("g"); len(got) != 0 {
		t.Fatalf("visible before the commit: %v", got)
	}
	x.end(true)
	want := map[string]map[int32]int64{"t": {0: 42}}
	if got := c.CommittedOffsets("g"); !maps.EqualFunc(got, want, maps.Equal) {
		t.Fatalf("after the commit: %v", got)
	}

	// An aborted transaction's offsets are dropped.
	if code := addOffsetsAt(x.coord(), 3, x, "g"); code != 0 {
		t.Fatalf("AddOffsetsToTxn: %d", code)
	}
	if codes := txnCommitOffset(gc, 3, x, "g", -1, 50, false); codes[0] != 0 {
		t.Fatalf("TxnOffsetCommit: %v", codes)
	}
	if codes := txnCommitOffset(gc, 3, x, "g", 5, 50, false); codes[0] != errUnknownMemberID {
		t.Errorf("TxnOffsetCommit naming a generation, group known: %v", codes)
	}
	x.end(false)
	if got := c.CommittedOffsets("g"); !maps.EqualFunc(got, want, maps.Equal) {
		t.Fatalf("after the abort: %v", got)
	}
}
