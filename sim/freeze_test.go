package sim

import (
	"slices"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/compress"
)

// A frozen leader answers nothing, keeps its leadership until fenced, and,
// thawed, answers what waited on its connection as the deposed leader it
// now is.
func TestFreezeFenceThaw(t *testing.T) {
	c := newTestCluster(t, Brokers(3), Topic("t", 1, 3))
	leader, epoch := c.Leader("t", 0)
	if err := c.FreezeBroker(leader); err != nil {
		t.Fatal(err)
	}
	tc := dial(t, c.Addrs()[leader])
	raw := makeBatch(t, spec{pid: 9, seq: 0, codec: compress.None, values: vals("a", 3)})
	req := produceReq("t", 0, -1, raw)
	corr := tc.send(req)
	if _, err := tc.recv(req, corr, 200*time.Millisecond); !isTimeout(err) {
		t.Fatalf("a frozen broker answered: %v", err)
	}
	if l, _ := c.Leader("t", 0); l != leader {
		t.Fatalf("leader %d before the fence, want %d (frozen, not fenced)", l, leader)
	}
	if err := c.FenceBroker(leader); err != nil {
		t.Fatal(err)
	}
	next, nextEpoch := c.Leader("t", 0)
	if next == leader || next < 0 || nextEpoch <= epoch {
		t.Fatalf("after the fence: leader %d epoch %d (was %d, %d)", next, nextEpoch, leader, epoch)
	}
	if isr, _ := c.ISR("t", 0); slices.Contains(isr, leader) {
		t.Fatalf("fenced broker %d still in the ISR %v", leader, isr)
	}
	if err := c.ThawBroker(leader); err != nil {
		t.Fatal(err)
	}
	resp, err := tc.recv(req, corr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if p := respPartition(resp); p.ErrorCode != errNotLeaderOrFollower {
		t.Fatalf("thawed, the deposed leader answered %d, want NOT_LEADER_OR_FOLLOWER", p.ErrorCode)
	}
	waitState(t, c, "the thawed broker back in sync", inISR(c, "t", 0, leader))
}

// A process killed unnoticed stays leader and in sync until fenced.
func TestKillProcessUnnoticed(t *testing.T) {
	c := newTestCluster(t, Brokers(3), Topic("t", 1, 3))
	leader, epoch := c.Leader("t", 0)
	if err := c.KillProcessUnnoticed(leader); err != nil {
		t.Fatal(err)
	}
	if l, e := c.Leader("t", 0); l != leader || e != epoch {
		t.Fatalf("killed unnoticed: leader %d epoch %d, want %d %d", l, e, leader, epoch)
	}
	if err := c.FenceBroker(leader); err != nil {
		t.Fatal(err)
	}
	if l, _ := c.Leader("t", 0); l == leader || l < 0 {
		t.Fatalf("fenced: leader %d", l)
	}
	if err := c.StartBroker(leader); err != nil {
		t.Fatal(err)
	}
	waitState(t, c, "the restarted broker back in sync", inISR(c, "t", 0, leader))
}
