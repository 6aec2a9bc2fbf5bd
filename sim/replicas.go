package sim

import "slices"

// Replicas returns the partition's replica assignment, the preferred
// (first) leader first.
func (c *Cluster) Replicas(topic string, p int32) ([]int32, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	pt, err := c.partitionLocked(topic, p)
	if err != nil {
		return nil, err
	}
	return slices.Clone(pt.replicas), nil
}
