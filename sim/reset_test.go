package sim

import (
	"strings"
	"testing"
	"time"
)

// TestResetAfterResponse: the answered request is decided as usual (after
// its hold, if any), the connection is then reset, and a request pipelined
// behind it is never processed. With the expiry check, a producer whose records are stamped
// long ago is forgotten by that broker as it answers (a later batch with a
// gap is taken); one with recent stamps keeps its state.
func TestResetAfterResponse(t *testing.T) {
	for _, tc := range []struct {
		name      string
		expiring  bool
		hold      time.Duration
		opts      []Option
		gapTaken  bool // a batch after the lost one, on a new connection
		nextFault string
	}{
		{name: "plain", nextFault: "answered, connection reset 1ms after the answer"},
		{name: "held", hold: 30 * time.Millisecond, nextFault: "held 30ms, answered, connection reset 1ms after the answer"},
		{name: "expiring, stamped long ago", expiring: true, gapTaken: true,
			nextFault: "expiry check run, answered, connection reset 1ms after the answer"},
		{name: "expiring, recent stamps", expiring: true, opts: []Option{ProducerIDExpiration(stampedLongAgo)},
			nextFault: "expiry check run, answered, connection reset 1ms after the answer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestCluster(t, append([]Option{Topic("t", 1, 1)}, tc.opts...)...)
			if err := c.ResetAfterResponse("t", 0, 1, Reset{Hold: tc.hold, After: time.Millisecond, ExpiryCheck: tc.expiring}); err != nil {
				t.Fatal(err)
			}
			conn := dial(t, c.Addrs()[0])
			reqA := produceReq("t", 0, -1, makeBatch(t, spec{pid: 3, seq: 0, values: vals("a", 2)}))
			reqB := produceReq("t", 0, -1, makeBatch(t, spec{pid: 3, seq: 2, values: vals("b", 1)}))
			// A and B written in one go: B is in the socket buffer when A
			// is answered.
			frames := conn.fmt.AppendRequest(nil, reqA, 1)
			frames = conn.fmt.AppendRequest(frames, reqB, 2)
			if _, err := conn.nc.Write(frames); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			resp, err := conn.recv(reqA, 1, 5*time.Second)
			if err != nil {
				t.Fatalf("A: %v, want its answer", err)
			}
			if took := time.Since(start); took < tc.hold {
				t.Fatalf("A answered after %v, want at least the hold %v", took, tc.hold)
			}
			if p := respPartition(resp); p.ErrorCode != 0 || p.BaseOffset != 0 {
				t.Fatalf("A: code %d offset %d", p.ErrorCode, p.BaseOffset)
			}
			if _, err := conn.recv(reqB, 2, 5*time.Second); err == nil || isTimeout(err) {
				t.Fatalf("B: %v, want the connection reset", err)
			}
			if _, leo, _ := c.HighWatermark("t", 0); leo != 2 {
				t.Fatalf("log end %d, want 2: B was never processed", leo)
			}
			// Sequence 3 skips B's 2: taken only by a broker that forgot
			// the producer.
			p := dial(t, c.Addrs()[0]).produce("t", 0, -1, makeBatch(t, spec{pid: 3, seq: 3, values: vals("c", 1)}))
			if taken := p.ErrorCode == 0; taken != tc.gapTaken {
				t.Fatalf("a batch past a gap: code %d, want taken %v", p.ErrorCode, tc.gapTaken)
			}
			var faults []string
			for _, r := range c.Recorder().Produces() {
				if r.Fault != "" {
					faults = append(faults, r.Fault)
					if !strings.HasSuffix(r.Outcome, "then the connection reset") {
						t.Errorf("outcome %q", r.Outcome)
					}
				}
			}
			if len(faults) != 1 || faults[0] != tc.nextFault {
				t.Fatalf("faults recorded %q, want [%q]", faults, tc.nextFault)
			}
		})
	}
}
