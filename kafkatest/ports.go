package kafkatest

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// A node keeps its ports for the cluster's life: a killed or stopped
// node starts again on the same ones (the controller quorum names them).
// While it is down, any outgoing connection on the machine may be given
// one of them as its local port if they lie in the kernel's ephemeral
// range — and brokers, proxies and clients reconnect to the dead node
// many times a second — so the restart fails with "Address already in
// use" and the cluster is a node short. freePorts therefore picks ports
// outside that range, which only an explicit bind can take.

// freePorts reserves n distinct loopback ports outside the ephemeral
// range (see ephemeralRange) and releases them for the brokers to bind.
// Where the range leaves no room it falls back to ports the system picks.
func freePorts(n int) ([]int, error) {
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			_ = ln.Close()
		}
	}()
	ports := make([]int, 0, n)
	lo, hi := portPool(ephemeralRange())
	if hi-lo >= 64*n {
		// Start at a random place, so two harnesses on one machine
		// (another checkout, say) rarely probe the same ports.
		span := hi - lo
		start := rand.IntN(span)
		for i := 0; i < span && len(ports) < n; i++ {
			p := lo + (start+i)%span
			ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
			if err != nil {
				continue // in use
			}
			lns = append(lns, ln)
			ports = append(ports, p)
		}
	}
	for len(ports) < n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("kafkatest: free port: %w", err)
		}
		lns = append(lns, ln)
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// portPool returns [lo, hi): the ports freePorts picks from, given the
// ephemeral range [elo, ehi]: the largest stretch of non-privileged
// ports below or above it, at most 16384 ports next to it (well clear of
// the low ports well-known services use).
func portPool(elo, ehi int) (lo, hi int) {
	const most = 16384
	belowLo, belowHi := max(1024, elo-most), elo
	aboveLo, aboveHi := ehi+1, min(65536, ehi+1+most)
	if belowHi-belowLo >= aboveHi-aboveLo {
		return belowLo, max(belowLo, belowHi)
	}
	return aboveLo, max(aboveLo, aboveHi)
}

// ephemeralRange is the kernel's range of local ports for outgoing
// connections: Linux's ip_local_port_range, else IANA's 49152-65535
// (the BSDs' and macOS's default).
func ephemeralRange() (lo, hi int) {
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			l, err1 := strconv.Atoi(f[0])
			h, err2 := strconv.Atoi(f[1])
			if err1 == nil && err2 == nil && 0 < l && l <= h && h <= 65535 {
				return l, h
			}
		}
	}
	return 49152, 65535
}
