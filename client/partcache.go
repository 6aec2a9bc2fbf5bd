package client

import (
	"sync"
	"sync/atomic"

	"github.com/rollsafe/rollsafe/batching"
	"github.com/rollsafe/rollsafe/protocol"
)

// partCache maps each topic to its partition count and the accumulator's
// ref of each of its partitions, so that producing a record looks its
// topic up once (one map read, no lock) rather than asking the metadata
// and then the accumulator by name. It is derived from one snapshot of the
// metadata's partition counts and dropped when the metadata publishes
// another (a topic grew, appeared or failed).
type partCache struct {
	cur atomic.Pointer[partTable]
	mu  sync.Mutex // serialises rebuilding cur
	// track: keep each partition's backlog (a BackupPartitioner is used).
	track bool
}

// partTable is immutable once published.
type partTable struct {
	counts *protocol.Counts
	topics map[string]*topicParts
}

// topicParts is one topic's partitions: refs[i] is partition i's, and
// backlog[i] its records accepted and not yet resolved (only when the
// cache tracks them; the counters, like the refs, outlive tables).
type topicParts struct {
	n       int32
	refs    []batching.PartitionRef
	backlog []*atomic.Int64
}

// Backlog implements Backlogs.
func (tp *topicParts) Backlog(partition int32) int64 {
	if int(partition) >= len(tp.backlog) {
		return 0
	}
	return tp.backlog[partition].Load()
}

// addBacklog counts n records accepted (n < 0: resolved) on partition.
func (tp *topicParts) addBacklog(partition int32, n int64) {
	if int(partition) < len(tp.backlog) {
		tp.backlog[partition].Add(n)
	}
}

// lookup returns topic's partitions, or nil if the metadata does not know
// the topic (without error).
func (c *partCache) lookup(meta *protocol.Metadata, acc *batching.Accumulator, topic string) *topicParts {
	counts := meta.Counts()
	if t := c.cur.Load(); t != nil && t.counts == counts {
		if tp := t.topics[topic]; tp != nil {
			return tp
		}
	}
	return c.add(counts, acc, topic)
}

// add publishes a table of counts holding topic (and the topics of the
// current table, if it is of the same counts).
func (c *partCache) add(counts *protocol.Counts, acc *batching.Accumulator, topic string) *topicParts {
	n, ok := counts.Partitions(topic)
	if !ok || n <= 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.cur.Load()
	if old != nil && old.counts == counts {
		if tp := old.topics[topic]; tp != nil {
			return tp
		}
	}
	// Carry the current table's topics over: as they are if it is of the
	// same counts, else re-counted (their refs kept; a topic the new counts
	// lack is left out).
	t := &partTable{counts: counts, topics: make(map[string]*topicParts)}
	if old != nil {
		for name, otp := range old.topics {
			if old.counts == counts {
				t.topics[name] = otp
			} else if on, ok := counts.Partitions(name); ok && on > 0 {
				t.topics[name] = newTopicParts(acc, name, on, otp, c.track)
			}
		}
	}
	tp := t.topics[topic]
	if tp == nil {
		tp = newTopicParts(acc, topic, n, nil, c.track)
		t.topics[topic] = tp
	}
	c.cur.Store(t)
	return tp
}

// newTopicParts returns topic's n partitions, reusing prev's refs and
// backlog counters (a partition's never change); track: with backlogs.
func newTopicParts(acc *batching.Accumulator, topic string, n int32, prev *topicParts, track bool) *topicParts {
	if prev != nil && prev.n == n {
		return prev
	}
	tp := &topicParts{n: n, refs: make([]batching.PartitionRef, n)}
	if track {
		tp.backlog = make([]*atomic.Int64, n)
	}
	for i := range tp.refs {
		if prev != nil && i < len(prev.refs) {
			tp.refs[i] = prev.refs[i]
			if track {
				tp.backlog[i] = prev.backlog[i]
			}
			continue
		}
		tp.refs[i] = acc.Ref(batching.TopicPartition{Topic: topic, Partition: int32(i)})
		if track {
			tp.backlog[i] = new(atomic.Int64)
		}
	}
	return tp
}

// resolved counts n records of tp resolved, for the backlogs.
func (p *Producer) resolved(tp batching.TopicPartition, n int) {
	if !p.parts.track || n == 0 {
		return
	}
	if t := p.parts.lookup(p.meta, p.acc, tp.Topic); t != nil {
		t.addBacklog(tp.Partition, -int64(n))
	}
}
