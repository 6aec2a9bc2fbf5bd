package sim

// PendingFaults returns how many strikes of produce faults (InjectError,
// DropResponses, CloseConnAfterAppend) wait for topic/p's next produce
// requests: 0 once every fault queued on the partition has struck.
func (c *Cluster) PendingFaults(topic string, p int32) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	pt, err := c.partitionLocked(topic, p)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, f := range pt.faults {
		n += f.n
	}
	return n, nil
}
