package sim

import "time"

// expiryLoop is Kafka's periodic producer expiry
// (producer.id.expiration.check.interval.ms): every interval, each running
// broker drops from every replica it hosts the producers whose last batch
// is stamped ProducerIDExpiration or longer ago — by record timestamp, so
// a producer writing records stamped long ago is forgotten at every check
// while it writes. It runs until the cluster closes.
func (c *Cluster) expiryLoop(every time.Duration) {
	defer c.loops.Done()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-c.closeCh:
			return
		case now := <-t.C:
			c.expireStamped(now)
		}
	}
}

// expireStamped takes c.mu and runs one expiry check on every
// running broker.
func (c *Cluster) expireStamped(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.expireStampedLocked(now, -1)
}

// expireStampedLocked runs one expiry check on broker only (-1: every
// running broker); the caller holds c.mu.
func (c *Cluster) expireStampedLocked(now time.Time, broker int32) {
	if c.closed {
		return
	}
	for _, name := range c.names {
		for _, pt := range c.topics[name].parts {
			for id, r := range pt.logs {
				if r != nil && c.isUp(id) && (broker < 0 || id == broker) {
					r.pstate.dropStamped(c.cfg.pidExpiration, now)
				}
			}
		}
	}
}
