package protocol

import "slices"

// lineage is what a Metadata view remembers of one topic name across the
// topics that held it: a topic deleted and created again under the same
// name is a new topic (new partitions, empty logs, leader epochs from 0),
// and its incarnation number tells a producer so.
type lineage struct {
	inc     uint64     // the current incarnation's number (Metadata.incs)
	id      [16]byte   // its topic id (Metadata v10+); zero without ids
	retired [][16]byte // the ids of the deleted ones: answers naming them are stale
	missing bool       // answered UNKNOWN_TOPIC_OR_PARTITION since it was last present
}

// incarnationLocked decides which incarnation of name an answer without
// error shows, given what the view held (old, nil if nothing or an error).
// stale: the answer names a deleted incarnation's id (a broker that has
// not heard of the deletion yet) and must be left out. fresh: a new
// incarnation, whose leader epochs start over.
//
// With topic ids (Metadata v10+, Kafka 2.8+) a new id is a new topic.
// Without them the view takes for a re-creation what a surviving topic
// never shows: the topic answered unknown and then present again, or a
// partition count changed while a leader epoch went backwards (a topic
// only grows, and its epochs only go up, though a lagging broker may show
// an older one: that alone is not taken for a re-creation).
func (m *Metadata) incarnationLocked(name string, id [16]byte, old *topicMeta, parts []partMeta) (inc uint64, stale, fresh bool) {
	l := m.lines[name]
	if l == nil {
		m.incs++
		m.lines[name] = &lineage{inc: m.incs, id: id}
		return m.incs, false, false
	}
	switch {
	case id != [16]byte{} && slices.Contains(l.retired, id):
		return l.inc, true, false
	case id != [16]byte{} && l.id == [16]byte{} && !l.missing:
		l.id = id // first told its id (a broker upgraded to 2.8)
	case id != [16]byte{} && id != l.id,
		id == [16]byte{} && (l.missing || epochsWentBack(old, parts)):
		if l.id != [16]byte{} {
			l.retired = append(l.retired, l.id)
		}
		m.incs++
		l.inc, l.id, fresh = m.incs, id, true
	}
	l.missing = false
	return l.inc, false, fresh
}

// epochsWentBack reports a partition count that changed together with a
// leader epoch lower than the one old held for that partition.
func epochsWentBack(old *topicMeta, parts []partMeta) bool {
	if old == nil || len(old.parts) == len(parts) {
		return false
	}
	for i, pm := range parts {
		if i < len(old.parts) && pm.present && old.parts[i].present && pm.epoch >= 0 && pm.epoch < old.parts[i].epoch {
			return true
		}
	}
	return false
}

// missingLocked records an UNKNOWN_TOPIC_OR_PARTITION answer for name.
func (m *Metadata) missingLocked(name string) {
	if l := m.lines[name]; l != nil {
		l.missing = true
	}
}

// Incarnation returns the number of the incarnation of topic the view
// knows (0 if none): it changes whenever the topic is found deleted and
// created again, and only grows.
func (m *Metadata) Incarnation(topic string) uint64 {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if l := m.lines[topic]; l != nil {
		return l.inc
	}
	return 0
}

// LeaderIn is Leader with the topic's incarnation (Incarnation), read at
// once: the incarnation is given also when the partition has no leader or
// does not exist in it (a topic re-created with fewer partitions), and is
// 0 when the topic is unknown.
func (m *Metadata) LeaderIn(topic string, partition int32) (brokerID, leaderEpoch int32, incarnation uint64, err error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if l := m.lines[topic]; l != nil && !l.missing {
		incarnation = l.inc
	}
	brokerID, leaderEpoch, err = m.leaderLocked(topic, partition)
	return brokerID, leaderEpoch, incarnation, err
}
