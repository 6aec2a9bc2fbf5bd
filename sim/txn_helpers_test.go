package sim

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// txnClient drives one transactional id over raw connections: to its
// coordinator and to each partition's leader.
type txnClient struct {
	t     testing.TB
	c     *Cluster
	id    string
	pid   int64
	epoch int16
	seq   map[tp]int32
	conns map[int32]*testConn
	// timeoutMs is the transaction timeout InitProducerId asks.
	timeoutMs int32
}

func newTxnClient(t testing.TB, c *Cluster, id string) *txnClient {
	return &txnClient{t: t, c: c, id: id, seq: map[tp]int32{}, conns: map[int32]*testConn{}, timeoutMs: 60000}
}

// conn is a connection to broker id, dialed once.
func (x *txnClient) conn(id int32) *testConn {
	if tc := x.conns[id]; tc != nil {
		return tc
	}
	tc := dial(x.t, x.c.Addrs()[id])
	x.conns[id] = tc
	return tc
}

// coord is a connection to the id's coordinator.
func (x *txnClient) coord() *testConn {
	x.t.Helper()
	id := x.c.TransactionCoordinator(x.id)
	if id < 0 {
		x.t.Fatalf("%s: no coordinator", x.id)
	}
	return x.conn(id)
}

// initAt sends InitProducerId at version v to tc, naming the producer
// when named, and keeps the producer it is given.
func (x *txnClient) initAt(tc *testConn, v int16, named bool) int16 {
	x.t.Helper()
	req := kmsg.NewPtrInitProducerIDRequest()
	req.SetVersion(v)
	req.TransactionalID = kmsg.StringPtr(x.id)
	req.TransactionTimeoutMillis = x.timeoutMs
	if named {
		req.ProducerID, req.ProducerEpoch = x.pid, x.epoch
	}
	resp := tc.do(req).(*kmsg.InitProducerIDResponse)
	if resp.ErrorCode == 0 {
		if resp.ProducerID != x.pid || resp.ProducerEpoch != x.epoch {
			x.seq = map[tp]int32{}
		}
		x.pid, x.epoch = resp.ProducerID, resp.ProducerEpoch
	}
	return resp.ErrorCode
}

// init is InitProducerId v4 at the coordinator, retried while it answers
// CONCURRENT_TRANSACTIONS (a fenced transaction being aborted).
func (x *txnClient) init() {
	x.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		code := x.initAt(x.coord(), 4, false)
		if code == 0 {
			return
		}
		if code != errConcurrentTransactions || time.Now().After(deadline) {
			x.t.Fatalf("InitProducerId(%s): code %d", x.id, code)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (x *txnClient) addAt(tc *testConn, v int16, parts ...tp) []int16 {
	x.t.Helper()
	req := kmsg.NewPtrAddPartitionsToTxnRequest()
	req.SetVersion(v)
	req.TransactionalID, req.ProducerID, req.ProducerEpoch = x.id, x.pid, x.epoch
	for _, p := range parts {
		rt := kmsg.NewAddPartitionsToTxnRequestTopic()
		rt.Topic, rt.Partitions = p.topic, []int32{p.partition}
		req.Topics = append(req.Topics, rt)
	}
	resp := tc.do(req).(*kmsg.AddPartitionsToTxnResponse)
	var codes []int16
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			codes = append(codes, rp.ErrorCode)
		}
	}
	return codes
}

// add adds parts (AddPartitionsToTxn v3) and fails on any error.
func (x *txnClient) add(parts ...tp) {
	x.t.Helper()
	for i, code := range x.addAt(x.coord(), 3, parts...) {
		if code != 0 {
			x.t.Fatalf("AddPartitionsToTxn %v: code %d", parts[i], code)
		}
	}
}

func (x *txnClient) endAt(tc *testConn, v int16, commit bool) int16 {
	x.t.Helper()
	req := kmsg.NewPtrEndTxnRequest()
	req.SetVersion(v)
	req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Commit = x.id, x.pid, x.epoch, commit
	return tc.do(req).(*kmsg.EndTxnResponse).ErrorCode
}

// end is EndTxn v3 and waits until the transaction completes.
func (x *txnClient) end(commit bool) {
	x.t.Helper()
	if code := x.endAt(x.coord(), 3, commit); code != 0 {
		x.t.Fatalf("EndTxn(commit %v): code %d", commit, code)
	}
	want := TxnCompleteAbort
	if commit {
		want = TxnCompleteCommit
	}
	waitTxnState(x.t, x.c, x.id, want)
}

// produceAt writes n transactional records to p at Produce version v
// (acks=all), continuing the producer's sequence there; it returns the
// partition's answer.
func (x *txnClient) produceAt(v int16, p tp, n int, txn bool) kmsg.ProduceResponseTopicPartition {
	x.t.Helper()
	leader, _ := x.c.Leader(p.topic, p.partition)
	raw := makeBatch(x.t, spec{pid: x.pid, epoch: x.epoch, seq: x.seq[p], values: vals(x.id, n), txn: txn})
	req := produceReq(p.topic, p.partition, -1, raw)
	req.SetVersion(v)
	req.TransactionID = kmsg.StringPtr(x.id)
	rp := respPartition(x.conn(leader).do(req))
	if rp.ErrorCode == 0 {
		x.seq[p] += int32(n)
	}
	return rp
}

// produce writes n transactional records (Produce v9) and fails on an
// error; it returns the base offset.
func (x *txnClient) produce(p tp, n int) int64 {
	x.t.Helper()
	rp := x.produceAt(9, p, n, true)
	if rp.ErrorCode != 0 {
		x.t.Fatalf("produce to %v: code %d", p, rp.ErrorCode)
	}
	return rp.BaseOffset
}

// waitTxnState waits (10 s at most) for the coordinator to hold id in
// state want.
func waitTxnState(t testing.TB, c *Cluster, id string, want TxnState) TxnDescription {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		d, ok := c.DescribeTransaction(id)
		if ok && d.State == want {
			return d
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: state %v after 10s, want %v", id, d.State, want)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// readCommitted is a read_committed fetch (v12) of p from offset at tc.
func readCommitted(t testing.TB, tc *testConn, p tp, offset int64) kmsg.FetchResponseTopicPartition {
	t.Helper()
	req := fetchReq(p.topic, p.partition, offset, 0)
	req.IsolationLevel = 1
	return tc.do(req).(*kmsg.FetchResponse).Topics[0].Partitions[0]
}

// recordBatches decodes a fetch's record batches.
func recordBatches(t testing.TB, raw []byte) []kmsg.RecordBatch {
	t.Helper()
	var out []kmsg.RecordBatch
	for len(raw) > 0 {
		var b kmsg.RecordBatch
		if len(raw) < 12 {
			t.Fatalf("trailing %d bytes", len(raw))
		}
		n := 12 + int(int32(uint32(raw[8])<<24|uint32(raw[9])<<16|uint32(raw[10])<<8|uint32(raw[11])))
		if err := b.ReadFrom(raw[:n]); err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
		raw = raw[n:]
	}
	return out
}

// listOffset asks p's leader for the latest offset at isolation level iso.
func listLatest(t testing.TB, c *Cluster, p tp, iso int8) int64 {
	t.Helper()
	leader, _ := c.Leader(p.topic, p.partition)
	req := kmsg.NewPtrListOffsetsRequest()
	req.SetVersion(7)
	req.ReplicaID, req.IsolationLevel = -1, iso
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = p.topic
	rp := kmsg.NewListOffsetsRequestTopicPartition()
	rp.Partition, rp.Timestamp = p.partition, -1
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	op := dial(t, c.Addrs()[leader]).do(req).(*kmsg.ListOffsetsResponse).Topics[0].Partitions[0]
	if op.ErrorCode != 0 {
		t.Fatalf("ListOffsets %v: code %d", p, op.ErrorCode)
	}
	return op.Offset
}

// waitFor polls cond until it holds, failing after 10 s.
func waitFor(t testing.TB, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 10s")
		}
		time.Sleep(2 * time.Millisecond)
	}
}
