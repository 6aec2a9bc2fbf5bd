package sim

import (
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestTxnRequestErrors checks the answers to transactional requests that
// are malformed, misdirected or refused, version by version.
func TestTxnRequestErrors(t *testing.T) {
	c := newTestCluster(t, Brokers(3), Topic("t", 2, 3), TransactionMaxTimeout(time.Minute))
	x := newTxnClient(t, c, "tx")
	coord := x.coord()
	other := x.conn((c.TransactionCoordinator("tx") + 1) % 3)

	init := func(tc *testConn, v int16, id string, timeout int32, pid int64, epoch int16) int16 {
		req := kmsg.NewPtrInitProducerIDRequest()
		req.SetVersion(v)
		req.TransactionalID = kmsg.StringPtr(id)
		req.TransactionTimeoutMillis, req.ProducerID, req.ProducerEpoch = timeout, pid, epoch
		return tc.do(req).(*kmsg.InitProducerIDResponse).ErrorCode
	}
	for _, tc := range []struct {
		what    string
		conn    *testConn
		v       int16
		id      string
		timeout int32
		pid     int64
		epoch   int16
		want    int16
	}{
		{"an empty transactional id", coord, 4, "", 1000, -1, -1, errInvalidRequest},
		{"a producer id without an epoch", coord, 4, "tx", 1000, 5, -1, errInvalidRequest},
		{"an epoch without a producer id", coord, 4, "tx", 1000, -1, 5, errInvalidRequest},
		{"a timeout of 0", coord, 4, "tx", 0, -1, -1, errInvalidTransactionTimeout},
		{"a timeout past transaction.max.timeout.ms", coord, 4, "tx", 60001, -1, -1, errInvalidTransactionTimeout},
		{"another broker", other, 4, "tx", 1000, -1, -1, errNotCoordinator},
	} {
		if code := init(tc.conn, tc.v, tc.id, tc.timeout, tc.pid, tc.epoch); code != tc.want {
			t.Errorf("InitProducerId, %s: code %d, want %d", tc.what, code, tc.want)
		}
	}
	if _, ok := c.DescribeTransaction("tx"); ok {
		t.Fatal("refused requests created the transactional id")
	}

	// Before InitProducerId: the id is unknown.
	t0, t1 := tp{"t", 0}, tp{"t", 1}
	x.pid, x.epoch = 1, 0
	if codes := x.addAt(coord, 3, t0); codes[0] != errInvalidProducerIDMapping {
		t.Errorf("AddPartitionsToTxn before InitProducerId: %v", codes)
	}
	if code := x.endAt(coord, 3, true); code != errInvalidProducerIDMapping {
		t.Errorf("EndTxn before InitProducerId: %d", code)
	}
	x.init()
	pid, epoch := x.pid, x.epoch

	// Another broker is not the coordinator.
	if codes := x.addAt(other, 3, t0); codes[0] != errNotCoordinator {
		t.Errorf("AddPartitionsToTxn at another broker: %v", codes)
	}
	if code := x.endAt(other, 3, true); code != errNotCoordinator {
		t.Errorf("EndTxn at another broker: %d", code)
	}
	if code := addOffsetsAt(other, 3, x, "g"); code != errNotCoordinator {
		t.Errorf("AddOffsetsToTxn at another broker: %d", code)
	}
	// An unknown partition: refused, the others not attempted.
	if codes := x.addAt(coord, 3, t0, tp{"t", 9}, tp{"nope", 0}); !slices.Equal(codes, []int16{errOperationNotAttempted, errUnknownTopicOrPartition, errUnknownTopicOrPartition}) {
		t.Errorf("AddPartitionsToTxn with unknown partitions: %v", codes)
	}
	if d, _ := c.DescribeTransaction("tx"); d.State != TxnEmpty {
		t.Errorf("after a refused AddPartitionsToTxn: %v", d.State)
	}
	// EndTxn with nothing ongoing.
	if code := x.endAt(coord, 3, true); code != errInvalidTxnState {
		t.Errorf("EndTxn with no transaction: %d", code)
	}
	// A stale epoch: PRODUCER_FENCED from v2 (v4 for InitProducerId),
	// INVALID_PRODUCER_EPOCH before.
	x.epoch = epoch + 1
	for v, want := range map[int16]int16{0: errInvalidProducerEpoch, 1: errInvalidProducerEpoch, 2: errProducerFenced, 3: errProducerFenced} {
		if codes := x.addAt(coord, v, t0); codes[0] != want {
			t.Errorf("AddPartitionsToTxn v%d at the wrong epoch: %v, want %d", v, codes, want)
		}
		if code := addOffsetsAt(coord, v, x, "g"); code != want {
			t.Errorf("AddOffsetsToTxn v%d at the wrong epoch: %d, want %d", v, code, want)
		}
	}
	for v, want := range map[int16]int16{0: errInvalidProducerEpoch, 1: errInvalidProducerEpoch, 2: errProducerFenced, 4: errProducerFenced} {
		if code := x.endAt(coord, v, true); code != want {
			t.Errorf("EndTxn v%d at the wrong epoch: %d, want %d", v, code, want)
		}
	}
	for v, want := range map[int16]int16{3: errInvalidProducerEpoch, 4: errProducerFenced, 5: errProducerFenced} {
		if code := init(coord, v, "tx", 1000, pid, epoch+5); code != want {
			t.Errorf("InitProducerId v%d naming a stale epoch: %d, want %d", v, code, want)
		}
	}
	x.pid = pid + 1
	if codes := x.addAt(coord, 3, t1); codes[0] != errInvalidProducerIDMapping {
		t.Errorf("AddPartitionsToTxn with another producer id: %v", codes)
	}
	if d, _ := c.DescribeTransaction("tx"); d.State != TxnEmpty || d.ProducerEpoch != epoch {
		t.Errorf("after the refused requests: %+v", d)
	}
}

// addOffsetsAt sends AddOffsetsToTxn at version v for group.
func addOffsetsAt(tc *testConn, v int16, x *txnClient, group string) int16 {
	req := kmsg.NewPtrAddOffsetsToTxnRequest()
	req.SetVersion(v)
	req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Group = x.id, x.pid, x.epoch, group
	return tc.do(req).(*kmsg.AddOffsetsToTxnResponse).ErrorCode
}

// TestTxnProduceChecks checks transactional Produce under transactions v1
// (Produce v12 is taken as v11): the partition must be
// in the transaction (Kafka 3.6+'s verification), at the producer's
// epoch, with a transactional id, and a producer with a transaction open
// on a partition cannot write a plain batch there.
func TestTxnProduceChecks(t *testing.T) {
	c := newTestCluster(t, Brokers(3), Topic("t", 2, 3), TransactionVersion(1))
	x := newTxnClient(t, c, "tx")
	x.init()
	t0, t1 := tp{"t", 0}, tp{"t", 1}
	x.add(t0)
	for v, want := range map[int16]int16{3: errInvalidTxnState, 9: errInvalidTxnState, 10: errInvalidTxnState, 11: errTransactionAbortable, 12: errTransactionAbortable} {
		if rp := x.produceAt(v, t1, 1, true); rp.ErrorCode != want {
			t.Errorf("Produce v%d to a partition not in the transaction: %d, want %d", v, rp.ErrorCode, want)
		}
	}
	x.produce(t0, 2)
	// Plain (idempotent) batch from the producer while its transaction is
	// open on the partition.
	if rp := x.produceAt(9, t0, 1, false); rp.ErrorCode != errInvalidTxnState {
		t.Errorf("a plain batch inside the transaction: %d", rp.ErrorCode)
	}
	// A stale epoch: the partition knows the producer (its transaction is
	// open there), so its own check answers; on a partition it never
	// wrote, the coordinator's PRODUCER_FENCED becomes
	// INVALID_PRODUCER_EPOCH.
	x.epoch++
	if rp := x.produceAt(9, t0, 1, true); rp.ErrorCode != errOutOfOrderSequence {
		t.Errorf("a new epoch at sequence 2 where the transaction is open: %d", rp.ErrorCode)
	}
	if rp := x.produceAt(9, t1, 1, true); rp.ErrorCode != errInvalidProducerEpoch {
		t.Errorf("another epoch on a partition outside: %d", rp.ErrorCode)
	}
	x.epoch--
	// Another transactional id's name for the producer.
	y := newTxnClient(t, c, "other")
	y.init()
	y.pid, y.epoch = x.pid, x.epoch
	if rp := y.produceAt(9, t1, 1, true); rp.ErrorCode != errInvalidProducerIDMapping {
		t.Errorf("the producer under another transactional id: %d", rp.ErrorCode)
	}
	// No transactional id: the whole request is refused.
	leader, _ := c.Leader("t", 1)
	raw := makeBatch(t, spec{pid: x.pid, epoch: x.epoch, seq: 0, values: vals("v", 1), txn: true})
	if rp := x.conn(leader).produce("t", 1, -1, raw); rp.ErrorCode != errTransactionalIDAuthorization {
		t.Errorf("a transactional batch without a transactional id: %d", rp.ErrorCode)
	}
	x.end(true)
	// After the commit the partition is out of any transaction again.
	if rp := x.produceAt(9, t0, 1, true); rp.ErrorCode != errInvalidTxnState {
		t.Errorf("Produce after the commit, not added again: %d", rp.ErrorCode)
	}
	if rp := x.produceAt(9, t0, 1, false); rp.ErrorCode != 0 {
		t.Errorf("a plain batch after the commit: %d", rp.ErrorCode)
	}
}
