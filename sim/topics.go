package sim

import (
	"fmt"
	"slices"
)

// DeleteTopic deletes topic, as Kafka's DeleteTopics does: it leaves the
// metadata at once (UNKNOWN_TOPIC_OR_PARTITION to every request naming
// it), its logs and producer state go, and acks=all requests waiting on
// its partitions are answered UNKNOWN_TOPIC_OR_PARTITION. A request the
// brokers read before and process after a CreateTopic of the same name
// meets the new topic, as in Kafka (requests name topics, not ids, before
// Produce v13).
func (c *Cluster) DeleteTopic(topic string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	t := c.topics[topic]
	if t == nil {
		return fmt.Errorf("%w: topic %q", ErrUnknownTopic, topic)
	}
	for _, pt := range t.parts {
		pt.deleted, pt.leader = true, -1
		delete(c.sinkLEOs, tp{topic, pt.index})
	}
	delete(c.topics, topic)
	c.names = slices.DeleteFunc(c.names, func(n string) bool { return n == topic })
	c.broadcastLocked()
	return nil
}

// CreateTopic creates topic with partitions partitions of replication
// replicas (0: min(3, brokers)), as Kafka's CreateTopics does: a new
// topic id (Metadata v10+), empty logs, no producer state, and leader
// epochs from 0 — also for a name a deleted topic had. Its options
// (MinInsyncReplicas, CompactTopic) are the name's.
func (c *Cluster) CreateTopic(topic string, partitions int32, replication int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	if err := c.addTopic(topicSpec{name: topic, partitions: partitions, replication: replication}, c.rng.IntN(len(c.brokers)), c.rng); err != nil {
		return err
	}
	c.broadcastLocked()
	return nil
}

// TopicID returns topic's id, as Metadata v10+ answers it.
func (c *Cluster) TopicID(topic string) (id [16]byte, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.topics[topic]
	if t == nil {
		return id, false
	}
	return t.id, true
}
