package sim

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"
)

// Cluster is an in-process Kafka cluster of several brokers, each on its own
// loopback listener, with per-broker replicas of every partition. All its
// methods are safe for concurrent use.
type Cluster struct {
	cfg       config
	log       *slog.Logger
	rec       *Recorder
	clusterID string
	auth      *authenticator // nil: no SASL

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced whenever state changes
	closed   bool
	closeCh  chan struct{}
	brokers  []*broker
	topics   map[string]*topic
	names    []string // topic names, sorted
	nextPID  int64
	epochs   map[int64]int16 // EpochPerProducer: the highest epoch seen per producer id
	sinkLEOs map[tp]int64    // SinkMode: offsets handed out
	rng      *rand.Rand      // draws the ids of topics created later (CreateTopic)
	txn      *txnCoordinator
	loops    sync.WaitGroup // replication, expiry and transaction goroutines
}

type tp struct {
	topic     string
	partition int32
}

type topic struct {
	name  string
	id    [16]byte
	parts []*partition
}

type partition struct {
	topic    string
	index    int32
	replicas []int32 // assignment order; the first is preferred
	isr      []int32
	leader   int32 // -1 when offline
	epoch    int32 // leader epoch
	hw       int64
	// epochStart is the leader's log end when it was elected (Kafka's
	// leader epoch start offset): until the high watermark reaches it,
	// ListOffsets answers OFFSET_NOT_AVAILABLE.
	epochStart int64
	// fetched is each follower's log end as the leader knows it, from the
	// follower's last fetch; an election forgets it, so a new leader's high
	// watermark trails until its followers fetch from it.
	fetched map[int32]int64
	logs    map[int32]*replica
	paused  map[int32]bool
	faults  []*fault
	// minISR is the topic's min.insync.replicas: with fewer in sync,
	// acks=all is refused and the high watermark stays.
	minISR int
	// elr are the eligible leader replicas (KIP-966, on in Kafka 4.4):
	// replicas that left the ISR while it was smaller than minISR — the
	// last in-sync replica too, so that a partition without a leader has
	// an empty ISR, as in Kafka. They hold everything up to the high
	// watermark, which has not moved since; with no in-sync replica, the
	// first of them back is elected (a clean election). One that crashed
	// leaves it when it starts again.
	elr []int32
	// deleted: the topic was deleted (DeleteTopic); requests waiting on
	// the partition are answered UNKNOWN_TOPIC_OR_PARTITION.
	deleted bool
	// lastLeader is Kafka's last known ELR: the leader a partition had
	// when its ISR emptied (-1: none). Once no replica is eligible, it is
	// elected when back, crashed or not; any election forgets it.
	lastLeader int32
}

// leaveISR takes id out of pt's ISR, into its ELR when too few stay in
// sync (Kafka's controller: the ELR is what the ISR held, less the new
// ISR, while the new ISR is below min.insync.replicas; empty otherwise).
func (pt *partition) leaveISR(id int32) {
	if !slices.Contains(pt.isr, id) {
		return
	}
	pt.isr = deleteID(pt.isr, id)
	if len(pt.isr) >= pt.minISR {
		pt.elr = nil
	} else if !slices.Contains(pt.elr, id) {
		pt.elr = append(pt.elr, id)
	}
}

// joinISR adds id to pt's ISR; it leaves the ELR, and once enough are in
// sync the ELR empties.
func (pt *partition) joinISR(id int32) {
	if !slices.Contains(pt.isr, id) {
		pt.isr = append(pt.isr, id)
	}
	if len(pt.isr) >= pt.minISR {
		pt.elr = nil
	} else {
		pt.elr = deleteID(pt.elr, id)
	}
}

// listen opens a broker's listener, on TCP or the in-memory network.
func (c *Cluster) listen(addr string) (net.Listener, error) {
	if c.cfg.network != nil {
		return c.cfg.network.Listen(addr)
	}
	return net.Listen("tcp", addr)
}

// NewCluster starts the brokers and returns once all of them listen.
func NewCluster(opts ...Option) (*Cluster, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.brokers < 1 || cfg.brokers > 1000 {
		return nil, fmt.Errorf("%w: %d brokers", ErrBadConfig, cfg.brokers)
	}
	if cfg.txnPartitions < 1 || cfg.offsetsPartitions < 1 || cfg.txnMaxTimeout <= 0 || cfg.txnAbortCheck <= 0 {
		return nil, fmt.Errorf("%w: %d transaction state and %d offsets partitions, transaction timeouts up to %v checked every %v",
			ErrBadConfig, cfg.txnPartitions, cfg.offsetsPartitions, cfg.txnMaxTimeout, cfg.txnAbortCheck)
	}
	host, portStr, err := net.SplitHostPort(cfg.listen)
	if err != nil {
		return nil, fmt.Errorf("%w: listen address %q: %v", ErrBadConfig, cfg.listen, err)
	}
	basePort, err := strconv.Atoi(portStr)
	if err != nil || basePort < 0 || basePort+cfg.brokers > 65536 {
		return nil, fmt.Errorf("%w: listen port %q", ErrBadConfig, portStr)
	}
	auth, err := newAuthenticator(cfg.sec)
	if err != nil {
		return nil, err
	}
	if err := cfg.acls.validate(cfg.sec); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(uint64(cfg.seed), 0x5157))
	logger := cfg.logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	c := &Cluster{
		cfg:       cfg,
		log:       logger,
		rec:       newRecorder(cfg.recorderLimit),
		clusterID: fmt.Sprintf("sim-%016x", rng.Uint64()),
		auth:      auth,
		changed:   make(chan struct{}),
		closeCh:   make(chan struct{}),
		topics:    map[string]*topic{},
		nextPID:   1000 + int64(rng.IntN(1000))*1000,
		epochs:    map[int64]int16{},
		sinkLEOs:  map[tp]int64{},
		txn:       newTxnCoordinator(&cfg, time.Now()),
	}
	rot := rng.IntN(cfg.brokers)
	for _, ts := range cfg.topics {
		if err := c.addTopic(ts, rot, rng); err != nil {
			return nil, err
		}
	}
	c.rng = rng
	for i := 0; i < cfg.brokers; i++ {
		b := newBroker(c, int32(i))
		addr := cfg.listen
		if basePort != 0 {
			addr = net.JoinHostPort(host, strconv.Itoa(basePort+i))
		}
		b.addr = addr
		c.brokers = append(c.brokers, b)
	}
	c.mu.Lock()
	for _, b := range c.brokers {
		if err := b.start(); err != nil {
			c.mu.Unlock()
			_ = c.Close()
			return nil, err
		}
	}
	for _, b := range c.brokers {
		c.loops.Add(1)
		go c.replicationLoop(b)
	}
	if c.cfg.pidExpiryCheck > 0 && !c.cfg.sink {
		c.loops.Add(1)
		go c.expiryLoop(c.cfg.pidExpiryCheck)
	}
	c.loops.Add(1)
	go c.txnLoop()
	c.mu.Unlock()
	return c, nil
}

func (c *Cluster) addTopic(ts topicSpec, rot int, rng *rand.Rand) error {
	rf := ts.replication
	if rf == 0 {
		rf = min(3, c.cfg.brokers)
	}
	switch {
	case ts.name == "" || len(ts.name) > 249:
		return fmt.Errorf("%w: topic name %q", ErrBadConfig, ts.name)
	case c.topics[ts.name] != nil:
		return fmt.Errorf("%w: topic %q twice", ErrBadConfig, ts.name)
	case ts.partitions < 1 || ts.partitions > 10000:
		return fmt.Errorf("%w: topic %q with %d partitions", ErrBadConfig, ts.name, ts.partitions)
	case rf < 1 || rf > c.cfg.brokers:
		return fmt.Errorf("%w: topic %q with replication %d on %d brokers", ErrBadConfig, ts.name, rf, c.cfg.brokers)
	}
	t := &topic{name: ts.name}
	for i := range t.id {
		t.id[i] = byte(rng.Uint32())
	}
	for p := int32(0); p < ts.partitions; p++ {
		t.parts = append(t.parts, c.newPartition(ts.name, p, rf, rot))
	}
	c.topics[ts.name] = t
	c.names = append(c.names, ts.name)
	sort.Strings(c.names)
	return nil
}

// newPartition returns partition p of topic with rf replicas placed round
// robin from broker p+rot, the first the leader, all in sync.
func (c *Cluster) newPartition(topic string, p int32, rf, rot int) *partition {
	pt := &partition{topic: topic, index: p, logs: map[int32]*replica{}, paused: map[int32]bool{}, fetched: map[int32]int64{},
		minISR: max(c.cfg.minInsync[topic], 1)}
	for j := 0; j < rf; j++ {
		id := int32((int(p) + rot + j) % c.cfg.brokers)
		pt.replicas = append(pt.replicas, id)
		pt.logs[id] = newReplica(id)
	}
	pt.isr = slices.Clone(pt.replicas)
	pt.leader = pt.replicas[0]
	pt.lastLeader = -1
	return pt
}

// Addrs returns every broker's address (host:port), by broker id.
func (c *Cluster) Addrs() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, len(c.brokers))
	for i, b := range c.brokers {
		out[i] = b.addr
	}
	return out
}

// Recorder returns the recorder of every exchange and produced batch.
func (c *Cluster) Recorder() *Recorder { return c.rec }

// ClusterID returns the id the cluster reports in metadata.
func (c *Cluster) ClusterID() string { return c.clusterID }

// Close stops every broker and replication and waits for all goroutines.
// It is idempotent.
func (c *Cluster) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	close(c.closeCh)
	var stopped []*broker
	for _, b := range c.brokers {
		if b.up {
			b.stopLocked()
			stopped = append(stopped, b)
		}
		b.closeListener()
	}
	c.broadcastLocked()
	c.mu.Unlock()
	for _, b := range stopped {
		b.wg.Wait()
	}
	for _, b := range c.brokers {
		b.lnWG.Wait()
		b.heldWG.Wait()
	}
	c.loops.Wait()
	return nil
}

// broadcastLocked wakes everything waiting for a state change.
func (c *Cluster) broadcastLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// waitChange waits until the state changes after ch was read, ctx ends or
// the deadline passes; it reports whether it may be worth looking again.
func waitChange(ctx context.Context, ch <-chan struct{}, deadline time.Time) bool {
	d := time.Until(deadline)
	if d <= 0 {
		return false
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-ctx.Done():
		return false
	case <-t.C:
		return false
	}
}

func (c *Cluster) partitionLocked(topic string, p int32) (*partition, error) {
	t := c.topics[topic]
	if t == nil || p < 0 || int(p) >= len(t.parts) {
		return nil, fmt.Errorf("%w: %s/%d", ErrUnknownTopic, topic, p)
	}
	return t.parts[p], nil
}

func (c *Cluster) brokerLocked(id int32) (*broker, error) {
	if id < 0 || int(id) >= len(c.brokers) {
		return nil, fmt.Errorf("%w: %d", ErrUnknownBroker, id)
	}
	return c.brokers[id], nil
}

// Leader returns the partition's leader (-1 when offline) and leader epoch;
// an unknown partition gives (-1, -1).
func (c *Cluster) Leader(topic string, p int32) (broker int32, leaderEpoch int32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	pt, err := c.partitionLocked(topic, p)
	if err != nil {
		return -1, -1
	}
	return pt.leader, pt.epoch
}

// ISR returns the partition's in-sync replicas.
func (c *Cluster) ISR(topic string, p int32) ([]int32, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	pt, err := c.partitionLocked(topic, p)
	if err != nil {
		return nil, err
	}
	return slices.Clone(pt.isr), nil
}

// EligibleReplicas returns the partition's eligible leader replicas and
// last known ELR (KIP-966), as DescribeTopicPartitions shows them: the
// replicas that left the ISR while it was below min.insync.replicas, and
// the leader a partition had when its ISR emptied.
func (c *Cluster) EligibleReplicas(topic string, p int32) (elr, lastKnown []int32, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	pt, err := c.partitionLocked(topic, p)
	if err != nil {
		return nil, nil, err
	}
	return slices.Clone(pt.elr), pt.lastKnownELR(), nil
}

// lastKnownELR is the last known ELR as Kafka answers it: the last leader,
// or empty.
func (pt *partition) lastKnownELR() []int32 {
	if pt.lastLeader < 0 {
		return nil
	}
	return []int32{pt.lastLeader}
}

// HighWatermark returns the partition's high watermark and its leader's log
// end offset.
func (c *Cluster) HighWatermark(topic string, p int32) (hw, leo int64, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	pt, err := c.partitionLocked(topic, p)
	if err != nil {
		return 0, 0, err
	}
	if pt.leader >= 0 {
		leo = pt.logs[pt.leader].leo
	}
	return pt.hw, leo, nil
}

// Topics returns the topic names, sorted.
func (c *Cluster) Topics() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.names)
}

func (c *Cluster) isUp(id int32) bool { return c.brokers[id].up }

// updateHWLocked recomputes the high watermark as the smallest log end of
// the in-sync replicas, as the leader knows them from their fetches; it
// never moves backwards here.
func (c *Cluster) updateHWLocked(pt *partition) bool {
	if pt.leader < 0 {
		return false
	}
	if len(pt.isr) < pt.minISR {
		return false // Kafka 4.4 holds the high watermark (KIP-966)
	}
	lead := pt.logs[pt.leader]
	hw := lead.leo
	for _, id := range pt.isr {
		if id == pt.leader {
			continue
		}
		leo, ok := pt.fetched[id]
		if !ok {
			return false // not fetched from this leader yet
		}
		hw = min(hw, leo)
	}
	if hw > pt.hw {
		pt.hw = hw
		lead.hw = hw
		return true
	}
	return false
}

// electLocked makes to the leader with a new epoch, truncates every other
// replica to where it diverges from the new leader's log, and returns the
// offsets so removed (merged).
func (c *Cluster) electLocked(pt *partition, to int32) []OffsetRange {
	pt.leader = to
	pt.epoch++
	pt.lastLeader = -1
	if !slices.Contains(pt.isr, to) {
		pt.isr = append(pt.isr, to)
	}
	lead := pt.logs[to]
	clear(pt.fetched)
	var lost []OffsetRange
	for _, id := range pt.replicas {
		if id == to {
			continue
		}
		r := pt.logs[id]
		if got := r.truncate(r.commonPrefix(lead)); got.Len() > 0 {
			lost = append(lost, got)
		}
	}
	// The new leader starts from its own high watermark, which trails
	// the old leader's until it learned the last advance; it moves on once
	// the followers fetch from it. The ISR keeps only replicas that still
	// hold everything the new leader has up to the high watermark.
	pt.hw = min(lead.hw, lead.leo)
	lead.hw = pt.hw
	pt.epochStart = lead.leo
	for _, id := range slices.Clone(pt.isr) {
		if id != to && (!c.isUp(id) || pt.logs[id].leo < pt.hw) {
			pt.leaveISR(id)
		}
	}
	pt.joinISR(to) // already in: it leaves the ELR, which empties if enough are in sync
	c.updateHWLocked(pt)
	c.log.Info("leader elected", "topic", pt.topic, "partition", pt.index, "leader", to, "epoch", pt.epoch, "hw", pt.hw)
	return mergeRanges(lost)
}

func mergeRanges(rs []OffsetRange) []OffsetRange {
	if len(rs) == 0 {
		return nil
	}
	slices.SortFunc(rs, func(a, b OffsetRange) int {
		switch {
		case a.From < b.From:
			return -1
		case a.From > b.From:
			return 1
		}
		return 0
	})
	out := []OffsetRange{rs[0]}
	for _, r := range rs[1:] {
		last := &out[len(out)-1]
		if r.From <= last.To {
			last.To = max(last.To, r.To)
			continue
		}
		out = append(out, r)
	}
	return out
}

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

// leaderCheckLocked validates that b leads the partition at the epoch the
// client believes current (-1: no belief).
func (b *broker) leaderCheckLocked(topic string, p int32, currentEpoch int32) (*partition, int16) {
	return b.replicaCheckLocked(topic, p, currentEpoch, true)
}

// replicaCheckLocked checks a read of the partition on b in Kafka's order:
// b must host a replica (else NOT_LEADER_OR_FOLLOWER), the epoch the
// client believes current (-1: none) must be the partition's (older:
// FENCED_LEADER_EPOCH, newer: UNKNOWN_LEADER_EPOCH), and with leaderOnly b
// must lead it (NOT_LEADER_OR_FOLLOWER).
func (b *broker) replicaCheckLocked(topic string, p int32, currentEpoch int32, leaderOnly bool) (*partition, int16) {
	pt, err := b.c.partitionLocked(topic, p)
	if err != nil {
		return nil, errUnknownTopicOrPartition
	}
	if pt.logs[b.id] == nil {
		return nil, errNotLeaderOrFollower
	}
	switch {
	case currentEpoch < 0 || currentEpoch == pt.epoch:
	case currentEpoch < pt.epoch:
		return nil, errFencedLeaderEpoch
	default:
		return nil, errUnknownLeaderEpoch
	}
	if leaderOnly && pt.leader != b.id {
		return nil, errNotLeaderOrFollower
	}
	return pt, errNone
}
