package kafkatest

import (
	"net"
	"strconv"
	"testing"
)

func TestPortPool(t *testing.T) {
	for _, c := range []struct{ elo, ehi, lo, hi int }{
		{32768, 60999, 16384, 32768}, // Linux's default
		{49152, 65535, 32768, 49152}, // IANA's, the BSDs' and macOS's
		{1024, 40000, 40001, 56385},  // room only above
		{1024, 65535, 1024, 1024},    // no room: empty
		{2000, 3000, 3001, 19385},    // 976 below, 16384 above: above wins
	} {
		lo, hi := portPool(c.elo, c.ehi)
		if lo != c.lo || hi != c.hi {
			t.Errorf("portPool(%d, %d) = [%d, %d), want [%d, %d)", c.elo, c.ehi, lo, hi, c.lo, c.hi)
		}
	}
}

// TestFreePortsOutsideTheEphemeralRange: the ports a cluster's nodes keep
// for their restarts are ones no outgoing connection can be given.
func TestFreePortsOutsideTheEphemeralRange(t *testing.T) {
	elo, ehi := ephemeralRange()
	ports, err := freePorts(12)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range ports {
		if seen[p] {
			t.Fatalf("port %d handed out twice: %v", p, ports)
		}
		seen[p] = true
		if lo, hi := portPool(elo, ehi); hi-lo >= 64*12 && elo <= p && p <= ehi {
			t.Errorf("port %d lies in the ephemeral range %d-%d", p, elo, ehi)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			t.Fatalf("port %d not free after freePorts: %v", p, err)
		}
		_ = ln.Close()
	}
}
