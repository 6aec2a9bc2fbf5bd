package sim

import (
	"strings"
	"testing"
	"time"
)

func lateExchanges(c *Cluster) int {
	n := 0
	for _, e := range c.Recorder().Exchanges() {
		if strings.HasPrefix(e.Outcome, "processed after the connection dropped") {
			n++
		}
	}
	return n
}

// TestProcessAfterDisconnect: the connection drops once the request is
// read; the request is still processed, its response lost, and a request
// pipelined behind it is lost with the connection. A retry on a new
// connection, before or after the late append, is deduplicated.
func TestProcessAfterDisconnect(t *testing.T) {
	c := newTestCluster(t, Topic("t", 1, 1))
	if err := c.ProcessAfterDisconnect("t", 0, 1, 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	a := makeBatch(t, spec{pid: 3, seq: 0, values: vals("a", 2)})
	tc := dial(t, c.Addrs()[0])
	reqA := produceReq("t", 0, -1, a)
	// A and B written in one go: B is in the socket buffer when A is read.
	frames := tc.fmt.AppendRequest(nil, reqA, 1)
	frames = tc.fmt.AppendRequest(frames, produceReq("t", 0, -1, makeBatch(t, spec{pid: 3, seq: 2, values: vals("b", 1)})), 2)
	tc.corr = 2
	corr := int32(1)
	if _, err := tc.nc.Write(frames); err != nil {
		t.Fatal(err)
	}
	if _, err := tc.recv(reqA, corr, 5*time.Second); err == nil || isTimeout(err) {
		t.Fatalf("got %v, want the connection dropped", err)
	}
	// The client retries A on a new connection: deduplicated or first.
	if p := dial(t, c.Addrs()[0]).produce("t", 0, -1, a); p.ErrorCode != 0 || p.BaseOffset != 0 {
		t.Fatalf("retry: code %d offset %d", p.ErrorCode, p.BaseOffset)
	}
	for deadline := time.Now().Add(5 * time.Second); lateExchanges(c) != 1; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the late request was never processed")
		}
	}
	if _, leo, _ := c.HighWatermark("t", 0); leo != 2 {
		t.Fatalf("log end %d, want 2: A once, B lost with the connection", leo)
	}
	var late, dup int
	for _, p := range c.Recorder().Produces() {
		if strings.HasPrefix(p.Fault, "connection dropped once read") {
			late++
			if !strings.HasPrefix(p.Outcome, "lost") {
				t.Errorf("late produce outcome %q", p.Outcome)
			}
		}
		if p.Duplicate {
			dup++
		}
	}
	if late != 1 || dup != 1 {
		t.Fatalf("%d late produces, %d duplicates; want 1 and 1", late, dup)
	}
}

// TestDelayProcessingLandsAfterClientGaveUp: a held request is appended
// after the client timed out and closed the connection; a request it had
// pipelined behind is still processed, in order, as Kafka does for a
// connection closed by the client.
func TestDelayProcessingLandsAfterClientGaveUp(t *testing.T) {
	c := newTestCluster(t, Topic("t", 1, 1))
	if err := c.DelayProcessing("t", 0, 1, 200*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	tc := dial(t, c.Addrs()[0])
	reqA := produceReq("t", 0, 1, makeBatch(t, spec{pid: 4, seq: 0, values: vals("a", 1)}))
	corr := tc.send(reqA)
	tc.send(produceReq("t", 0, 1, makeBatch(t, spec{pid: 4, seq: 1, values: vals("b", 1)})))
	if _, err := tc.recv(reqA, corr, 20*time.Millisecond); !isTimeout(err) {
		t.Fatalf("got %v, want the client's own timeout", err)
	}
	_ = tc.nc.Close()
	waitState(t, c, "both batches land", func() bool { return c.topics["t"].parts[0].logs[0].leo == 2 })
	held := 0
	for _, p := range c.Recorder().Produces() {
		if strings.HasPrefix(p.Fault, "held") {
			held++
			if !p.Appended || p.Offset != 0 {
				t.Errorf("held produce: %+v", p)
			}
		}
	}
	if held != 1 {
		t.Fatalf("%d held produces", held)
	}
	if n, _ := c.PendingFaults("t", 0); n != 0 {
		t.Fatalf("%d strikes left", n)
	}
}

// TestLateFaultsWaitTheirTurn: a late fault behind an error fault strikes
// the request after the one the error answers.
func TestLateFaultsWaitTheirTurn(t *testing.T) {
	c := newTestCluster(t, Topic("t", 1, 1))
	if err := c.InjectError("t", 0, errNotLeaderOrFollower, 1); err != nil {
		t.Fatal(err)
	}
	if err := c.ProcessAfterDisconnect("t", 0, 1, 0); err != nil {
		t.Fatal(err)
	}
	tc := dial(t, c.Addrs()[0])
	b := makeBatch(t, spec{pid: 5, seq: 0, values: vals("a", 1)})
	if p := tc.produce("t", 0, 1, b); p.ErrorCode != errNotLeaderOrFollower {
		t.Fatalf("first: code %d", p.ErrorCode)
	}
	req := produceReq("t", 0, 1, b)
	if _, err := tc.recv(req, tc.send(req), 5*time.Second); err == nil || isTimeout(err) {
		t.Fatalf("second: %v, want the connection dropped", err)
	}
	waitState(t, c, "the late request is processed", func() bool { return c.topics["t"].parts[0].logs[0].leo == 1 })
}
