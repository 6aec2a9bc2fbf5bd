// Package memnet is an in-memory network for deterministic tests: listeners
// and connections that live in the process, deliver every write after a
// latency drawn from a seed, the write's virtual time and its bytes, and
// block only on channels and timers — so inside a testing/synctest bubble
// the virtual clock runs them, and one seed gives one timing.
//
// A sim cluster listens on it with sim.Network and a producer dials it with
// client.Dialer(n.Dial):
//
//	n := memnet.New(seed)
//	c, _ := sim.NewCluster(sim.Network(n))
//	p, _ := client.NewProducer(client.Brokers(c.Addrs()...), client.Dialer(n.Dial))
//
// Connections behave like TCP where a Kafka client can tell: bytes arrive
// in order, a close delivers what was written before it and then EOF, a
// write to a connection its peer closed fails with ECONNRESET, a dial to an
// address nobody listens on fails with ECONNREFUSED. Writes never block
// (the buffer is unbounded).
//
// See docs/architecture.md ("Deterministic simulation") in the repository.
package memnet

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// Network is one in-memory network. It is safe for concurrent use, and its
// listeners and connections must be used inside the synctest bubble (if
// any) that created them.
type Network struct {
	seed           uint64
	minLat, maxLat time.Duration

	trace func(string)

	mu        sync.Mutex
	listeners map[string]*listener
	nextPort  int // the last port Listen gave out
}

// Option configures a Network.
type Option func(*Network)

// Latency sets the range one write's delivery takes (default 50µs to 2ms).
func Latency(lo, hi time.Duration) Option {
	return func(n *Network) {
		n.minLat, n.maxLat = max(lo, 0), max(hi, lo, 0)
	}
}

// Trace has every write, dial and close reported to f (for debugging a
// simulation: two runs of one seed give the same report).
func Trace(f func(string)) Option { return func(n *Network) { n.trace = f } }

// New returns an empty network whose latencies derive from seed.
func New(seed uint64, opts ...Option) *Network {
	n := &Network{seed: seed, minLat: 50 * time.Microsecond, maxLat: 2 * time.Millisecond,
		listeners: map[string]*listener{}, nextPort: 20000}
	for _, o := range opts {
		if o != nil {
			o(n)
		}
	}
	return n
}

// latency is how long b, written at now from side to addr, takes to arrive:
// a function of the seed, the time, the address, the direction and the
// bytes only — never of the order in which goroutines wrote — at
// nanosecond grain, so two deliveries almost never share an instant.
func (n *Network) latency(now time.Time, addr string, dir byte, b []byte) time.Duration {
	h := fnv.New64a()
	var hdr [17]byte
	binary.LittleEndian.PutUint64(hdr[0:], n.seed)
	binary.LittleEndian.PutUint64(hdr[8:], uint64(now.UnixNano()))
	hdr[16] = dir
	h.Write(hdr[:])
	h.Write([]byte(addr))
	var ln [8]byte
	binary.LittleEndian.PutUint64(ln[:], uint64(len(b)))
	h.Write(ln[:])
	h.Write(b[:min(len(b), 512)])
	span := int64(n.maxLat - n.minLat)
	if span <= 0 {
		return n.minLat
	}
	return n.minLat + time.Duration(h.Sum64()%uint64(span+1))
}

// Listen listens on addr ("host:port"; port 0 takes the next free port).
func (n *Network) Listen(addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("memnet: listen %q: %w", addr, err)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if port == "0" || port == "" {
		for {
			n.nextPort++
			addr = net.JoinHostPort(host, strconv.Itoa(n.nextPort))
			if n.listeners[addr] == nil {
				break
			}
		}
	} else if n.listeners[addr] != nil {
		return nil, &net.OpError{Op: "listen", Net: "tcp", Addr: tcpAddr(addr), Err: syscall.EADDRINUSE}
	}
	l := &listener{n: n, addr: addr, wake: make(chan struct{}, 1), done: make(chan struct{})}
	n.listeners[addr] = l
	return l, nil
}

// Dial connects to addr. It fails with ECONNREFUSED when nothing listens
// there, and takes one latency (the connection handshake).
func (n *Network) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	n.mu.Lock()
	l := n.listeners[addr]
	n.mu.Unlock()
	if l == nil {
		return nil, &net.OpError{Op: "dial", Net: network, Addr: tcpAddr(addr), Err: syscall.ECONNREFUSED}
	}
	if n.trace != nil {
		n.trace(fmt.Sprintf("%d dial %s", time.Now().UnixNano(), addr))
	}
	t := time.NewTimer(n.latency(time.Now(), addr, 'd', nil))
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return nil, &net.OpError{Op: "dial", Net: network, Addr: tcpAddr(addr), Err: ctx.Err()}
	}
	c2s, s2c := newStream(), newStream()
	// The client's port is a function of the time and address, as the
	// latencies are (a counter would number racing dials by chance).
	port := 40000 + int(n.latency(time.Now(), addr, 'p', nil)%20000)
	local := tcpAddr(net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	remote := tcpAddr(addr)
	client := &conn{n: n, in: s2c, out: c2s, local: local, remote: remote, key: addr, dir: 'c'}
	server := &conn{n: n, in: c2s, out: s2c, local: remote, remote: local, key: addr, dir: 's'}
	if !l.enqueue(server) {
		return nil, &net.OpError{Op: "dial", Net: network, Addr: remote, Err: syscall.ECONNREFUSED}
	}
	return client, nil
}

func tcpAddr(addr string) *net.TCPAddr {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return &net.TCPAddr{}
	}
	return net.TCPAddrFromAddrPort(ap)
}

// listener is a Listen'd address.
type listener struct {
	n    *Network
	addr string

	mu      sync.Mutex
	pending []*conn
	closed  bool
	wake    chan struct{}
	done    chan struct{}
}

func (l *listener) enqueue(c *conn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return false
	}
	l.pending = append(l.pending, c)
	signal(l.wake)
	return true
}

func (l *listener) Accept() (net.Conn, error) {
	for {
		l.mu.Lock()
		if l.closed {
			l.mu.Unlock()
			return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: l.Addr(), Err: net.ErrClosed}
		}
		if len(l.pending) > 0 {
			c := l.pending[0]
			l.pending = l.pending[1:]
			l.mu.Unlock()
			return c, nil
		}
		l.mu.Unlock()
		select {
		case <-l.wake:
		case <-l.done:
		}
	}
}

// Close stops listening: the address is free again, and connections not
// yet accepted are reset.
func (l *listener) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	pending := l.pending
	l.pending = nil
	close(l.done)
	l.mu.Unlock()
	for _, c := range pending {
		_ = c.Close()
	}
	l.n.mu.Lock()
	if l.n.listeners[l.addr] == l {
		delete(l.n.listeners, l.addr)
	}
	l.n.mu.Unlock()
	return nil
}

func (l *listener) Addr() net.Addr { return tcpAddr(l.addr) }

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
