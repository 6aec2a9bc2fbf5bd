package idempotence

import (
	"maps"
	"math"
	"slices"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

// The model broker applies Apache Kafka's (2.5+) idempotence rules to one
// leader per partition: per producer id a current epoch and the last five
// batches; optionally one epoch per producer id across all partitions, as
// some non-Apache brokers (and kfake) keep.

type modelBatch struct {
	pid   int64
	epoch int16
	seq   int32
	n     int32
	id    BatchID
	base  int64
}

func (b modelBatch) lastSeq() int32 { return addSeq(b.seq, b.n-1) }

type modelPID struct {
	epoch  int16
	window []modelBatch
}

type modelPart struct {
	log      []modelBatch
	end      int64
	hw       int64 // high watermark: a fetch shows only the log below it
	logStart int64
	pids     map[int64]*modelPID
	// lagReads: the next reads come from a leader just elected whose high
	// watermark trails what was committed (at lagHW) until its followers
	// fetch from it; its log end is the full log.
	lagReads int
	lagHW    int64
	// cleanHW is the high watermark the cleaner last worked under: a
	// replica cleans below its own high watermark, which never goes back,
	// so no leader's trails below it.
	cleanHW int64
}

type modelBroker struct {
	parts       map[TopicPartition]*modelPart
	epochPerPID bool
	pidEpoch    map[int64]int16
	// gone holds the logs of deleted topics' partitions (recreate): a
	// batch there was written, to a log its topic's deletion took.
	gone map[TopicPartition][]modelBatch
	// pre25: sequence rules before Kafka 2.5 (KIP-360): a producer the
	// partition holds no state of is refused (UNKNOWN_PRODUCER_ID) at any
	// sequence but 0, not taken as new.
	pre25 bool
}

func newModelBroker(epochPerPID bool) *modelBroker {
	return &modelBroker{parts: map[TopicPartition]*modelPart{}, epochPerPID: epochPerPID, pidEpoch: map[int64]int16{}}
}

func (m *modelBroker) part(tp TopicPartition) *modelPart {
	p := m.parts[tp]
	if p == nil {
		p = &modelPart{pids: map[int64]*modelPID{}}
		m.parts[tp] = p
	}
	return p
}

// produce applies one batch and returns the broker's answer.
func (m *modelBroker) produce(tp TopicPartition, s Send, n int32) (code kafkaerr.Code, base int64) {
	p := m.part(tp)
	if m.epochPerPID {
		if g, ok := m.pidEpoch[s.ProducerID]; ok && s.Epoch < g {
			return kafkaerr.InvalidProducerEpoch, -1
		}
	}
	b := modelBatch{pid: s.ProducerID, epoch: s.Epoch, seq: s.BaseSequence, n: n, id: s.ID}
	st := p.pids[s.ProducerID]
	switch {
	case st == nil:
		// No state: any sequence, except on a partition that never held a
		// record (KAFKA-15591); before 2.5, only 0.
		if m.pre25 && s.BaseSequence != 0 {
			return kafkaerr.UnknownProducerID, -1
		}
		if len(p.log) == 0 && s.BaseSequence != 0 {
			return kafkaerr.OutOfOrderSequenceNumber, -1
		}
		st = &modelPID{epoch: s.Epoch}
		p.pids[s.ProducerID] = st
	case s.Epoch < st.epoch:
		return kafkaerr.InvalidProducerEpoch, -1
	case s.Epoch > st.epoch:
		if s.BaseSequence != 0 {
			return kafkaerr.OutOfOrderSequenceNumber, -1
		}
		st.epoch, st.window = s.Epoch, nil
	default:
		for _, w := range st.window {
			if w.seq == b.seq && w.lastSeq() == b.lastSeq() {
				return kafkaerr.None, w.base // a retry: original offsets
			}
		}
		if len(st.window) == 0 || s.BaseSequence != addSeq(st.window[len(st.window)-1].lastSeq(), 1) {
			return kafkaerr.OutOfOrderSequenceNumber, -1
		}
	}
	b.base = p.end
	p.end += int64(n)
	p.log = append(p.log, b)
	st.window = append(st.window, b)
	if len(st.window) > 5 {
		st.window = st.window[1:]
	}
	if m.epochPerPID && s.Epoch > m.pidEpoch[s.ProducerID] {
		m.pidEpoch[s.ProducerID] = s.Epoch
	}
	return kafkaerr.None, b.base
}

// recreate models the partition's topic deleted and created again: a new
// log, empty, with no producer state; the old one is kept apart (gone).
func (m *modelBroker) recreate(tp TopicPartition) {
	if m.gone == nil {
		m.gone = map[TopicPartition][]modelBatch{}
	}
	m.gone[tp] = append(slices.Clip(m.gone[tp]), m.part(tp).log...)
	m.parts[tp] = &modelPart{pids: map[int64]*modelPID{}}
}

// restart models a leader restarting from a producer-state snapshot: only
// the last batch of each producer stays in the dedup window.
// forget drops every producer's state on every partition, as Kafka's
// periodic expiry does to producers whose last batch is stamped longer ago
// than producer.id.expiration.ms: the next batch of such a producer is
// accepted at any sequence (or refused OUT_OF_ORDER on an empty log).
func (m *modelBroker) forget() {
	for _, p := range m.parts {
		p.pids = map[int64]*modelPID{}
	}
}

func (m *modelBroker) restart(tp TopicPartition) {
	for _, st := range m.part(tp).pids {
		if len(st.window) > 1 {
			st.window = st.window[len(st.window)-1:]
		}
	}
}

// truncate models an unclean leader election: the last batch of the log is
// gone and producer state is rebuilt from what remains.
func (m *modelBroker) truncate(tp TopicPartition) (BatchID, bool) {
	ids := m.truncateN(tp, 1)
	if len(ids) == 0 {
		return 0, false
	}
	return ids[0], true
}

// truncateN models an unclean election to a replica that lags by n batches:
// the last n batches of the log (fewer if it holds fewer) are gone, and
// producer state is rebuilt from what remains. It returns their ids.
func (m *modelBroker) truncateN(tp TopicPartition, n int) []BatchID {
	p := m.part(tp)
	n = min(n, len(p.log))
	if n == 0 {
		return nil
	}
	var ids []BatchID
	for _, b := range p.log[len(p.log)-n:] {
		ids = append(ids, b.id)
	}
	p.end = p.log[len(p.log)-n].base
	p.log = p.log[:len(p.log)-n]
	p.hw = min(p.hw, p.end)
	p.cleanHW = min(p.cleanHW, p.end)
	p.pids = map[int64]*modelPID{}
	for _, b := range p.log {
		st := p.pids[b.pid]
		if st == nil || b.epoch > st.epoch {
			st = &modelPID{epoch: b.epoch}
			p.pids[b.pid] = st
		}
		st.window = append(st.window, b)
		if len(st.window) > 5 {
			st.window = st.window[1:]
		}
	}
	return ids
}

// lag models a leader election that leaves the new leader's high
// watermark trailing at offset at for the next reads reads.
func (m *modelBroker) lag(tp TopicPartition, at int64, reads int) {
	p := m.part(tp)
	p.lagHW, p.lagReads = max(p.logStart, p.cleanHW, min(at, p.hw)), reads
}

// at reports whether batch id is in the log at offset base.
func (m *modelBroker) at(tp TopicPartition, id BatchID, base int64) bool {
	for _, b := range append(slices.Clip(m.gone[tp]), m.part(tp).log...) {
		if b.id == id && b.base == base {
			return true
		}
	}
	return false
}

// compact models Kafka's log cleaner on a compacted topic whose newer
// records supersede the older ones: it removes the oldest committed batch
// that is not its producer's last in the log (the cleaner keeps that one,
// emptied, for the producer state), leaving the log start, the log end and
// the producer state as they were.
func (m *modelBroker) compact(tp TopicPartition) (BatchID, bool) {
	p := m.part(tp)
	last := map[int64]int{}
	for i, b := range p.log {
		last[b.pid] = i
	}
	// The cleaner works below the leader's high watermark (a trailing
	// one while it trails), and a batch goes only when a later one of its
	// producer — the records that supersede it — is there too.
	hw := p.hw
	if p.lagReads > 0 {
		hw = min(hw, p.lagHW)
	}
	committed := func(b modelBatch) bool { return b.base+int64(b.n) <= hw }
	for i, b := range p.log {
		if !committed(b) || last[b.pid] == i || !committed(p.log[last[b.pid]]) {
			continue
		}
		p.log = append(p.log[:i:i], p.log[i+1:]...)
		p.cleanHW = max(p.cleanHW, hw)
		return b.id, true
	}
	return 0, false
}

// commit models the followers catching up: everything appended is
// committed.
func (m *modelBroker) commit(tp TopicPartition) {
	p := m.part(tp)
	p.hw = p.end
}

// tail returns what a client can see of the log from offset from (-1: log
// start): the batch headers below the high watermark, and the leader's
// producer state (DescribeProducers), which includes uncommitted appends.
func (m *modelBroker) tail(tp TopicPartition, from int64) Tail {
	p := m.part(tp)
	hw := p.hw
	if p.lagReads > 0 {
		p.lagReads--
		hw = min(hw, p.lagHW)
	}
	t := Tail{LogStartOffset: p.logStart, HighWatermark: hw, LogEndOffset: p.end, Described: true}
	for _, b := range p.log {
		// As Kafka's Fetch (and the client's read): the batch holding
		// offset from comes whole, even when it starts before it.
		if b.base+int64(b.n) > from && b.base >= p.logStart && b.base+int64(b.n) <= hw {
			t.Batches = append(t.Batches, TailBatch{BaseOffset: b.base, ProducerID: b.pid, Epoch: b.epoch, BaseSequence: b.seq, Records: b.n})
		}
	}
	// In producer id order: a walk's trace (and its transcript) is the
	// same on every run of one seed.
	for _, pid := range slices.Sorted(maps.Keys(p.pids)) {
		st := p.pids[pid]
		if len(st.window) > 0 {
			last := st.window[len(st.window)-1]
			t.Producers = append(t.Producers, ProducerState{ProducerID: pid, Epoch: st.epoch, LastSequence: last.lastSeq()})
		}
	}
	return t
}

// count returns how many times batch id is in the log, and its first
// offset — in the partition's logs of deleted topics of its name too: a
// batch is written once, to one of them.
func (m *modelBroker) count(tp TopicPartition, id BatchID) (int, int64) {
	n, off := 0, int64(math.MinInt64)
	for _, b := range append(slices.Clip(m.gone[tp]), m.part(tp).log...) {
		if b.id == id {
			if n == 0 {
				off = b.base
			}
			n++
		}
	}
	return n, off
}

func (m *modelBroker) clone() *modelBroker {
	c := &modelBroker{parts: map[TopicPartition]*modelPart{}, epochPerPID: m.epochPerPID, pidEpoch: map[int64]int16{}, gone: maps.Clone(m.gone)}
	for k, v := range m.pidEpoch {
		c.pidEpoch[k] = v
	}
	for tp, p := range m.parts {
		cp := &modelPart{log: append([]modelBatch(nil), p.log...), end: p.end, hw: p.hw, logStart: p.logStart, pids: map[int64]*modelPID{}}
		for pid, st := range p.pids {
			cp.pids[pid] = &modelPID{epoch: st.epoch, window: append([]modelBatch(nil), st.window...)}
		}
		c.parts[tp] = cp
	}
	return c
}
