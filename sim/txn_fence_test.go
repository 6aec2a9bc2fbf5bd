package sim

import (
	"testing"
	"time"
)

// TestTxnZombieFenced: a second instance with the same transactional id
// fences the first mid-transaction. Its InitProducerId aborts the open
// transaction (CONCURRENT_TRANSACTIONS until the markers are written)
// and, retried, gets the epoch above the fence's; the zombie's writes and
// requests are refused from then on and none of its records is ever
// read_committed.
func TestTxnZombieFenced(t *testing.T) {
	c := newTestCluster(t, Brokers(3), Topic("t", 2, 3))
	zombie := newTxnClient(t, c, "tx")
	zombie.init()
	t0, t1 := tp{"t", 0}, tp{"t", 1}
	zombie.add(t0)
	zombie.produce(t0, 3)

	fresh := newTxnClient(t, c, "tx")
	if code := fresh.initAt(fresh.coord(), 4, false); code != errConcurrentTransactions {
		t.Fatalf("InitProducerId over an open transaction: %d", code)
	}
	d := waitTxnState(t, c, "tx", TxnCompleteAbort)
	if d.ProducerEpoch != 1 {
		t.Fatalf("the fence's epoch: %d", d.ProducerEpoch)
	}
	fresh.init()
	if fresh.pid != zombie.pid || fresh.epoch != 2 {
		t.Fatalf("the new instance: producer %d epoch %d", fresh.pid, fresh.epoch)
	}

	// The zombie: its next write, on a partition that took its marker
	// or not, and its requests to the coordinator.
	if rp := zombie.produceAt(9, t0, 1, true); rp.ErrorCode != errInvalidProducerEpoch {
		t.Errorf("zombie write where its transaction was: %d", rp.ErrorCode)
	}
	if rp := zombie.produceAt(11, t1, 1, true); rp.ErrorCode != errInvalidProducerEpoch {
		t.Errorf("zombie write elsewhere: %d", rp.ErrorCode)
	}
	if codes := zombie.addAt(zombie.coord(), 3, t1); codes[0] != errProducerFenced {
		t.Errorf("zombie AddPartitionsToTxn: %v", codes)
	}
	if code := zombie.endAt(zombie.coord(), 3, true); code != errProducerFenced {
		t.Errorf("zombie EndTxn v3: %d", code)
	}
	if code := zombie.endAt(zombie.coord(), 1, true); code != errInvalidProducerEpoch {
		t.Errorf("zombie EndTxn v1: %d", code)
	}

	fresh.add(t0)
	if base := fresh.produce(t0, 2); base != 4 {
		t.Fatalf("the new instance writes at %d", base)
	}
	fresh.end(true)
	l0, _ := c.Leader("t", 0)
	fp := readCommitted(t, fresh.conn(l0), t0, 0)
	if len(fp.AbortedTransactions) != 1 || fp.AbortedTransactions[0].FirstOffset != 0 || fp.LastStableOffset != 7 {
		t.Fatalf("read_committed: LSO %d, aborted %+v", fp.LastStableOffset, fp.AbortedTransactions)
	}
	batches, err := c.Records("t", 0)
	if err != nil || len(batches) != 4 || batches[1].ControlType != 0 || batches[1].ProducerEpoch != 1 ||
		batches[3].ControlType != 1 || batches[3].ProducerEpoch != 2 {
		t.Fatalf("log: %+v, %v", batches, err)
	}
}

// TestTxnMarkersWaitForTheLeader: with a partition's only replica down,
// its marker cannot be written; the transaction stays in PrepareCommit,
// the coordinator answering CONCURRENT_TRANSACTIONS to whatever would
// start another, until the broker is back and the marker lands.
func TestTxnMarkersWaitForTheLeader(t *testing.T) {
	c := newTestCluster(t, Brokers(2), Topic("t", 2, 1))
	x := newTxnClient(t, c, "tx")
	x.init()
	t0, t1 := tp{"t", 0}, tp{"t", 1}
	l1, _ := c.Leader("t", 1)
	coord := c.TransactionCoordinator("tx")
	// The partitions are on one broker each: stop the leader of the one
	// the coordinator does not host.
	down, up := t1, t0
	if l1 == coord {
		down, up = t0, t1
	}
	downLeader, _ := c.Leader(down.topic, down.partition)
	x.add(t0, t1)
	x.produce(t0, 2)
	x.produce(t1, 2)
	if err := c.StopBroker(downLeader); err != nil {
		t.Fatal(err)
	}
	if got := c.TransactionCoordinator("tx"); got != coord {
		t.Fatalf("the coordinator moved to %d", got)
	}
	cc := x.coord()
	if code := x.endAt(cc, 3, true); code != 0 {
		t.Fatalf("EndTxn: %d", code)
	}
	if d, _ := c.DescribeTransaction("tx"); d.State != TxnPrepareCommit {
		t.Fatalf("with a leader down: %v", d.State)
	}
	if code := x.endAt(cc, 3, true); code != errConcurrentTransactions {
		t.Errorf("EndTxn(commit) again: %d", code)
	}
	if code := x.endAt(cc, 3, false); code != errInvalidTxnState {
		t.Errorf("EndTxn(abort) while committing: %d", code)
	}
	if codes := x.addAt(cc, 3, up); codes[0] != errConcurrentTransactions {
		t.Errorf("AddPartitionsToTxn while committing: %v", codes)
	}
	if code := x.initAt(cc, 4, true); code != errConcurrentTransactions {
		t.Errorf("InitProducerId while committing: %d", code)
	}
	// The partition still running has its marker already.
	upLeader, _ := c.Leader(up.topic, up.partition)
	if fp := readCommitted(t, x.conn(upLeader), up, 0); fp.LastStableOffset != 3 {
		t.Errorf("the running partition's LSO: %d", fp.LastStableOffset)
	}
	if err := c.StartBroker(downLeader); err != nil {
		t.Fatal(err)
	}
	waitTxnState(t, c, "tx", TxnCompleteCommit)
	if fp := readCommitted(t, dial(t, c.Addrs()[downLeader]), down, 0); fp.LastStableOffset != 3 {
		t.Errorf("the partition back: LSO %d", fp.LastStableOffset)
	}
}

// TestTxnTimeout: on a transactions v1 cluster a transaction left open
// past its timeout is aborted by the coordinator, which bumps the epoch: the producer's next requests at
// its epoch are fenced and none of its records is read_committed.
func TestTxnTimeout(t *testing.T) {
	c := newTestCluster(t, Brokers(1), Topic("t", 1, 1), TransactionAbortCheck(10*time.Millisecond), TransactionVersion(1))
	x := newTxnClient(t, c, "tx")
	x.timeoutMs = 50
	x.init()
	t0 := tp{"t", 0}
	x.add(t0)
	x.produce(t0, 2)
	d := waitTxnState(t, c, "tx", TxnCompleteAbort)
	if d.ProducerEpoch != x.epoch+1 {
		t.Fatalf("after the timeout: epoch %d, the producer's %d", d.ProducerEpoch, x.epoch)
	}
	if rp := x.produceAt(9, t0, 1, true); rp.ErrorCode != errInvalidProducerEpoch {
		t.Errorf("Produce after the timeout: %d", rp.ErrorCode)
	}
	if codes := x.addAt(x.coord(), 3, t0); codes[0] != errProducerFenced {
		t.Errorf("AddPartitionsToTxn after the timeout: %v", codes)
	}
	if code := x.endAt(x.coord(), 3, false); code != errProducerFenced {
		t.Errorf("EndTxn(abort) after the timeout: %d", code)
	}
	// KIP-360's recovery naming the old epoch is fenced too (the fence
	// forgot it); a plain InitProducerId starts over.
	if code := x.initAt(x.coord(), 4, true); code != errProducerFenced {
		t.Errorf("InitProducerId naming the old epoch: %d", code)
	}
	x.init()
	fp := readCommitted(t, x.conn(0), t0, 0)
	if fp.LastStableOffset != 3 || len(fp.AbortedTransactions) != 1 {
		t.Fatalf("read_committed: LSO %d, aborted %+v", fp.LastStableOffset, fp.AbortedTransactions)
	}
}
