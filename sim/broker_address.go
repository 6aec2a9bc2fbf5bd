package sim

import "fmt"

// StartBrokerAt restarts a stopped broker listening at a new address
// ("127.0.0.1:0" for a fresh ephemeral port), as a replaced host or a
// rescheduled pod comes back: the same node id, a new host:port in
// metadata, and the old address refusing connections from then on. It
// returns the new address. Otherwise it is StartBroker.
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
	old := b.ln
	b.ln, b.addr = nil, addr
	c.mu.Unlock()
	if old != nil {
		// The accept loop takes c.mu for each connection: wait for it
		// without holding the lock.
		_ = old.Close()
		b.lnWG.Wait()
	}
	if err := c.StartBroker(id); err != nil {
		return "", err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.log.Info("broker moved", "broker", id, "addr", b.addr)
	return b.addr, nil
}
