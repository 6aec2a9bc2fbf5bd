package sim

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestTxnHangingWithoutVerification: a broker before Kafka 3.6 takes a
// transactional batch to a partition the transaction never added; the
// commit writes no marker there, so that partition's last stable offset
// stays at the batch for good, whatever is committed after it.
func TestTxnHangingWithoutVerification(t *testing.T) {
	c := newTestCluster(t, Brokers(1), Topic("t", 2, 1), WithoutTxnVerification())
	x := newTxnClient(t, c, "tx")
	x.init()
	t0, t1 := tp{"t", 0}, tp{"t", 1}
	x.add(t0)
	x.produce(t0, 1)
	if base := x.produce(t1, 2); base != 0 {
		t.Fatalf("the unadded partition took it at %d", base)
	}
	x.end(true)
	y := newTxnClient(t, c, "other")
	y.init()
	y.add(t1)
	y.produce(t1, 1)
	y.end(true)
	if fp := readCommitted(t, x.conn(0), t0, 0); fp.LastStableOffset != 2 {
		t.Errorf("the added partition: LSO %d", fp.LastStableOffset)
	}
	if fp := readCommitted(t, x.conn(0), t1, 0); fp.LastStableOffset != 0 || fp.HighWatermark != 4 || len(fp.RecordBatches) != 0 {
		t.Errorf("the hanging partition: LSO %d HW %d, %d bytes", fp.LastStableOffset, fp.HighWatermark, len(fp.RecordBatches))
	}
}

// TestTxnACL: with authorization on, a transactional id needs a
// TRANSACTIONAL_ID grant: FindCoordinator, InitProducerId, EndTxn and a
// transactional Produce are refused TRANSACTIONAL_ID_AUTHORIZATION_FAILED
// without one.
func TestTxnACL(t *testing.T) {
	c := newTestCluster(t, Topic("t", 1, 1),
		SASL(MechPlain, "app", "a"), SASL(MechPlain, "other", "o"),
		ACL("app", "t", OpWrite, OpRead), ACL("other", "t", OpWrite, OpRead), TransactionalIDACL("app", "tx"))
	login := func(user, pass string) *testConn {
		tc := dial(t, c.Addrs()[0])
		tc.mustLogin(1, MechPlain, user, pass)
		return tc
	}
	app, other := login("app", "a"), login("other", "o")
	if _, code := findTxnCoordinator(other, "tx"); code != errTransactionalIDAuthorization {
		t.Errorf("FindCoordinator without the grant: %d", code)
	}
	if _, code := findTxnCoordinator(app, "tx"); code != 0 {
		t.Errorf("FindCoordinator with the grant: %d", code)
	}
	x := newTxnClient(t, c, "tx")
	x.conns[0] = other
	if code := x.initAt(other, 4, false); code != errTransactionalIDAuthorization {
		t.Errorf("InitProducerId without the grant: %d", code)
	}
	x.conns[0] = app
	x.init()
	x.add(tp{"t", 0})
	x.conns[0] = other
	if rp := x.produceAt(9, tp{"t", 0}, 1, true); rp.ErrorCode != errTransactionalIDAuthorization {
		t.Errorf("Produce without the grant: %d", rp.ErrorCode)
	}
	if code := x.endAt(other, 3, true); code != errTransactionalIDAuthorization {
		t.Errorf("EndTxn without the grant: %d", code)
	}
	if codes := x.addAt(other, 3, tp{"t", 0}); codes[0] != errTransactionalIDAuthorization {
		t.Errorf("AddPartitionsToTxn without the grant: %v", codes)
	}
	req := kmsg.NewPtrAddOffsetsToTxnRequest()
	req.TransactionalID = "tx"
	if code := other.do(req).(*kmsg.AddOffsetsToTxnResponse).ErrorCode; code != errTransactionalIDAuthorization {
		t.Errorf("AddOffsetsToTxn without the grant: %d", code)
	}
	x.conns[0] = app
	x.produce(tp{"t", 0}, 1)
	x.end(true)
}

// TestTxnCompaction: the cleaner keeps markers, drops an aborted
// transaction's records, and cleans only below the last stable offset.
func TestTxnCompaction(t *testing.T) {
	c := newTestCluster(t, Brokers(1), Topic("t", 1, 1), CompactTopic("t"))
	x := newTxnClient(t, c, "tx")
	x.init()
	t0 := tp{"t", 0}
	for _, commit := range []bool{false, true, false} {
		x.add(t0)
		x.produce(t0, 2) // key "k" for every record
		if commit {
			x.end(true)
			continue
		}
		x.end(false)
	}
	x.add(t0)
	x.produce(t0, 1) // open: above the last stable offset
	if _, err := c.Compact("t", 0); err != nil {
		t.Fatal(err)
	}
	batches, err := c.Records("t", 0)
	if err != nil {
		t.Fatal(err)
	}
	var markers, records []int64
	for _, b := range batches {
		for _, r := range b.Records {
			if b.Control {
				markers = append(markers, r.Offset)
			} else {
				records = append(records, r.Offset)
			}
		}
	}
	// Offsets: aborted 0-1 (marker 2), committed 3-4 (5), aborted 6-7
	// (8), open 9. Of key k, the latest committed record, 4, is kept.
	if len(markers) != 3 || markers[0] != 2 || markers[1] != 5 || markers[2] != 8 {
		t.Errorf("markers at %v", markers)
	}
	if len(records) != 2 || records[0] != 4 || records[1] != 9 {
		t.Errorf("records at %v, want 4 and the open transaction's 9", records)
	}
}
