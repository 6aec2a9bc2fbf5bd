package protocol

import "github.com/rollsafe/rollsafe/kafkaerr"

// Snapshot is a Metadata view's state at one moment: the brokers by id
// and, for each topic asked about, its error, its incarnation and each
// partition's leader and leader epoch. It never changes, so its holder may
// read it without a lock; a later change of the view is a later Snapshot,
// with a greater Seq. A nil *Snapshot knows nothing.
type Snapshot struct {
	seq     uint64
	brokers map[int32]string      // never written once published
	topics  map[string]*topicMeta // each never written once published
	incs    map[string]uint64     // each topic name's incarnation (0 if missing)
}

// LeaderHint is a partition's leader as a response named it outside a
// metadata refresh (KIP-951: produce and fetch responses name the new
// leader and its endpoint). Addr ("host:port"), if not empty, is the
// leader's address.
type LeaderHint struct {
	Topic       string
	Partition   int32
	Leader      int32
	LeaderEpoch int32
	Addr        string
}

// Seq orders a view's snapshots: a greater one is newer (0 for nil).
func (s *Snapshot) Seq() uint64 {
	if s == nil {
		return 0
	}
	return s.seq
}

// LeaderIn is Metadata.LeaderIn as of the snapshot.
func (s *Snapshot) LeaderIn(topic string, partition int32) (brokerID, leaderEpoch int32, incarnation uint64, err error) {
	if s == nil {
		return -1, -1, 0, &UnknownTopicError{Topic: topic, Partition: -1}
	}
	brokerID, leaderEpoch, err = leaderOf(s.topics, topic, partition)
	return brokerID, leaderEpoch, s.incs[topic], err
}

// Partitions is Metadata.Partitions as of the snapshot.
func (s *Snapshot) Partitions(topic string) (int32, error) {
	var topics map[string]*topicMeta
	if s != nil {
		topics = s.topics
	}
	tm, err := topicOf(topics, topic)
	if err != nil {
		return 0, err
	}
	return int32(len(tm.parts)), nil
}

// Broker is Metadata.Broker as of the snapshot.
func (s *Snapshot) Broker(id int32) (addr string, ok bool) {
	if s == nil {
		return "", false
	}
	addr, ok = s.brokers[id]
	return addr, ok
}

// Snapshot returns the view's current state.
func (m *Metadata) Snapshot() *Snapshot {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.snap
}

// Watch registers f, called with the view's new Snapshot after every
// refresh it applies (not after ApplyLeaderHints, whose caller gets it).
// f runs with the view locked, so it sees the snapshots in order and
// before anyone can read the refresh's outcome from the view (Partitions,
// Counts, Leader): f must not block, nor call m.
func (m *Metadata) Watch(f func(*Snapshot)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.watchers = append(m.watchers, f)
}

// publishLocked takes a snapshot of the view, hands it to the watchers if
// tell, and publishes the partition counts. m.mu is held for writing.
func (m *Metadata) publishLocked(tell bool) *Snapshot {
	s := &Snapshot{
		seq:     m.snap.Seq() + 1,
		brokers: m.brokers,
		topics:  make(map[string]*topicMeta, len(m.topics)),
		incs:    make(map[string]uint64, len(m.lines)),
	}
	for name, tm := range m.topics {
		s.topics[name] = tm
	}
	for name, l := range m.lines {
		if !l.missing {
			s.incs[name] = l.inc
		}
	}
	m.snap = s
	if tell {
		for _, f := range m.watchers {
			f(s)
		}
	}
	m.publishCountsLocked()
	return s
}

// ApplyLeaderHints records leaders reported outside a metadata refresh,
// and returns the view's new Snapshot. A hint is ignored when its epoch is
// older than the known one, its leader is negative or its partition is
// unknown. An Addr updates the leader's address.
func (m *Metadata) ApplyLeaderHints(hints ...LeaderHint) *Snapshot {
	var moved []int32
	defer func() { m.notifyMoved(moved) }() // after the unlock
	m.mu.Lock()
	defer m.mu.Unlock()
	// What a published snapshot holds is never written: a topic or the
	// broker map a hint changes is copied first.
	copied := map[string]bool{}
	brokersCopied := false
	for _, h := range hints {
		if h.Leader < 0 {
			continue
		}
		tm, ok := m.topics[h.Topic]
		if !ok || h.Partition < 0 || int(h.Partition) >= len(tm.parts) || !tm.parts[h.Partition].present {
			continue
		}
		if h.LeaderEpoch < tm.parts[h.Partition].epoch {
			continue
		}
		if !copied[h.Topic] {
			c := *tm
			c.parts = append([]partMeta(nil), tm.parts...)
			tm = &c
			m.topics[h.Topic] = tm
			copied[h.Topic] = true
		}
		pm := &tm.parts[h.Partition]
		pm.leader, pm.epoch, pm.err = h.Leader, h.LeaderEpoch, 0
		if h.Addr != "" {
			was, ok := m.brokers[h.Leader]
			if ok && was != h.Addr {
				moved = append(moved, h.Leader)
			}
			if !ok || was != h.Addr {
				if !brokersCopied {
					b := make(map[int32]string, len(m.brokers)+1)
					for id, a := range m.brokers {
						b[id] = a
					}
					m.brokers = b
					brokersCopied = true
				}
				m.brokers[h.Leader] = h.Addr
			}
		}
	}
	return m.publishLocked(false)
}

// leaderOf is Metadata.Leader over topics.
func leaderOf(topics map[string]*topicMeta, topic string, partition int32) (brokerID int32, leaderEpoch int32, err error) {
	tm, err := topicOf(topics, topic)
	if err != nil {
		return -1, -1, err
	}
	if partition < 0 || int(partition) >= len(tm.parts) || !tm.parts[partition].present {
		return -1, -1, &UnknownTopicError{Topic: topic, Partition: partition}
	}
	pm := tm.parts[partition]
	if pm.leader < 0 {
		code := pm.err
		if code == 0 {
			code = int16(kafkaerr.LeaderNotAvailable)
		}
		return -1, pm.epoch, PartitionError(code, topic, partition, "")
	}
	return pm.leader, pm.epoch, nil
}

// topicOf returns topic's state in topics, or the error it stands for.
func topicOf(topics map[string]*topicMeta, topic string) (*topicMeta, error) {
	tm, ok := topics[topic]
	if !ok || tm.err == int16(kafkaerr.UnknownTopicOrPartition) {
		return nil, &UnknownTopicError{Topic: topic, Partition: -1}
	}
	if tm.err != 0 {
		return nil, PartitionError(tm.err, topic, -1, "")
	}
	return tm, nil
}
