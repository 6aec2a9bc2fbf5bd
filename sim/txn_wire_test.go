package sim

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestTxnCommitAndAbortOverTheWire drives a committed and then an
// aborted transaction over two partitions with kmsg requests and reads
// both back as read_committed and read_uncommitted consumers do.
func TestTxnCommitAndAbortOverTheWire(t *testing.T) {
	c := newTestCluster(t, Brokers(3), Topic("t", 2, 3))
	x := newTxnClient(t, c, "tx")

	// FindCoordinator, both forms, names the coordinator.
	want := c.TransactionCoordinator("tx")
	tc := dial(t, c.Addrs()[0])
	for _, v := range []int16{1, 3, 4, 6} {
		req := kmsg.NewPtrFindCoordinatorRequest()
		req.SetVersion(v)
		req.CoordinatorType = coordTransaction
		req.CoordinatorKey, req.CoordinatorKeys = "tx", []string{"tx", "other"}
		resp := tc.do(req).(*kmsg.FindCoordinatorResponse)
		node, code := resp.NodeID, resp.ErrorCode
		if v >= 4 {
			if len(resp.Coordinators) != 2 || resp.Coordinators[1].Key != "other" {
				t.Fatalf("v%d: %+v", v, resp.Coordinators)
			}
			node, code = resp.Coordinators[0].NodeID, resp.Coordinators[0].ErrorCode
		}
		if code != 0 || node != want {
			t.Fatalf("FindCoordinator v%d: node %d code %d, want %d", v, node, code, want)
		}
	}

	x.init()
	if x.epoch != 0 {
		t.Fatalf("first epoch %d", x.epoch)
	}
	t0, t1 := tp{"t", 0}, tp{"t", 1}
	x.add(t0, t1)
	if d := waitTxnState(t, c, "tx", TxnOngoing); len(d.Partitions["t"]) != 2 {
		t.Fatalf("ongoing over %v", d.Partitions)
	}
	if base := x.produce(t0, 3); base != 0 {
		t.Fatalf("base %d", base)
	}
	x.produce(t1, 2)

	// Open: read_committed sees nothing, read_uncommitted everything.
	l0, _ := c.Leader("t", 0)
	lc := x.conn(l0)
	fp := readCommitted(t, lc, t0, 0)
	if fp.ErrorCode != 0 || len(fp.RecordBatches) != 0 || fp.LastStableOffset != 0 || fp.HighWatermark != 3 ||
		fp.AbortedTransactions == nil || len(fp.AbortedTransactions) != 0 {
		t.Fatalf("read_committed while open: %+v", fp)
	}
	if f := lc.fetch("t", 0, 0, 0); len(f.values) != 3 {
		t.Fatalf("read_uncommitted while open: %d records", len(f.values))
	}
	if lso, hw := listLatest(t, c, t0, 1), listLatest(t, c, t0, 0); lso != 0 || hw != 3 {
		t.Fatalf("ListOffsets latest: read_committed %d, read_uncommitted %d", lso, hw)
	}
	dp := describeProducersOf(t, lc, "t", 0)
	if len(dp) != 1 || dp[0].CurrentTxnStartOffset != 0 || dp[0].CoordinatorEpoch != -1 {
		t.Fatalf("DescribeProducers while open: %+v", dp)
	}

	x.end(true)
	fp = readCommitted(t, lc, t0, 0)
	bs := recordBatches(t, fp.RecordBatches)
	if fp.LastStableOffset != 4 || len(bs) != 2 || bs[1].Attributes&0x30 != 0x30 || bs[1].FirstOffset != 3 || len(fp.AbortedTransactions) != 0 {
		t.Fatalf("read_committed after commit: LSO %d, %d batches, aborted %v", fp.LastStableOffset, len(bs), fp.AbortedTransactions)
	}
	batches, err := c.Records("t", 0)
	if err != nil || len(batches) != 2 || !batches[0].Transactional || batches[0].Control || !batches[1].Control || batches[1].ControlType != 1 ||
		batches[1].ProducerID != x.pid || batches[1].ProducerEpoch != 0 {
		t.Fatalf("log after commit: %+v, %v", batches, err)
	}

	// A second transaction, aborted: read_committed is told to skip it.
	x.add(t0)
	if base := x.produce(t0, 3); base != 4 {
		t.Fatalf("second transaction at %d", base)
	}
	x.end(false)
	fp = readCommitted(t, lc, t0, 0)
	if fp.LastStableOffset != 8 || len(fp.AbortedTransactions) != 1 || fp.AbortedTransactions[0].ProducerID != x.pid ||
		fp.AbortedTransactions[0].FirstOffset != 4 {
		t.Fatalf("read_committed after the abort: LSO %d, aborted %+v", fp.LastStableOffset, fp.AbortedTransactions)
	}
	// From past the aborted transaction's marker: nothing to skip.
	if fp := readCommitted(t, lc, t0, 8); len(fp.AbortedTransactions) != 0 || len(fp.RecordBatches) != 0 {
		t.Fatalf("read_committed at the end: %+v", fp)
	}
	dp = describeProducersOf(t, lc, "t", 0)
	if len(dp) != 1 || dp[0].CurrentTxnStartOffset != -1 || dp[0].CoordinatorEpoch != 0 || dp[0].LastSequence != 5 {
		t.Fatalf("DescribeProducers after: %+v", dp)
	}
	// A follower serves read_committed from its own copy (Fetch v11+).
	for _, id := range []int32{(l0 + 1) % 3, (l0 + 2) % 3} {
		waitReplicated(t, c, "t", 0, id, 8)
		if fp := readCommitted(t, x.conn(id), t0, 0); fp.ErrorCode != 0 || fp.LastStableOffset != 8 || len(fp.AbortedTransactions) != 1 {
			t.Fatalf("follower %d: %+v", id, fp)
		}
	}
}

// describeProducersOf is DescribeProducers for one partition at tc.
func describeProducersOf(t testing.TB, tc *testConn, topic string, p int32) []kmsg.DescribeProducersResponseTopicPartitionActiveProducer {
	t.Helper()
	req := kmsg.NewPtrDescribeProducersRequest()
	rt := kmsg.NewDescribeProducersRequestTopic()
	rt.Topic, rt.Partitions = topic, []int32{p}
	req.Topics = append(req.Topics, rt)
	return tc.do(req).(*kmsg.DescribeProducersResponse).Topics[0].Partitions[0].ActiveProducers
}

// waitReplicated waits until broker id's replica of the partition has a
// high watermark of at least hw.
func waitReplicated(t testing.TB, c *Cluster, topic string, p int32, id int32, hw int64) {
	t.Helper()
	waitFor(t, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		pt, _ := c.partitionLocked(topic, p)
		return pt.logs[id].hw >= hw
	})
}
