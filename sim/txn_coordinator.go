package sim

import (
	"time"
	"unicode/utf16"
)

// Kafka's internal topics, whose partitions place the coordinators.
const (
	txnStateTopic = "__transaction_state"
	offsetsTopic  = "__consumer_offsets"
)

// txnCoordinator is every broker's transaction coordinator: the state of
// each transactional id, kept once for the cluster (the transaction log,
// always fully replicated), and which broker leads each partition of
// __transaction_state and __consumer_offsets. Guarded by Cluster.mu.
type txnCoordinator struct {
	txns      map[string]*txnMeta
	preparing map[string]*txnMeta // in PrepareCommit or PrepareAbort: markers to write
	txnLog    coordTopic
	groups    coordTopic
	committed map[string]map[tp]int64 // offsets committed by transactions, by group
	nextAbort time.Time               // the next timed-out transaction check
}

func newTxnCoordinator(cfg *config, now time.Time) *txnCoordinator {
	return &txnCoordinator{
		txns:      map[string]*txnMeta{},
		preparing: map[string]*txnMeta{},
		txnLog:    newCoordTopic(txnStateTopic, cfg.txnPartitions, cfg.brokers),
		groups:    newCoordTopic(offsetsTopic, cfg.offsetsPartitions, cfg.brokers),
		committed: map[string]map[tp]int64{},
		nextAbort: now.Add(cfg.txnAbortCheck),
	}
}

// coordTopic is an internal topic whose partition leaders coordinate the
// keys hashed to them. Partition p has min(3, brokers) replicas, brokers
// p, p+1, p+2 (mod the broker count), the first leading at first. When
// the controller learns its leader stopped (StopBroker, KillBroker and
// the like, FenceBroker; not KillProcessUnnoticed), the partition is
// handed, at the next look, to the first running replica, the coordinator
// epoch going up; with none running it has no leader until one is back.
type coordTopic struct {
	name    string
	leaders []int32 // -1: to elect
	epochs  []int32
	rf      int
}

func newCoordTopic(name string, partitions, brokers int) coordTopic {
	ct := coordTopic{name: name, leaders: make([]int32, partitions), epochs: make([]int32, partitions), rf: min(3, brokers)}
	for p := range ct.leaders {
		ct.leaders[p] = int32(p % brokers)
	}
	return ct
}

// resign takes every partition broker leads from it.
func (ct *coordTopic) resign(broker int32) {
	for p, l := range ct.leaders {
		if l == broker {
			ct.leaders[p] = -1
		}
	}
}

// resignLocked hands the coordinators broker held to other replicas: the
// controller learned it stopped.
func (t *txnCoordinator) resignLocked(broker int32) {
	t.txnLog.resign(broker)
	t.groups.resign(broker)
}

// javaHash is Java's String.hashCode over key's UTF-16 code units.
func javaHash(key string) int32 {
	var h int32
	for _, u := range utf16.Encode([]rune(key)) {
		h = 31*h + int32(u)
	}
	return h
}

// partitionFor is Kafka's Utils.abs(key.hashCode) % partitions.
func (ct *coordTopic) partitionFor(key string) int {
	return int(javaHash(key)&0x7fffffff) % len(ct.leaders)
}

// coordinatorLocked returns the broker coordinating key as the metadata
// has it (-1 when no replica of its partition runs) and its coordinator
// epoch, electing a running replica if the leader resigned.
func (c *Cluster) coordinatorLocked(ct *coordTopic, key string) (id int32, epoch int32) {
	p := ct.partitionFor(key)
	if l := ct.leaders[p]; l >= 0 {
		return l, ct.epochs[p]
	}
	n := len(c.brokers)
	for k := range ct.rf {
		if id := int32((p + k) % n); c.brokers[id].up && !c.frozenLocked(id) {
			ct.leaders[p] = id
			ct.epochs[p]++
			c.log.Info("coordinator elected", "topic", ct.name, "partition", p, "broker", id, "epoch", ct.epochs[p])
			return id, ct.epochs[p]
		}
	}
	return -1, ct.epochs[p]
}

// liveCoordinatorLocked is coordinatorLocked for the coordinator's own
// work (markers, timeouts) and for the checks brokers ask of it: ok only
// if it runs and is not frozen.
func (c *Cluster) liveCoordinatorLocked(ct *coordTopic, key string) (id int32, epoch int32, ok bool) {
	id, epoch = c.coordinatorLocked(ct, key)
	return id, epoch, id >= 0 && c.brokers[id].up && !c.frozenLocked(id)
}

// coordinates checks that broker b coordinates key: NONE,
// COORDINATOR_NOT_AVAILABLE with no coordinator running, NOT_COORDINATOR
// at another broker.
func (b *broker) coordinatesLocked(ct *coordTopic, key string) int16 {
	switch id, _ := b.c.coordinatorLocked(ct, key); id {
	case b.id:
		return errNone
	case -1:
		return errCoordinatorNotAvailable
	}
	return errNotCoordinator
}

// groupPartition is the __consumer_offsets partition of group, which
// AddOffsetsToTxn adds to a transaction.
func (t *txnCoordinator) groupPartition(group string) tp {
	return tp{offsetsTopic, int32(t.groups.partitionFor(group))}
}

// newPIDLocked allocates a producer id.
func (c *Cluster) newPIDLocked() int64 {
	id := c.nextPID
	c.nextPID++
	return id
}

// initTxnLocked decides a transactional InitProducerId at its
// coordinator: the transactional id's producer id and epoch, or an error
// code. An ongoing transaction is fenced and its abort begun
// (CONCURRENT_TRANSACTIONS: the client retries once it completes).
func (c *Cluster) initTxnLocked(id string, timeout time.Duration, expected *pidEpoch, now time.Time) (int64, int16, int16) {
	t := c.txn
	m := t.txns[id]
	if m == nil {
		m = newTxnMeta(id, c.newPIDLocked(), timeout, now)
		t.txns[id] = m
	}
	decision, code := m.initProducerID(timeout, expected, c.newPIDLocked, now)
	switch decision {
	case initFence:
		m.fence(c.cfg.txnV2(), now)
		c.log.Info("transaction fenced", "transactional.id", id, "producer", m.pid, "epoch", m.epoch)
		c.beginMarkersLocked(m, now)
		return -1, noEpoch, code
	case initBumped:
		c.log.Info("transactional producer initialized", "transactional.id", id, "producer", m.pid, "epoch", m.epoch)
		return m.pid, m.epoch, errNone
	}
	return -1, noEpoch, code
}

// endTxnLocked decides EndTxn at the coordinator; on a move to Prepare,
// the markers begin.
func (c *Cluster) endTxnLocked(id string, pid int64, epoch int16, commit bool, now time.Time) int16 {
	m := c.txn.txns[id]
	if m == nil {
		return errInvalidProducerIDMapping
	}
	prepared, code := m.endTxn(pid, epoch, commit, now)
	if prepared {
		c.log.Info("transaction ending", "transactional.id", id, "state", m.state, "partitions", len(m.parts))
		c.beginMarkersLocked(m, now)
	}
	return code
}

// endTxnV2Locked decides EndTxn v5 (transactions v2) at the coordinator;
// on a move to Prepare, the markers begin.
func (c *Cluster) endTxnV2Locked(id string, pid int64, epoch int16, commit bool, now time.Time) endV2 {
	m := c.txn.txns[id]
	d := m.endTxnV2(pid, epoch, commit, c.newPIDLocked, now)
	if d.prepared {
		c.log.Info("transaction ending", "transactional.id", id, "state", m.state, "partitions", len(m.parts),
			"producer", m.pid, "epoch", m.epoch)
		c.beginMarkersLocked(m, now)
	}
	return d
}

// addTxnPartitionLocked is what a partition leader does with a
// transactional Produce v12 under transactions v2: it asks the
// coordinator to add p to the producer's transaction (Kafka's
// AddPartitionsToTxn v5 between brokers) and answers as it answers a
// verification (verifyTxnLocked): CONCURRENT_TRANSACTIONS and an
// unreachable coordinator NOT_ENOUGH_REPLICAS, PRODUCER_FENCED
// INVALID_PRODUCER_EPOCH.
func (c *Cluster) addTxnPartitionLocked(id string, pid int64, epoch int16, p tp, now time.Time) int16 {
	switch code := c.coordAddLocked(id, pid, epoch, p, now); code {
	case errConcurrentTransactions, errCoordinatorNotAvailable:
		return errNotEnoughReplicas
	case errProducerFenced:
		return errInvalidProducerEpoch
	default:
		return code
	}
}

// coordAddLocked is the coordinator's answer to a broker adding p to
// transactional id's transaction for the producer at epoch.
func (c *Cluster) coordAddLocked(id string, pid int64, epoch int16, p tp, now time.Time) int16 {
	switch _, _, live := c.liveCoordinatorLocked(&c.txn.txnLog, id); {
	case id == "":
		return errInvalidRequest
	case !live:
		return errCoordinatorNotAvailable
	}
	m := c.txn.txns[id]
	if code := m.check(pid, epoch); code != errNone {
		return code
	}
	// The producer's current epoch adds p, starting a transaction if none
	// is ongoing (CONCURRENT_TRANSACTIONS while one is being completed).
	return m.addPartitions(pid, epoch, []tp{p}, now)
}

// verifyTxnLocked is the check a partition leader makes with the
// coordinator before appending a transactional batch of producer pid at
// epoch to p (KIP-890 part 1, Kafka 3.6+), as the leader answers it:
// CONCURRENT_TRANSACTIONS and an unreachable coordinator become
// NOT_ENOUGH_REPLICAS (which old clients retry), PRODUCER_FENCED
// INVALID_PRODUCER_EPOCH, and TRANSACTION_ABORTABLE INVALID_TXN_STATE
// before Produce v11.
func (c *Cluster) verifyTxnLocked(id string, pid int64, epoch int16, p tp, version int16) int16 {
	var code int16
	switch _, _, live := c.liveCoordinatorLocked(&c.txn.txnLog, id); {
	case id == "":
		code = errInvalidRequest
	case !live:
		code = errCoordinatorNotAvailable
	default:
		code = c.txn.txns[id].verify(pid, epoch, p)
	}
	switch code {
	case errConcurrentTransactions, errCoordinatorNotAvailable:
		return errNotEnoughReplicas
	case errProducerFenced:
		return errInvalidProducerEpoch
	case errTransactionAbortable:
		if version <= 10 {
			return errInvalidTxnState
		}
	}
	return code
}

// TxnDescription is what the coordinator holds for a transactional id,
// as DescribeTransactions shows it.
type TxnDescription struct {
	State         TxnState
	ProducerID    int64
	ProducerEpoch int16
	TimeoutMillis int32
	// Partitions are the partitions in the transaction, by topic
	// (__consumer_offsets for a group's offsets).
	Partitions map[string][]int32
}

// DescribeTransaction returns the coordinator's state for transactional
// id; ok is false for an id never initialized.
func (c *Cluster) DescribeTransaction(id string) (d TxnDescription, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.txn.txns[id]
	if m == nil {
		return d, false
	}
	d = TxnDescription{State: m.state, ProducerID: m.pid, ProducerEpoch: m.epoch,
		TimeoutMillis: int32(m.timeout / time.Millisecond), Partitions: map[string][]int32{}}
	for p := range m.parts {
		d.Partitions[p.topic] = append(d.Partitions[p.topic], p.partition)
	}
	return d, true
}

// TransactionCoordinator returns the broker coordinating transactional id
// as the metadata has it (-1 when no replica of its __transaction_state
// partition runs).
func (c *Cluster) TransactionCoordinator(id string) int32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	coord, _ := c.coordinatorLocked(&c.txn.txnLog, id)
	return coord
}

// GroupCoordinator returns the broker coordinating group as the metadata
// has it (-1 when no replica of its __consumer_offsets partition runs).
func (c *Cluster) GroupCoordinator(group string) int32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	coord, _ := c.coordinatorLocked(&c.txn.groups, group)
	return coord
}

// CommittedOffsets returns the offsets transactions committed for group
// (TxnOffsetCommit, visible once the transaction commits), by topic and
// partition.
func (c *Cluster) CommittedOffsets(group string) map[string]map[int32]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]map[int32]int64{}
	for p, off := range c.txn.committed[group] {
		if out[p.topic] == nil {
			out[p.topic] = map[int32]int64{}
		}
		out[p.topic][p.partition] = off
	}
	return out
}
