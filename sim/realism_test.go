package sim

import (
	"errors"
	"io"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func describeReq(topic string, parts ...int32) *kmsg.DescribeProducersRequest {
	req := kmsg.NewPtrDescribeProducersRequest()
	rt := kmsg.NewDescribeProducersRequestTopic()
	rt.Topic, rt.Partitions = topic, parts
	req.Topics = append(req.Topics, rt)
	return req
}

func (tc *testConn) describe(topic string, p int32) kmsg.DescribeProducersResponseTopicPartition {
	tc.t.Helper()
	resp := tc.do(describeReq(topic, p)).(*kmsg.DescribeProducersResponse)
	return resp.Topics[0].Partitions[0]
}

// TestAcksAllTimeoutLeavesBatchToCommitLater: with an in-sync follower
// lagging, the leader appends, answers REQUEST_TIMED_OUT after the request
// timeout, reads stop at the high watermark below the batch, and the batch
// commits once the follower catches up.
func TestAcksAllTimeoutLeavesBatchToCommitLater(t *testing.T) {
	c := newTestCluster(t, Brokers(2), Topic("t", 1, 2))
	leader, _ := c.Leader("t", 0)
	follower := 1 - leader
	tc := dial(t, c.Addrs()[leader])
	if p := tc.produce("t", 0, -1, makeBatch(t, spec{pid: 7, seq: 0, values: vals("a", 2)})); p.ErrorCode != 0 {
		t.Fatal(p.ErrorCode)
	}
	if err := c.SetFollowerLag(follower, time.Hour); err != nil {
		t.Fatal(err)
	}
	req := produceReq("t", 0, -1, makeBatch(t, spec{pid: 7, seq: 2, values: vals("b", 3)}))
	req.TimeoutMillis = 20
	if p := respPartition(tc.do(req)); p.ErrorCode != errRequestTimedOut {
		t.Fatalf("code %d, want REQUEST_TIMED_OUT", p.ErrorCode)
	}
	hw, leo, _ := c.HighWatermark("t", 0)
	if hw != 2 || leo != 5 {
		t.Fatalf("hw %d leo %d, want 2 and 5: the batch stays in the leader's log", hw, leo)
	}
	if f := tc.fetch("t", 0, 2, 0); len(f.batches) != 0 || f.hw != 2 {
		t.Fatalf("fetch from the leader served %d batches, hw %d: it must stop at the high watermark", len(f.batches), f.hw)
	}
	// The leader's producer state already has the batch.
	if d := tc.describe("t", 0); len(d.ActiveProducers) != 1 || d.ActiveProducers[0].LastSequence != 4 {
		t.Fatalf("describe producers: %+v", d)
	}
	if err := c.SetFollowerLag(follower, 0); err != nil {
		t.Fatal(err)
	}
	waitState(t, c, "the batch commits", func() bool { return c.topics["t"].parts[0].hw == 5 })
	if f := tc.fetch("t", 0, 2, 0); len(f.batches) != 1 || f.values[4] != "b-2" {
		t.Fatalf("after catching up: %+v", f.values)
	}
}

func TestDescribeProducers(t *testing.T) {
	c := newTestCluster(t, Brokers(3), Topic("t", 1, 2))
	leader, _ := c.Leader("t", 0)
	reps, _ := c.Replicas("t", 0)
	follower := reps[1]
	other := 3 - leader - follower
	lc := dial(t, c.Addrs()[leader])
	if p := lc.produce("t", 0, -1, makeBatch(t, spec{pid: 10, epoch: 2, seq: 0, values: vals("a", 3)})); p.ErrorCode != 0 {
		t.Fatal(p.ErrorCode)
	}
	if p := lc.produce("t", 0, 1, makeBatch(t, spec{pid: 5, epoch: 0, seq: 0, values: vals("x", 1)})); p.ErrorCode != 0 {
		t.Fatal(p.ErrorCode)
	}
	waitState(t, c, "replicated", func() bool { pt := c.topics["t"].parts[0]; return pt.hw == pt.logs[pt.leader].leo })
	if err := c.PauseReplication("t", 0, follower); err != nil {
		t.Fatal(err)
	}
	// Uncommitted on the follower, not yet appended: only the leader knows.
	if p := lc.produce("t", 0, 1, makeBatch(t, spec{pid: 10, epoch: 2, seq: 3, values: vals("b", 2)})); p.ErrorCode != 0 {
		t.Fatal(p.ErrorCode)
	}
	d := lc.describe("t", 0)
	if d.ErrorCode != 0 || len(d.ActiveProducers) != 2 {
		t.Fatalf("leader: %+v", d)
	}
	p5, p10 := d.ActiveProducers[0], d.ActiveProducers[1]
	if p5.ProducerID != 5 || p5.ProducerEpoch != 0 || p5.LastSequence != 0 || p5.LastTimestamp != 1000 {
		t.Fatalf("producer 5: %+v", p5)
	}
	if p10.ProducerID != 10 || p10.ProducerEpoch != 2 || p10.LastSequence != 4 || p10.LastTimestamp != 1001 ||
		p10.CoordinatorEpoch != -1 || p10.CurrentTxnStartOffset != -1 {
		t.Fatalf("producer 10: %+v", p10)
	}
	// A follower answers from its own, lagging, state (as Kafka does).
	fd := dial(t, c.Addrs()[follower]).describe("t", 0)
	if fd.ErrorCode != 0 || len(fd.ActiveProducers) != 2 || fd.ActiveProducers[1].LastSequence != 2 {
		t.Fatalf("follower: %+v", fd)
	}
	// A broker without a replica, and an unknown partition.
	oc := dial(t, c.Addrs()[other])
	if od := oc.describe("t", 0); od.ErrorCode != errNotLeaderOrFollower || len(od.ActiveProducers) != 0 {
		t.Fatalf("non-replica: %+v", od)
	}
	if od := oc.describe("t", 9); od.ErrorCode != errUnknownTopicOrPartition {
		t.Fatalf("unknown partition: %+v", od)
	}
	if od := oc.describe("nope", 0); od.ErrorCode != errUnknownTopicOrPartition {
		t.Fatalf("unknown topic: %+v", od)
	}
}

func advertises(t *testing.T, tc *testConn, key int16) bool {
	t.Helper()
	req := kmsg.NewPtrApiVersionsRequest()
	req.SetVersion(3)
	for _, k := range tc.do(req).(*kmsg.ApiVersionsResponse).ApiKeys {
		if k.ApiKey == key {
			return true
		}
	}
	return false
}

func TestWithoutDescribeProducers(t *testing.T) {
	for name, opt := range map[string]Option{"option": WithoutDescribeProducers(), "pre-2.5": Pre25()} {
		t.Run(name, func(t *testing.T) {
			c := newTestCluster(t, Topic("t", 1, 1), opt)
			tc := dial(t, c.Addrs()[0])
			if advertises(t, tc, 61) {
				t.Fatal("DescribeProducers advertised")
			}
			req := describeReq("t", 0)
			_, err := tc.recv(req, tc.send(req), 5*time.Second)
			if !errors.Is(err, io.EOF) {
				t.Fatalf("got %v, want the connection closed", err)
			}
		})
	}
	c := newTestCluster(t, Topic("t", 1, 1))
	if !advertises(t, dial(t, c.Addrs()[0]), 61) {
		t.Fatal("DescribeProducers not advertised by default")
	}
}

func TestStartBrokerAtNewAddress(t *testing.T) {
	c := newTestCluster(t, Brokers(2), Topic("t", 1, 2))
	old := c.Addrs()[1]
	if _, err := c.StartBrokerAt(1, "127.0.0.1:0"); !errors.Is(err, ErrBrokerUp) {
		t.Fatalf("moving a running broker: %v", err)
	}
	if err := c.StopBroker(1); err != nil {
		t.Fatal(err)
	}
	addr, err := c.StartBrokerAt(1, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if addr == old || c.Addrs()[1] != addr {
		t.Fatalf("new address %s, old %s, Addrs %v", addr, old, c.Addrs())
	}
	if nc, err := net.DialTimeout("tcp", old, time.Second); err == nil {
		_ = nc.Close()
		t.Fatal("the old address still accepts connections")
	}
	md := dial(t, c.Addrs()[0]).do(metadataAll()).(*kmsg.MetadataResponse)
	found := false
	for _, b := range md.Brokers {
		if b.NodeID == 1 {
			found = true
			if got := net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port))); got != addr {
				t.Fatalf("metadata lists broker 1 at %s, want %s", got, addr)
			}
		}
	}
	if !found {
		t.Fatal("broker 1 missing from metadata")
	}
	if md := dial(t, addr).do(metadataAll()).(*kmsg.MetadataResponse); len(md.Brokers) != 2 {
		t.Fatalf("the moved broker answers with %d brokers", len(md.Brokers))
	}
}

func fetchAt(topic string, p int32, offset int64, version int16, currentEpoch int32) *kmsg.FetchRequest {
	req := fetchReq(topic, p, offset, 0)
	req.SetVersion(version)
	req.Topics[0].Partitions[0].CurrentLeaderEpoch = currentEpoch
	return req
}

func fetchPart(tc *testConn, req *kmsg.FetchRequest) kmsg.FetchResponseTopicPartition {
	tc.t.Helper()
	return tc.do(req).(*kmsg.FetchResponse).Topics[0].Partitions[0]
}

// TestFollowerAnswersFetch: a consumer fetch v11+ on a follower is served
// from the follower's own log up to its own high watermark; before v11 it
// is refused; the current leader epoch is checked on followers too.
func TestFollowerAnswersFetch(t *testing.T) {
	c := newTestCluster(t, Brokers(3), Topic("t", 1, 2))
	reps, _ := c.Replicas("t", 0)
	leader, follower, other := reps[0], reps[1], 3-reps[0]-reps[1]
	lc, fc := dial(t, c.Addrs()[leader]), dial(t, c.Addrs()[follower])
	if p := lc.produce("t", 0, -1, makeBatch(t, spec{pid: -1, epoch: -1, seq: -1, values: vals("a", 2)})); p.ErrorCode != 0 {
		t.Fatal(p.ErrorCode)
	}
	waitState(t, c, "the follower learns the high watermark", func() bool { return c.topics["t"].parts[0].logs[follower].hw == 2 })
	if err := c.PauseReplication("t", 0, follower); err != nil {
		t.Fatal(err)
	}
	if p := lc.produce("t", 0, -1, makeBatch(t, spec{pid: -1, epoch: -1, seq: -1, values: vals("b", 3)})); p.ErrorCode != 0 {
		t.Fatal(p.ErrorCode)
	}
	_, epoch := c.Leader("t", 0)
	if p := fetchPart(lc, fetchAt("t", 0, 0, 12, epoch)); p.ErrorCode != 0 || p.HighWatermark != 5 {
		t.Fatalf("leader: code %d hw %d", p.ErrorCode, p.HighWatermark)
	}
	for _, cur := range []int32{-1, epoch} {
		p := fetchPart(fc, fetchAt("t", 0, 0, 12, cur))
		if p.ErrorCode != 0 || p.HighWatermark != 2 {
			t.Fatalf("follower, current epoch %d: code %d hw %d, want its own hw 2", cur, p.ErrorCode, p.HighWatermark)
		}
	}
	if p := fetchPart(fc, fetchAt("t", 0, 0, 10, -1)); p.ErrorCode != errNotLeaderOrFollower {
		t.Fatalf("follower, fetch v10: code %d", p.ErrorCode)
	}
	if p := fetchPart(fc, fetchAt("t", 0, 0, 12, epoch+1)); p.ErrorCode != errUnknownLeaderEpoch {
		t.Fatalf("follower, newer epoch: code %d", p.ErrorCode)
	}
	if p := fetchPart(dial(t, c.Addrs()[other]), fetchAt("t", 0, 0, 12, -1)); p.ErrorCode != errNotLeaderOrFollower {
		t.Fatalf("non-replica: code %d", p.ErrorCode)
	}
	// A deposed leader: after a move it answers from its own view, and a
	// reader still holding its epoch is fenced.
	if err := c.ResumeReplication("t", 0, follower); err != nil {
		t.Fatal(err)
	}
	waitState(t, c, "the follower rejoins", inISR(c, "t", 0, follower))
	if err := c.MoveLeader("t", 0, follower); err != nil {
		t.Fatal(err)
	}
	if p := fetchPart(lc, fetchAt("t", 0, 0, 12, epoch)); p.ErrorCode != errFencedLeaderEpoch {
		t.Fatalf("deposed leader, its old epoch: code %d", p.ErrorCode)
	}
	if p := fetchPart(lc, fetchAt("t", 0, 0, 12, -1)); p.ErrorCode != 0 {
		t.Fatalf("deposed leader, no epoch: code %d", p.ErrorCode)
	}
}

// TestNewLeaderHighWatermarkTrails: a new leader starts from its own high
// watermark, which can trail the old leader's, answers ListOffsets with
// OFFSET_NOT_AVAILABLE until it reaches its epoch start, and catches up
// once its followers fetch from it.
func TestNewLeaderHighWatermarkTrails(t *testing.T) {
	c := newTestCluster(t, Brokers(3), Topic("t", 1, 3))
	reps, _ := c.Replicas("t", 0)
	leader, f1, f2 := reps[0], reps[1], reps[2]
	lc := dial(t, c.Addrs()[leader])
	if p := lc.produce("t", 0, -1, makeBatch(t, spec{pid: -1, epoch: -1, seq: -1, values: vals("a", 2)})); p.ErrorCode != 0 {
		t.Fatal(p.ErrorCode)
	}
	// f2 stops copying (still in the ISR): the next batch reaches f1 but
	// is not committed.
	if err := c.SetFollowerLag(f2, time.Hour); err != nil {
		t.Fatal(err)
	}
	if p := lc.produce("t", 0, 1, makeBatch(t, spec{pid: -1, epoch: -1, seq: -1, values: vals("b", 1)})); p.ErrorCode != 0 {
		t.Fatal(p.ErrorCode)
	}
	waitState(t, c, "f1 copies", func() bool { return c.topics["t"].parts[0].logs[f1].leo == 3 })

	// The old leader's last advance not yet seen by f1: its own view is
	// one behind when it is elected.
	c.mu.Lock()
	pt := c.topics["t"].parts[0]
	pt.logs[f1].hw = 1
	c.electLocked(pt, f1)
	if pt.hw != 1 || pt.epochStart != 3 {
		c.mu.Unlock()
		t.Fatalf("new leader hw %d epoch start %d, want 1 and 3", pt.hw, pt.epochStart)
	}
	c.broadcastLocked()
	c.mu.Unlock()

	nc := dial(t, c.Addrs()[f1])
	lo := kmsg.NewPtrListOffsetsRequest()
	lo.SetVersion(4)
	lo.ReplicaID = -1
	lt := kmsg.NewListOffsetsRequestTopic()
	lt.Topic = "t"
	lp := kmsg.NewListOffsetsRequestTopicPartition()
	lp.CurrentLeaderEpoch, lp.Timestamp = -1, -1
	lt.Partitions = append(lt.Partitions, lp)
	lo.Topics = append(lo.Topics, lt)
	if p := nc.do(lo).(*kmsg.ListOffsetsResponse).Topics[0].Partitions[0]; p.ErrorCode != errOffsetNotAvailable {
		t.Fatalf("list offsets on the new leader: code %d offset %d", p.ErrorCode, p.Offset)
	}
	if p := fetchPart(nc, fetchAt("t", 0, 0, 12, -1)); p.ErrorCode != 0 || p.HighWatermark > 2 {
		t.Fatalf("fetch on the new leader: code %d hw %d", p.ErrorCode, p.HighWatermark)
	}
	if err := c.SetFollowerLag(f2, 0); err != nil {
		t.Fatal(err)
	}
	waitState(t, c, "the new leader's hw reaches its epoch start", func() bool { return c.topics["t"].parts[0].hw == 3 })
	if p := nc.do(lo).(*kmsg.ListOffsetsResponse).Topics[0].Partitions[0]; p.ErrorCode != 0 || p.Offset != 3 {
		t.Fatalf("list offsets after catching up: code %d offset %d", p.ErrorCode, p.Offset)
	}
}
