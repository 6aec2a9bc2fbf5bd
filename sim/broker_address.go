package sim

import (
	"fmt"
	"io"
	"net"
	"time"
)

// StartBrokerAt restarts a stopped broker listening at a new address
// ("127.0.0.1:0" for a fresh ephemeral port), as a replaced host or a
// rescheduled pod comes back: the same node id, a new host:port in
// metadata. It returns the new address. Otherwise it is StartBroker.
//
// The old address then refuses connections, as a restarted process's old
// port does — unless the broker vanished (VanishBroker): then the old
// address stays a black hole, as a host that is gone is, its connections
// open and silent and new ones accepted and never answered.
func (c *Cluster) StartBrokerAt(id int32, addr string) (string, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return "", ErrClosed
	}
	b, err := c.brokerLocked(id)
	if err != nil {
		c.mu.Unlock()
		return "", err
	}
	if b.up {
		c.mu.Unlock()
		return "", fmt.Errorf("%w: broker %d", ErrBrokerUp, id)
	}
	if addr == b.addr {
		c.mu.Unlock()
		return addr, c.StartBroker(id)
	}
	old, oldDone := b.ln, b.lnDone
	b.ln, b.addr = nil, addr
	if b.silent && old != nil {
		// The accept loop of old keeps holding what reaches it.
		b.ghosts = append(b.ghosts, old)
		old = nil
	}
	b.silent = false
	c.mu.Unlock()
	if old != nil {
		// The accept loop takes c.mu for each connection: wait for it
		// without holding the lock — for old's loop only: a ghost's
		// (an address the broker left vanished) keeps running.
		_ = old.Close()
		<-oldDone
	}
	if err := c.StartBroker(id); err != nil {
		return "", err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.log.Info("broker moved", "broker", id, "addr", b.addr)
	return b.addr, nil
}

// VanishBroker stops a broker as a host that disappears from the network
// does (a replaced machine, a node lost with its pod): for the cluster it is
// KillBroker — it leaves every ISR, its partitions elect new leaders, it
// loses its unreplicated tail — but nothing tells its clients. No RST, no
// FIN: its connections stay open and are never answered again (requests
// written to them just hang), and new connections to its address are
// accepted and never answered either. A client learns of it only from its
// own timeouts or from metadata. StartBrokerAt brings the node id back at a
// new address, leaving the old one silent; StartBroker brings it back at
// the same address, as a rebooted host resets the connections it no longer
// knows.
func (c *Cluster) VanishBroker(id int32) error { return c.stopBroker(id, stopVanish) }

// vanishLocked stops b without closing its connections: each serving
// goroutine hands its connection over to holdLocked as it ends (the read
// it is blocked in is woken by an expired deadline; a request being
// handled ends with the broker's context). The caller then waits on b.wg
// without holding c.mu.
func (b *broker) vanishLocked() {
	b.up, b.silent = false, true
	b.cancel()
	for nc := range b.conns {
		_ = nc.SetDeadline(time.Now())
	}
	b.c.log.Info("broker vanished", "broker", b.id, "addr", b.addr)
}

// holdLocked keeps nc open and reads and discards whatever arrives, until
// the client closes it, the broker comes back at addr, or the cluster
// closes. The caller holds c.mu.
func (b *broker) holdLocked(nc net.Conn, addr string) {
	if b.c.closed {
		_ = nc.Close()
		return
	}
	b.held[nc] = addr
	b.heldWG.Add(1)
	go func() {
		defer b.heldWG.Done()
		_ = nc.SetDeadline(time.Time{})
		_, _ = io.Copy(io.Discard, nc)
		_ = nc.Close()
		b.c.mu.Lock()
		delete(b.held, nc)
		b.c.mu.Unlock()
	}()
}

// resetHeldLocked closes the silent connections that reached addr: the
// host is back there and answers what it no longer knows with a reset.
func (b *broker) resetHeldLocked(addr string) {
	for nc, a := range b.held {
		if a == addr {
			if tc, ok := nc.(*net.TCPConn); ok {
				_ = tc.SetLinger(0)
			}
			_ = nc.Close()
			delete(b.held, nc)
		}
	}
}

// stoppedAct is what becomes of a request whose broker stopped while
// handling it: a vanished broker never answers and keeps the connection.
func (b *broker) stoppedAct() action {
	b.c.mu.Lock()
	defer b.c.mu.Unlock()
	if b.silent {
		return actSilent
	}
	return actClose
}
