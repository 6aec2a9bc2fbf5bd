package sim

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/compress"
)

// waitState waits, on the cluster's change notifications, until cond holds.
func waitState(t *testing.T, c *Cluster, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		c.mu.Lock()
		ok := cond()
		ch := c.changed
		c.mu.Unlock()
		if ok {
			return
		}
		if !waitChange(t.Context(), ch, deadline) && time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func inISR(c *Cluster, topic string, p, id int32) func() bool {
	return func() bool {
		return slices.Contains(c.topics[topic].parts[p].isr, id) && c.topics[topic].parts[p].logs[id].leo == c.topics[topic].parts[p].logs[c.topics[topic].parts[p].leader].leo
	}
}

func TestDropResponseAfterAppendRetryIsDeduplicated(t *testing.T) {
	c := newTestCluster(t, Brokers(3), Topic("t", 1, 3))
	leader, _ := c.Leader("t", 0)
	if err := c.DropResponses("t", 0, 1); err != nil {
		t.Fatal(err)
	}
	tc := dial(t, c.Addrs()[leader])
	raw := makeBatch(t, spec{pid: 9, seq: 0, codec: compress.LZ4, values: vals("a", 3)})
	req := produceReq("t", 0, -1, raw)
	corr := tc.send(req)
	if _, err := tc.recv(req, corr, 200*time.Millisecond); !isTimeout(err) {
		t.Fatalf("response not dropped: %v", err)
	}
	// The batch is in the log, so the retry (on a new connection, as a
	// client would) gets the original offset and nothing is written twice.
	tc2 := dial(t, c.Addrs()[leader])
	if p := tc2.produce("t", 0, -1, raw); p.ErrorCode != 0 || p.BaseOffset != 0 {
		t.Fatalf("retry: code %d offset %d", p.ErrorCode, p.BaseOffset)
	}
	if f := tc2.fetch("t", 0, 0, 0); f.hw != 3 || len(f.batches) != 1 {
		t.Fatalf("log: hw %d, %d batches", f.hw, len(f.batches))
	}
	prs := c.Recorder().Produces()
	if len(prs) != 2 || !prs[0].Appended || prs[0].Outcome != "dropped" || !prs[1].Duplicate || prs[1].Offset != 0 {
		t.Fatalf("recorded: %+v", prs)
	}
}

func TestDropResponseBeforeAppendLosesRequest(t *testing.T) {
	c := newTestCluster(t, Brokers(1), Topic("t", 1, 1))
	if err := c.DropRequests("t", 0, 1); err != nil {
		t.Fatal(err)
	}
	tc := dial(t, c.Addrs()[0])
	raw := makeBatch(t, spec{pid: 9, seq: 0, values: vals("a", 1)})
	req := produceReq("t", 0, 1, raw)
	corr := tc.send(req)
	if _, err := tc.recv(req, corr, 150*time.Millisecond); !isTimeout(err) {
		t.Fatalf("response not dropped: %v", err)
	}
	if _, leo, _ := c.HighWatermark("t", 0); leo != 0 {
		t.Fatalf("batch appended: leo %d", leo)
	}
	tc2 := dial(t, c.Addrs()[0])
	if p := tc2.produce("t", 0, 1, raw); p.ErrorCode != 0 || p.BaseOffset != 0 || c.Recorder().Produces()[1].Duplicate {
		t.Fatalf("retry: %+v", p)
	}
}

func TestCloseConnAfterAppend(t *testing.T) {
	c := newTestCluster(t, Brokers(1), Topic("t", 1, 1))
	if err := c.CloseConnAfterAppend("t", 0, 1); err != nil {
		t.Fatal(err)
	}
	tc := dial(t, c.Addrs()[0])
	raw := makeBatch(t, spec{pid: 9, seq: 0, values: vals("a", 2)})
	req := produceReq("t", 0, 1, raw)
	corr := tc.send(req)
	if _, err := tc.recv(req, corr, 5*time.Second); !errors.Is(err, io.EOF) {
		t.Fatalf("want EOF, got %v", err)
	}
	if _, leo, _ := c.HighWatermark("t", 0); leo != 2 {
		t.Fatalf("leo %d, want 2", leo)
	}
	if p := dial(t, c.Addrs()[0]).produce("t", 0, 1, raw); p.ErrorCode != 0 || p.BaseOffset != 0 {
		t.Fatalf("retry: %+v", p)
	}
}

func TestInjectErrorBeforeAndAfterAppend(t *testing.T) {
	c := newTestCluster(t, Brokers(1), Topic("t", 1, 1))
	tc := dial(t, c.Addrs()[0])
	_ = c.InjectError("t", 0, errNotLeaderOrFollower, 2)
	_ = c.InjectErrorAfterAppend("t", 0, errRequestTimedOut, 1)
	raw := makeBatch(t, spec{pid: 9, seq: 0, values: vals("a", 1)})
	for i, want := range []int16{errNotLeaderOrFollower, errNotLeaderOrFollower, errRequestTimedOut} {
		if p := tc.produce("t", 0, -1, raw); p.ErrorCode != want {
			t.Fatalf("attempt %d: code %d, want %d", i, p.ErrorCode, want)
		}
		_, leo, _ := c.HighWatermark("t", 0)
		if wantLEO := int64(0); i == 2 {
			wantLEO = 1
			if leo != wantLEO {
				t.Fatalf("after-append fault did not append: leo %d", leo)
			}
		} else if leo != wantLEO {
			t.Fatalf("before-append fault appended: leo %d", leo)
		}
	}
	if p := tc.produce("t", 0, -1, raw); p.ErrorCode != 0 || p.BaseOffset != 0 {
		t.Fatalf("retry after faults: %+v", p)
	}
}

func TestDelayResponses(t *testing.T) {
	c := newTestCluster(t, Brokers(1), Topic("t", 1, 1))
	tc := dial(t, c.Addrs()[0])
	if err := c.DelayResponses(0, 150*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	tc.produce("t", 0, 1, makeBatch(t, spec{pid: -1, epoch: -1, seq: -1, values: vals("a", 1)}))
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Fatalf("answered after %s", d)
	}
	_ = c.DelayResponses(0, 0)
	if err := c.DelayResponses(9, time.Second); !errors.Is(err, ErrUnknownBroker) {
		t.Fatalf("unknown broker: %v", err)
	}
}

func TestAcksAllWaitsForLaggingFollower(t *testing.T) {
	c := newTestCluster(t, Brokers(2), Topic("t", 1, 2))
	leader, _ := c.Leader("t", 0)
	follower := 1 - leader
	_ = c.SetFollowerLag(follower, 200*time.Millisecond)
	tc := dial(t, c.Addrs()[leader])
	start := time.Now()
	if p := tc.produce("t", 0, 1, makeBatch(t, spec{pid: -1, epoch: -1, seq: -1, values: vals("a", 1)})); p.ErrorCode != 0 {
		t.Fatal(p.ErrorCode)
	}
	if d := time.Since(start); d > 150*time.Millisecond {
		t.Fatalf("acks=1 took %s", d)
	}
	if hw, _, _ := c.HighWatermark("t", 0); hw != 0 {
		t.Fatalf("hw %d before the follower copied", hw)
	}
	if f := tc.fetch("t", 0, 0, 0); len(f.batches) != 0 {
		t.Fatal("fetch served a batch above the high watermark")
	}
	start = time.Now()
	if p := tc.produce("t", 0, -1, makeBatch(t, spec{pid: -1, epoch: -1, seq: -1, values: vals("b", 1)})); p.ErrorCode != 0 || p.BaseOffset != 1 {
		t.Fatal(p.ErrorCode)
	}
	if d := time.Since(start); d < 190*time.Millisecond {
		t.Fatalf("acks=-1 answered after %s, before the follower copied", d)
	}
	if hw, _, _ := c.HighWatermark("t", 0); hw != 2 {
		t.Fatalf("hw %d, want 2", hw)
	}
}

func TestMoveLeaderKeepsProducerState(t *testing.T) {
	c := newTestCluster(t, Brokers(3), Topic("t", 1, 3))
	l0, e0 := c.Leader("t", 0)
	tc := dial(t, c.Addrs()[l0])
	b1 := makeBatch(t, spec{pid: 3, seq: 0, values: vals("a", 2)})
	b2 := makeBatch(t, spec{pid: 3, seq: 2, values: vals("b", 2)})
	tc.produce("t", 0, -1, b1)
	tc.produce("t", 0, -1, b2)
	to := (l0 + 1) % 3
	if err := c.MoveLeader("t", 0, to); err != nil {
		t.Fatal(err)
	}
	if l, e := c.Leader("t", 0); l != to || e != e0+1 {
		t.Fatalf("leader %d epoch %d", l, e)
	}
	if p := tc.produce("t", 0, -1, b2); p.ErrorCode != errNotLeaderOrFollower {
		t.Fatalf("old leader: code %d", p.ErrorCode)
	}
	// The follower rebuilt producer state from what it replicated.
	tn := dial(t, c.Addrs()[to])
	if p := tn.produce("t", 0, -1, b1); p.ErrorCode != 0 || p.BaseOffset != 0 {
		t.Fatalf("retry of first batch: %+v", p)
	}
	if p := tn.produce("t", 0, -1, makeBatch(t, spec{pid: 3, seq: 5, values: vals("c", 1)})); p.ErrorCode != errOutOfOrderSequence {
		t.Fatalf("gap at new leader: code %d", p.ErrorCode)
	}
	if err := c.MoveLeader("t", 0, 7); !errors.Is(err, ErrUnknownBroker) {
		t.Fatalf("move to unknown broker: %v", err)
	}
}

func TestMoveLeaderFailsPendingAcksAllAndTruncates(t *testing.T) {
	c := newTestCluster(t, Brokers(2), Topic("t", 1, 2))
	l0, _ := c.Leader("t", 0)
	f := 1 - l0
	_ = c.SetFollowerLag(f, time.Hour)
	tc := dial(t, c.Addrs()[l0])
	raw := makeBatch(t, spec{pid: 4, seq: 0, values: vals("a", 2)})
	req := produceReq("t", 0, -1, raw)
	corr := tc.send(req)
	waitState(t, c, "append at the leader", func() bool { return c.topics["t"].parts[0].logs[l0].leo == 2 })
	if err := c.MoveLeader("t", 0, f); err != nil {
		t.Fatal(err)
	}
	resp, err := tc.recv(req, corr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if p := respPartition(resp); p.ErrorCode != errNotLeaderOrFollower {
		t.Fatalf("pending acks=-1: code %d", p.ErrorCode)
	}
	// The old leader's unreplicated batch was truncated; the retry at the
	// new leader writes it at the same offset, once.
	if rb, _ := c.ReplicaRecords("t", 0, l0); len(rb) != 0 {
		t.Fatalf("old leader kept %d batches", len(rb))
	}
	_ = c.SetFollowerLag(l0, 0)
	if p := dial(t, c.Addrs()[f]).produce("t", 0, -1, raw); p.ErrorCode != 0 || p.BaseOffset != 0 {
		t.Fatalf("retry at new leader: %+v", p)
	}
}

func TestUncleanElectReportsLostOffsets(t *testing.T) {
	c := newTestCluster(t, Brokers(2), Topic("t", 1, 2))
	l0, _ := c.Leader("t", 0)
	f := 1 - l0
	tc := dial(t, c.Addrs()[l0])
	tc.produce("t", 0, -1, makeBatch(t, spec{pid: 5, seq: 0, values: vals("kept", 2)}))
	waitState(t, c, "follower in sync", inISR(c, "t", 0, f))
	if err := c.PauseReplication("t", 0, f); err != nil {
		t.Fatal(err)
	}
	if isr, _ := c.ISR("t", 0); slices.Contains(isr, f) {
		t.Fatalf("paused follower still in ISR %v", isr)
	}
	// Acknowledged with acks=-1 by the shrunken ISR.
	for i, n := range []int{3, 4} {
		p := tc.produce("t", 0, -1, makeBatch(t, spec{pid: 5, seq: int32(2 + 3*i), values: vals("lost", n)}))
		if p.ErrorCode != 0 {
			t.Fatal(p.ErrorCode)
		}
	}
	lost, err := c.UncleanElect("t", 0, f)
	if err != nil {
		t.Fatal(err)
	}
	if len(lost) != 1 || lost[0] != (OffsetRange{From: 2, To: 9}) || lost[0].Len() != 7 {
		t.Fatalf("lost %v, want [{2 9}]", lost)
	}
	tn := dial(t, c.Addrs()[f])
	got := tn.fetch("t", 0, 0, 0)
	if got.hw != 2 || len(got.values) != 2 || got.values[0] != "kept-0" {
		t.Fatalf("after unclean election: hw %d values %v", got.hw, got.values)
	}
	// The old leader truncated too, and the offsets are reused.
	if rb, _ := c.ReplicaRecords("t", 0, l0); len(rb) != 1 {
		t.Fatalf("old leader holds %d batches", len(rb))
	}
	p := tn.produce("t", 0, -1, makeBatch(t, spec{pid: 6, seq: 0, values: vals("new", 1)}))
	if p.ErrorCode != 0 || p.BaseOffset != 2 {
		t.Fatalf("after election: %+v", p)
	}
	if v := tn.fetch("t", 0, 2, 0).values[2]; v != "new-0" {
		t.Fatalf("offset 2 holds %q", v)
	}
}

func TestStopStartBrokerShrinksDedupWindow(t *testing.T) {
	c := newTestCluster(t, Brokers(3), Topic("t", 1, 3), ProducerIDExpiration(stampedLongAgo)) // keeps the 1970-stamped producer over the restart
	l0, _ := c.Leader("t", 0)
	f := (l0 + 1) % 3
	tc := dial(t, c.Addrs()[l0])
	var batches [][]byte
	for i := 0; i < 3; i++ {
		raw := makeBatch(t, spec{pid: 8, seq: int32(i * 2), values: vals("a", 2)})
		batches = append(batches, raw)
		if p := tc.produce("t", 0, -1, raw); p.ErrorCode != 0 {
			t.Fatal(p.ErrorCode)
		}
	}
	waitState(t, c, "follower caught up", inISR(c, "t", 0, f))
	if err := c.StopBroker(f); err != nil {
		t.Fatal(err)
	}
	if err := c.StopBroker(f); !errors.Is(err, ErrBrokerDown) {
		t.Fatalf("second stop: %v", err)
	}
	if err := c.MoveLeader("t", 0, f); !errors.Is(err, ErrBrokerDown) {
		t.Fatalf("move to stopped broker: %v", err)
	}
	if err := c.StartBroker(f); err != nil {
		t.Fatal(err)
	}
	waitState(t, c, "restarted follower back in ISR", inISR(c, "t", 0, f))
	if err := c.MoveLeader("t", 0, f); err != nil {
		t.Fatal(err)
	}
	tn := dial(t, c.Addrs()[f])
	if p := tn.produce("t", 0, -1, batches[2]); p.ErrorCode != 0 || p.BaseOffset != 4 {
		t.Fatalf("retry of last batch: %+v", p)
	}
	// The snapshot kept only the last batch: an older retry is out of order.
	if p := tn.produce("t", 0, -1, batches[1]); p.ErrorCode != errOutOfOrderSequence {
		t.Fatalf("retry of second-last batch: code %d", p.ErrorCode)
	}
}

func TestLoseStateOnRestartAcceptsAnySequence(t *testing.T) {
	c := newTestCluster(t, Brokers(2), Topic("t", 1, 2), LoseStateOnRestart())
	l0, _ := c.Leader("t", 0)
	f := 1 - l0
	raw := makeBatch(t, spec{pid: 8, seq: 0, values: vals("a", 2)})
	dial(t, c.Addrs()[l0]).produce("t", 0, -1, raw)
	waitState(t, c, "follower caught up", inISR(c, "t", 0, f))
	_ = c.StopBroker(f)
	_ = c.StartBroker(f)
	waitState(t, c, "follower back", inISR(c, "t", 0, f))
	_ = c.MoveLeader("t", 0, f)
	// Without state the retry is not recognised: it is written again.
	if p := dial(t, c.Addrs()[f]).produce("t", 0, -1, raw); p.ErrorCode != 0 || p.BaseOffset != 2 {
		t.Fatalf("retry without state: %+v", p)
	}
}

func TestUncleanStopLosesUnreplicatedTail(t *testing.T) {
	c := newTestCluster(t, Brokers(2), Topic("t", 1, 2))
	l0, _ := c.Leader("t", 0)
	f := 1 - l0
	tc := dial(t, c.Addrs()[l0])
	tc.produce("t", 0, -1, makeBatch(t, spec{pid: -1, epoch: -1, seq: -1, values: vals("a", 1)}))
	_ = c.SetFollowerLag(f, time.Hour)
	tc.produce("t", 0, 1, makeBatch(t, spec{pid: -1, epoch: -1, seq: -1, values: vals("b", 1)}))
	if err := c.KillBroker(l0); err != nil {
		t.Fatal(err)
	}
	if l, _ := c.Leader("t", 0); l != f {
		t.Fatalf("leader %d, want %d", l, f)
	}
	if rb, _ := c.ReplicaRecords("t", 0, l0); len(rb) != 1 {
		t.Fatalf("stopped leader kept %d batches, want 1", len(rb))
	}
	if _, err := tc.recv(produceReq("t", 0, 1, nil), tc.send(produceReq("t", 0, 1, nil)), time.Second); err == nil {
		t.Fatal("stopped broker still answers")
	}
}

func TestOfflinePartitionAndRestart(t *testing.T) {
	c := newTestCluster(t, Brokers(2), Topic("t", 2, 1))
	l0, e0 := c.Leader("t", 0)
	other := 1 - l0
	_ = c.StopBroker(l0)
	if l, _ := c.Leader("t", 0); l != -1 {
		t.Fatalf("leader %d, want offline", l)
	}
	resp := dial(t, c.Addrs()[other]).do(metadataAll()).(*metadataResp)
	var code int16 = -1
	for _, mt := range resp.Topics {
		code = mt.Partitions[0].ErrorCode
		if len(resp.Brokers) != 1 {
			t.Fatalf("%d brokers listed", len(resp.Brokers))
		}
	}
	if code != errLeaderNotAvailable {
		t.Fatalf("partition code %d", code)
	}
	if err := c.StartBroker(l0); err != nil {
		t.Fatal(err)
	}
	if l, e := c.Leader("t", 0); l != l0 || e <= e0 {
		t.Fatalf("after restart: leader %d epoch %d", l, e)
	}
	if p := dial(t, c.Addrs()[l0]).produce("t", 0, 1, makeBatch(t, spec{pid: -1, epoch: -1, seq: -1, values: vals("a", 1)})); p.ErrorCode != 0 {
		t.Fatalf("produce after restart: %d", p.ErrorCode)
	}
}

func TestExpireProducer(t *testing.T) {
	c := newTestCluster(t, Brokers(1), Topic("t", 1, 1))
	tc := dial(t, c.Addrs()[0])
	tc.produce("t", 0, 1, makeBatch(t, spec{pid: 7, seq: 0, values: vals("a", 1)}))
	if p := tc.produce("t", 0, 1, makeBatch(t, spec{pid: 7, seq: 10, values: vals("a", 1)})); p.ErrorCode != errOutOfOrderSequence {
		t.Fatalf("gap before expiry: %d", p.ErrorCode)
	}
	c.ExpireProducer(7)
	if p := tc.produce("t", 0, 1, makeBatch(t, spec{pid: 7, seq: 10, values: vals("a", 1)})); p.ErrorCode != 0 {
		t.Fatalf("after expiry: %d", p.ErrorCode)
	}
}

func TestExpireIdleProducers(t *testing.T) {
	c := newTestCluster(t, Brokers(1), Topic("t", 1, 1))
	tc := dial(t, c.Addrs()[0])
	tc.produce("t", 0, 1, makeBatch(t, spec{pid: 7, seq: 0, values: vals("a", 1)}))
	time.Sleep(30 * time.Millisecond)
	tc.produce("t", 0, 1, makeBatch(t, spec{pid: 8, seq: 0, values: vals("a", 1)}))
	// 8 wrote just now: kept; 7 idle for 30ms: expired.
	if got := c.ExpireIdleProducers(20 * time.Millisecond); len(got) != 1 || got[0] != 7 {
		t.Fatalf("expired %v, want [7]", got)
	}
	if p := tc.produce("t", 0, 1, makeBatch(t, spec{pid: 8, seq: 10, values: vals("a", 1)})); p.ErrorCode != errOutOfOrderSequence {
		t.Fatalf("active producer lost its state: %d", p.ErrorCode)
	}
	if p := tc.produce("t", 0, 1, makeBatch(t, spec{pid: 7, seq: 10, values: vals("a", 1)})); p.ErrorCode != 0 {
		t.Fatalf("idle producer kept its state: %d", p.ErrorCode)
	}
}

func TestRecorderDump(t *testing.T) {
	c := newTestCluster(t, Brokers(1), Topic("t", 1, 1))
	tc := dial(t, c.Addrs()[0])
	for seq := int32(0); seq < 3; seq++ {
		tc.produce("t", 0, 1, makeBatch(t, spec{pid: 2, seq: seq * 2, values: vals("a", 2)}))
	}
	tc.produce("t", 0, 1, makeBatch(t, spec{pid: 2, seq: 9, values: vals("a", 1)}))
	prs := c.Recorder().Produces()
	if len(prs) != 4 {
		t.Fatalf("%d produce records", len(prs))
	}
	// The kind of assertion a client test makes: find every sequence gap.
	var gaps []int32
	next := int32(0)
	for _, p := range prs {
		if p.BaseSequence != next {
			gaps = append(gaps, p.BaseSequence)
		}
		if p.ErrorCode == 0 {
			next = p.BaseSequence + p.NumRecords
		}
	}
	if len(gaps) != 1 || gaps[0] != 9 || prs[3].ErrorCode != errOutOfOrderSequence {
		t.Fatalf("gaps %v, last %+v", gaps, prs[3])
	}
	var sb strings.Builder
	if err := c.Recorder().Dump(&sb); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sb.String(), "Produce v9") || !strings.Contains(sb.String(), "seq=9 n=1 acks=1 err=45") {
		t.Fatalf("dump:\n%s", sb.String())
	}
	c.Recorder().Reset()
	if len(c.Recorder().Exchanges()) != 0 {
		t.Fatal("reset kept exchanges")
	}
}

func TestPendingFaultsCountsStrikesLeft(t *testing.T) {
	c, err := NewCluster(Brokers(1), Topic("t", 1, 1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.InjectError("t", 0, 45, 2); err != nil {
		t.Fatal(err)
	}
	if err := c.DropResponses("t", 0, 1); err != nil {
		t.Fatal(err)
	}
	if n, err := c.PendingFaults("t", 0); err != nil || n != 3 {
		t.Fatalf("PendingFaults = %d, %v; want 3", n, err)
	}
	if err := c.ClearFaults("t", 0); err != nil {
		t.Fatal(err)
	}
	if n, _ := c.PendingFaults("t", 0); n != 0 {
		t.Fatalf("PendingFaults after ClearFaults = %d", n)
	}
	if _, err := c.PendingFaults("nope", 0); err == nil {
		t.Fatal("PendingFaults of an unknown topic: no error")
	}
}

// TestCutPowerLosesWhatOnlyTheLeaderHeld: a leader alone in the ISR
// acknowledges acks=all writes its follower never copied; a power cut
// takes them, and it leads again without them (the last leader). Kill -9
// keeps them; KillBroker (the tail above the high watermark) loses none.
func TestCutPowerLosesWhatOnlyTheLeaderHeld(t *testing.T) {
	for _, tc := range []struct {
		name string
		stop func(*Cluster, int32) error
		keep int
	}{
		{"power cut", (*Cluster).CutPower, 1},
		{"host crash", (*Cluster).KillBroker, 2},
		{"kill -9", (*Cluster).KillProcess, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestCluster(t, Brokers(2), Topic("t", 1, 2))
			l0, _ := c.Leader("t", 0)
			f := 1 - l0
			conn := dial(t, c.Addrs()[l0])
			if p := conn.produce("t", 0, -1, makeBatch(t, spec{pid: -1, epoch: -1, seq: -1, values: vals("a", 1)})); p.ErrorCode != 0 {
				t.Fatalf("first: %+v", p)
			}
			waitState(t, c, "follower caught up", inISR(c, "t", 0, f))
			if err := c.PauseReplication("t", 0, f); err != nil {
				t.Fatal(err)
			}
			if p := conn.produce("t", 0, -1, makeBatch(t, spec{pid: -1, epoch: -1, seq: -1, values: vals("b", 1)})); p.ErrorCode != 0 || p.BaseOffset != 1 {
				t.Fatalf("acks=all with the leader alone in the ISR: %+v", p)
			}
			if err := tc.stop(c, l0); err != nil {
				t.Fatal(err)
			}
			if err := c.StartBroker(l0); err != nil {
				t.Fatal(err)
			}
			if l, _ := c.Leader("t", 0); l != l0 {
				t.Fatalf("leader %d, want the last leader %d back", l, l0)
			}
			if rb, _ := c.ReplicaRecords("t", 0, l0); len(rb) != tc.keep {
				t.Fatalf("the leader kept %d batches, want %d", len(rb), tc.keep)
			}
			if hw, leo, _ := c.HighWatermark("t", 0); hw > leo || leo != int64(tc.keep) {
				t.Fatalf("high watermark %d, log end %d after the restart", hw, leo)
			}
		})
	}
}
