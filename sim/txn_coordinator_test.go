package sim

import (
	"fmt"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// findTxnCoordinator is FindCoordinator v3 (TRANSACTION) for id at tc.
func findTxnCoordinator(tc *testConn, id string) (int32, int16) {
	req := kmsg.NewPtrFindCoordinatorRequest()
	req.SetVersion(3)
	req.CoordinatorType, req.CoordinatorKey = coordTransaction, id
	resp := tc.do(req).(*kmsg.FindCoordinatorResponse)
	return resp.NodeID, resp.ErrorCode
}

// TestTxnCoordinatorMoves: the coordinator's broker stops mid-transaction;
// the next replica of the id's __transaction_state partition takes over
// with the transaction as it was (the log is replicated), at a higher
// coordinator epoch the markers carry; the old broker, back, is no longer
// the coordinator.
func TestTxnCoordinatorMoves(t *testing.T) {
	c := newTestCluster(t, Brokers(3), Topic("t", 1, 3))
	x := newTxnClient(t, c, "tx")
	x.init()
	t0 := tp{"t", 0}
	x.add(t0)
	x.produce(t0, 2)
	old := c.TransactionCoordinator("tx")
	if err := c.StopBroker(old); err != nil {
		t.Fatal(err)
	}
	delete(x.conns, old)
	now := c.TransactionCoordinator("tx")
	p := c.txn.txnLog.partitionFor("tx")
	if want := int32((p + 1) % 3); now != want {
		t.Fatalf("coordinator %d after %d stopped, want the next replica %d", now, old, want)
	}
	other := (now + 1) % 3
	if other == old {
		other = (now + 2) % 3
	}
	if id, code := findTxnCoordinator(x.conn(other), "tx"); id != now || code != 0 {
		t.Fatalf("FindCoordinator: %d, code %d", id, code)
	}
	if d, _ := c.DescribeTransaction("tx"); d.State != TxnOngoing || d.ProducerEpoch != x.epoch {
		t.Fatalf("at the new coordinator: %+v", d)
	}
	if code := x.endAt(x.conn(other), 3, true); code != errNotCoordinator {
		t.Fatalf("EndTxn at a broker not coordinating: %d", code)
	}
	x.end(true)
	if err := c.StartBroker(old); err != nil {
		t.Fatal(err)
	}
	if code := x.endAt(x.conn(old), 3, true); code != errNotCoordinator {
		t.Fatalf("EndTxn at the old coordinator, back: %d", code)
	}
	if code := x.endAt(x.coord(), 3, true); code != 0 {
		t.Fatalf("EndTxn(commit) retried at the coordinator: %d", code)
	}
	leader, _ := c.Leader("t", 0)
	dp := describeProducersOf(t, x.conn(leader), "t", 0)
	if len(dp) != 1 || dp[0].CoordinatorEpoch != 1 {
		t.Fatalf("the marker's coordinator epoch: %+v", dp)
	}
}

// TestTxnNoCoordinator: every replica of a transactional id's
// __transaction_state partition down: no coordinator
// (COORDINATOR_NOT_AVAILABLE), and a transactional batch cannot be
// verified (NOT_ENOUGH_REPLICAS, which older clients retry); one back
// coordinates.
func TestTxnNoCoordinator(t *testing.T) {
	c := newTestCluster(t, Brokers(4), Topic("t", 1, 1))
	leader, _ := c.Leader("t", 0)
	// A transactional id whose partition's three replicas exclude the
	// partition's leader.
	var id string
	var replicas []int32
	for i := 0; id == ""; i++ {
		cand := fmt.Sprintf("tx%d", i)
		p := c.txn.txnLog.partitionFor(cand)
		replicas = []int32{int32(p % 4), int32((p + 1) % 4), int32((p + 2) % 4)}
		if !slices.Contains(replicas, leader) {
			id = cand
		}
	}
	x := newTxnClient(t, c, id)
	x.init()
	x.add(tp{"t", 0})
	for _, r := range replicas {
		if err := c.StopBroker(r); err != nil {
			t.Fatal(err)
		}
	}
	x.conns = map[int32]*testConn{}
	if node, code := findTxnCoordinator(x.conn(leader), id); code != errCoordinatorNotAvailable || node != -1 {
		t.Fatalf("FindCoordinator with the partition's replicas down: node %d code %d", node, code)
	}
	if rp := x.produceAt(9, tp{"t", 0}, 1, true); rp.ErrorCode != errNotEnoughReplicas {
		t.Fatalf("a transactional batch with no coordinator: %d", rp.ErrorCode)
	}
	if err := c.StartBroker(replicas[2]); err != nil {
		t.Fatal(err)
	}
	if node, code := findTxnCoordinator(x.conn(leader), id); code != 0 || node != replicas[2] {
		t.Fatalf("FindCoordinator with one replica back: node %d code %d", node, code)
	}
	x.produce(tp{"t", 0}, 1)
	x.end(true)
}

// TestTxnMarkerLostInACrash: a commit marker written to a leader but not
// replicated is lost when that leader crashes; the coordinator writes it
// again on the new leader, and the transaction completes there once.
func TestTxnMarkerLostInACrash(t *testing.T) {
	c := newTestCluster(t, Brokers(2), Topic("t", 1, 2))
	x := newTxnClient(t, c, "tx")
	x.init()
	t0 := tp{"t", 0}
	x.add(t0)
	x.produce(t0, 2) // acks=all: on both replicas
	leader, _ := c.Leader("t", 0)
	follower := 1 - leader
	if err := c.SetFollowerLag(follower, 1<<62); err != nil {
		t.Fatal(err)
	}
	if code := x.endAt(x.coord(), 3, true); code != 0 {
		t.Fatalf("EndTxn: %d", code)
	}
	if d, _ := c.DescribeTransaction("tx"); d.State != TxnPrepareCommit {
		t.Fatalf("with the marker unreplicated: %v", d.State)
	}
	if err := c.KillBroker(leader); err != nil {
		t.Fatal(err)
	}
	if err := c.SetFollowerLag(follower, 0); err != nil {
		t.Fatal(err)
	}
	waitTxnState(t, c, "tx", TxnCompleteCommit)
	batches, err := c.ReplicaRecords("t", 0, follower)
	if err != nil || len(batches) != 2 || !batches[1].Control || batches[1].ControlType != 1 || batches[1].BaseOffset != 2 {
		t.Fatalf("the new leader's log: %+v, %v", batches, err)
	}
	if fp := readCommitted(t, dial(t, c.Addrs()[follower]), t0, 0); fp.LastStableOffset != 3 || len(recordBatches(t, fp.RecordBatches)) != 2 {
		t.Fatalf("read_committed at the new leader: %+v", fp)
	}
}

// TestTxnRestartKeepsTheOpenTransaction: a leader restarted mid-transaction
// rebuilds the transaction from its log: the last stable offset stays at
// the transaction's first batch until the commit.
func TestTxnRestartKeepsTheOpenTransaction(t *testing.T) {
	c := newTestCluster(t, Brokers(1), Topic("t", 1, 1), ProducerIDExpiration(stampedLongAgo))
	x := newTxnClient(t, c, "tx")
	x.init()
	t0 := tp{"t", 0}
	if err := c.StopBroker(0); err != nil {
		t.Fatal(err)
	}
	if err := c.StartBroker(0); err != nil {
		t.Fatal(err)
	}
	x.conns = map[int32]*testConn{}
	x.add(t0)
	x.produce(t0, 2)
	// A plain producer writes after it.
	plain := dial(t, c.Addrs()[0])
	if rp := plain.produce("t", 0, -1, makeBatch(t, spec{pid: -1, seq: -1, values: vals("p", 1)})); rp.ErrorCode != 0 || rp.BaseOffset != 2 {
		t.Fatalf("plain write: %+v", rp)
	}
	if err := c.StopBroker(0); err != nil {
		t.Fatal(err)
	}
	if err := c.StartBroker(0); err != nil {
		t.Fatal(err)
	}
	x.conns = map[int32]*testConn{}
	if fp := readCommitted(t, x.conn(0), t0, 0); fp.LastStableOffset != 0 || fp.HighWatermark != 3 {
		t.Fatalf("after the restart: LSO %d HW %d", fp.LastStableOffset, fp.HighWatermark)
	}
	if dp := describeProducersOf(t, x.conn(0), "t", 0); len(dp) != 1 || dp[0].CurrentTxnStartOffset != 0 {
		t.Fatalf("DescribeProducers after the restart: %+v", dp)
	}
	x.end(true)
	if fp := readCommitted(t, x.conn(0), t0, 0); fp.LastStableOffset != 4 || len(recordBatches(t, fp.RecordBatches)) != 3 {
		t.Fatalf("after the commit: %+v", fp)
	}
}

// TestTxnCoordinatorKilledUnnoticed: a coordinator killed while the
// controller cannot notice stays the coordinator in the metadata
// (FindCoordinator names it, unreachable) and checks of transactional
// batches fail (NOT_ENOUGH_REPLICAS) until FenceBroker hands its
// partitions on.
func TestTxnCoordinatorKilledUnnoticed(t *testing.T) {
	c := newTestCluster(t, Brokers(3), Topic("t", 1, 3))
	x := newTxnClient(t, c, "tx")
	x.init()
	t0 := tp{"t", 0}
	coord := c.TransactionCoordinator("tx")
	if leader, _ := c.Leader("t", 0); leader == coord {
		if err := c.MoveLeader("t", 0, (coord+1)%3); err != nil {
			t.Fatal(err)
		}
	}
	x.add(t0)
	if err := c.KillProcessUnnoticed(coord); err != nil {
		t.Fatal(err)
	}
	delete(x.conns, coord)
	other := (coord + 1) % 3
	if id, code := findTxnCoordinator(x.conn(other), "tx"); id != coord || code != 0 {
		t.Fatalf("FindCoordinator after an unnoticed kill: %d, code %d", id, code)
	}
	// The partition's first transactional batch needs the coordinator.
	if rp := x.produceAt(9, t0, 1, true); rp.ErrorCode != errNotEnoughReplicas {
		t.Fatalf("a transactional batch with the coordinator unreachable: %d", rp.ErrorCode)
	}
	if err := c.FenceBroker(coord); err != nil {
		t.Fatal(err)
	}
	if now := c.TransactionCoordinator("tx"); now == coord || now < 0 {
		t.Fatalf("coordinator %d after FenceBroker", now)
	}
	x.produce(t0, 1)
	x.end(true)
}
