package kafkatest

import "context"

// Restore undoes every fault a test may have left: each broker's proxies
// heal, a paused broker resumes, a stopped one starts again; then every
// topic waits for a full ISR and its preferred leaders take their
// partitions back. Tests sharing one cluster call it between scenarios.
func (c *Cluster) Restore(ctx context.Context, topics ...string) error {
	for id := range int32(c.Brokers()) {
		c.Proxy(id).Heal()
		if c.Paused(id) {
			if err := c.Resume(id); err != nil {
				return err
			}
		}
		if !c.Running(id) {
			if err := c.Start(ctx, id); err != nil {
				return err
			}
		}
	}
	for _, topic := range topics {
		if err := c.WaitHealthy(ctx, topic); err != nil {
			return err
		}
		if err := c.ElectPreferredWait(ctx, topic); err != nil {
			return err
		}
	}
	return nil
}
