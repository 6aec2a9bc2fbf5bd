package sim

import "slices"

// ProducerIDs returns, sorted, every producer id that some replica of some
// partition holds producer state for (the ids ExpireProducer can forget).
func (c *Cluster) ProducerIDs() []int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := map[int64]bool{}
	for _, t := range c.topics {
		for _, pt := range t.parts {
			for _, r := range pt.logs {
				for id := range r.pstate {
					seen[id] = true
				}
			}
		}
	}
	out := make([]int64, 0, len(seen))
	for id := range seen {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}
