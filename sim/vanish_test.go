package sim

import (
	"errors"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestVanishBrokerKeepsConnectionsSilent: a vanished broker's open
// connections and new connections to its address are neither answered nor
// closed, also after the node id came back at a new address; the cluster
// goes on without it (new leaders), and metadata names the new address.
func TestVanishBrokerKeepsConnectionsSilent(t *testing.T) {
	c := newTestCluster(t, Brokers(3), Topic("t", 3, 3))
	old := c.Addrs()[0]
	idle := dial(t, old)
	busy := dial(t, old)
	busy.do(metadataAll())
	// A fetch waiting at the broker when it vanishes.
	waiting := fetchReq("t", 0, 0, 5*time.Second)
	waiting.MinBytes = 1 << 20
	corr := busy.send(waiting)
	time.Sleep(50 * time.Millisecond)
	if err := c.VanishBroker(0); err != nil {
		t.Fatal(err)
	}
	if err := c.VanishBroker(0); !errors.Is(err, ErrBrokerDown) {
		t.Fatalf("vanishing a stopped broker: %v", err)
	}
	for p := int32(0); p < 3; p++ {
		if l, _ := c.Leader("t", p); l == 0 {
			t.Fatalf("t/%d still led by the vanished broker", p)
		}
	}
	if _, err := busy.recv(waiting, corr, 300*time.Millisecond); !isTimeout(err) {
		t.Fatalf("the request in progress was answered or its connection closed: %v", err)
	}
	md := metadataAll()
	if _, err := idle.recv(md, idle.send(md), 300*time.Millisecond); !isTimeout(err) {
		t.Fatalf("an open connection answered or closed: %v", err)
	}
	fresh := dial(t, old)
	if _, err := fresh.recv(md, fresh.send(md), 300*time.Millisecond); !isTimeout(err) {
		t.Fatalf("a new connection to the vanished address answered or closed: %v", err)
	}

	addr, err := c.StartBrokerAt(0, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if addr == old {
		t.Fatalf("came back at its old address %s", addr)
	}
	if got := dial(t, addr).do(metadataAll()).(*kmsg.MetadataResponse); brokerAddr(got, 0) != addr {
		t.Fatalf("metadata lists broker 0 at %s, want %s", brokerAddr(got, 0), addr)
	}
	for _, tc := range []*testConn{idle, fresh, dial(t, old)} {
		if _, err := tc.recv(md, tc.send(md), 200*time.Millisecond); !isTimeout(err) {
			t.Fatalf("the old address answered or closed after the move: %v", err)
		}
	}
}

// TestVanishBrokerBackAtSameAddress: a vanished host rebooted at its old
// address resets the connections it no longer knows, and serves new ones.
func TestVanishBrokerBackAtSameAddress(t *testing.T) {
	c := newTestCluster(t, Brokers(2), Topic("t", 1, 2))
	addr := c.Addrs()[1]
	held := dial(t, addr)
	held.do(metadataAll())
	if err := c.VanishBroker(1); err != nil {
		t.Fatal(err)
	}
	md := metadataAll()
	corr := held.send(md)
	if err := c.StartBroker(1); err != nil {
		t.Fatal(err)
	}
	if _, err := held.recv(md, corr, 2*time.Second); err == nil || isTimeout(err) {
		t.Fatalf("a connection held while vanished survived the reboot: %v", err)
	}
	if got := dial(t, addr).do(metadataAll()).(*kmsg.MetadataResponse); len(got.Brokers) != 2 {
		t.Fatalf("the rebooted broker answers with %d brokers", len(got.Brokers))
	}
}

func brokerAddr(md *kmsg.MetadataResponse, id int32) string {
	for _, b := range md.Brokers {
		if b.NodeID == id {
			return net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port)))
		}
	}
	return ""
}
