package protocol

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
	"golang.org/x/sync/singleflight"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

// Metadata defaults.
const (
	DefaultMetadataRefreshTimeout = 10 * time.Second
)

// MetadataConfig configures a Metadata view.
type MetadataConfig struct {
	// Conn configures the view's own connection (used when Dial is nil).
	Conn ConnConfig
	// Dial, when set, replaces Dial(ctx, addr, Conn).
	Dial func(ctx context.Context, addr string) (*Conn, error)
	// RefreshTimeout bounds one refresh (default 10s). A refresh asks up
	// to three brokers in turn, each for a third of it (at least a second),
	// so a broker that stopped answering (a host gone from the network,
	// its connection open and silent) costs a share, not the refresh.
	RefreshTimeout time.Duration
	// Logger receives refresh failures; nil discards them.
	Logger *slog.Logger
	// AllowAutoTopicCreation sets the refreshes' allow_auto_topic_creation
	// (Metadata v4+): a broker with auto.create.topics.enable then creates
	// a topic asked about that it does not have. Before v4 the request
	// has no such field and such a broker always creates it.
	AllowAutoTopicCreation bool
}

// Metadata is a concurrency-safe view of the cluster: brokers by id and,
// for each topic asked about, the leader and leader epoch per partition.
// Refreshes are single-flight: concurrent callers share one Metadata
// request. A refresh never moves a partition back to an older leader epoch
// of the same topic; a topic deleted and created again under its name is
// another (Incarnation), whose epochs start over.
type Metadata struct {
	cfg       MetadataConfig
	bootstrap []string
	log       *slog.Logger
	sf        singleflight.Group

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.RWMutex
	brokers map[int32]string
	topics  map[string]*topicMeta
	wanted  map[string]struct{}
	lines   map[string]*lineage // every topic name ever answered, across re-creations
	incs    uint64              // incarnation numbers handed out
	// counts is the partition count of every topic known without error,
	// replaced (never changed) under mu when one changes: Partitions and
	// Counts, asked once per record produced, read it without the lock.
	counts atomic.Pointer[Counts]
	// snap is the view's state as of its last change (Snapshot), and
	// watchers are told each one a refresh makes (Watch).
	snap     *Snapshot
	watchers []func(*Snapshot)

	movedMu sync.Mutex
	onMoved []func(id int32) // onBrokerMoved

	// connLock (a one-slot semaphore, so that a caller's context can
	// give up waiting) guards conn and lastTried; getConn holds it while
	// dialing.
	connLock  chan struct{}
	conn      *Conn
	lastTried string // the address getConn dialed last
}

type topicMeta struct {
	err   int16
	id    [16]byte
	inc   uint64     // its incarnation (lineage)
	parts []partMeta // index = partition id
}

type partMeta struct {
	present bool
	leader  int32
	epoch   int32
	err     int16
}

// NewMetadata returns a view that bootstraps from the given "host:port"
// addresses. It does no I/O until Refresh (its owner decides when to
// refresh: the producer's metadata loop, a reader once).
func NewMetadata(bootstrap []string, cfg MetadataConfig) *Metadata {
	if cfg.RefreshTimeout <= 0 {
		cfg.RefreshTimeout = DefaultMetadataRefreshTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Conn.Logger == nil {
		cfg.Conn.Logger = cfg.Logger
	}
	if cfg.Dial == nil {
		cc := cfg.Conn
		cfg.Dial = func(ctx context.Context, addr string) (*Conn, error) { return Dial(ctx, addr, cc) }
	}
	m := &Metadata{
		cfg:       cfg,
		bootstrap: slices.Clone(bootstrap),
		log:       cfg.Logger,
		brokers:   map[int32]string{},
		topics:    map[string]*topicMeta{},
		wanted:    map[string]struct{}{},
		lines:     map[string]*lineage{},
		connLock:  make(chan struct{}, 1),
	}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	return m
}

// Close stops the background refresh and closes the view's connection.
func (m *Metadata) Close() error {
	m.cancel()
	m.wg.Wait()
	m.connLock <- struct{}{}
	c := m.conn
	m.conn = nil
	<-m.connLock
	if c != nil {
		c.closeWait()
	}
	return nil
}

type refreshResult struct {
	asked map[string]struct{}
}

// Refresh fetches metadata for the given topics plus every topic asked about
// before. Concurrent calls share one request; a call whose topics were not
// part of the request in flight waits for it and then issues one more. It
// returns the request's error, or, for the topics named in this call, a
// joined error of their topic-level errors (*UnknownTopicError for unknown
// ones).
func (m *Metadata) Refresh(ctx context.Context, topics ...string) error {
	m.mu.Lock()
	for _, t := range topics {
		m.wanted[t] = struct{}{}
	}
	m.mu.Unlock()
	for attempt := 0; attempt < 2; attempt++ {
		ch := m.sf.DoChan("refresh", func() (any, error) { return m.refresh() })
		var res singleflight.Result
		select {
		case res = <-ch:
		case <-ctx.Done():
			return fmt.Errorf("protocol: metadata refresh: %w", ctx.Err())
		}
		if res.Err != nil {
			return res.Err
		}
		asked := res.Val.(refreshResult).asked
		if !containsAll(asked, topics) {
			continue
		}
		return m.topicErrors(topics)
	}
	return m.topicErrors(topics)
}

func containsAll(set map[string]struct{}, keys []string) bool {
	for _, k := range keys {
		if _, ok := set[k]; !ok {
			return false
		}
	}
	return true
}

func (m *Metadata) topicErrors(topics []string) error {
	var errs []error
	for _, t := range topics {
		if _, err := m.Partitions(t); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// refreshTries is how many brokers one refresh asks at most.
const refreshTries = 3

// minAttemptTimeout is the least a broker is given to answer a refresh
// (all of RefreshTimeout if that is shorter): a loaded broker is slow, not
// gone.
const minAttemptTimeout = time.Second

// attemptTimeout is how long one broker is given to answer a refresh: an
// equal share of RefreshTimeout, but at least minAttemptTimeout.
func (m *Metadata) attemptTimeout() time.Duration {
	return max(m.cfg.RefreshTimeout/refreshTries, min(m.cfg.RefreshTimeout, minAttemptTimeout))
}

func (m *Metadata) refresh() (refreshResult, error) {
	ctx, cancel := context.WithTimeout(m.ctx, m.cfg.RefreshTimeout)
	defer cancel()
	m.mu.RLock()
	asked := make(map[string]struct{}, len(m.wanted))
	req := kmsg.NewPtrMetadataRequest()
	req.Topics = make([]kmsg.MetadataRequestTopic, 0, len(m.wanted))
	names := make([]string, 0, len(m.wanted))
	for t := range m.wanted {
		names = append(names, t)
	}
	slices.Sort(names) // one request for one set of topics, byte for byte
	for _, t := range names {
		asked[t] = struct{}{}
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(t)
		req.Topics = append(req.Topics, rt)
	}
	m.mu.RUnlock()
	req.AllowAutoTopicCreation = m.cfg.AllowAutoTopicCreation
	if _, _, err := m.ask(ctx, req, m.apply); err != nil {
		return refreshResult{}, fmt.Errorf("protocol: metadata refresh: %w", err)
	}
	return refreshResult{asked: asked}, nil
}

// ask sends req to up to refreshTries brokers in turn, each for
// attemptTimeout at most, until one answers with a response check accepts;
// addr is the broker that answered.
func (m *Metadata) ask(ctx context.Context, req *kmsg.MetadataRequest, check func(*kmsg.MetadataResponse) error) (resp *kmsg.MetadataResponse, addr string, err error) {
	var errs []error
	for try := 0; try < refreshTries; try++ {
		actx, acancel := context.WithTimeout(ctx, m.attemptTimeout())
		c, err := m.getConn(actx)
		if err != nil {
			acancel()
			m.log.Debug("metadata: no broker answered the dial", "try", try+1, "err", err)
			errs = append(errs, err)
			if expired(ctx) {
				break
			}
			continue
		}
		raw, err := c.Request(actx, req)
		acancel()
		if err != nil {
			m.log.Debug("metadata: a broker did not answer", "try", try+1, "broker", c.Addr(), "err", err)
			errs = append(errs, err)
			m.dropConn(c)
			if expired(ctx) {
				break
			}
			continue
		}
		resp := raw.(*kmsg.MetadataResponse)
		if err := check(resp); err != nil {
			errs = append(errs, fmt.Errorf("broker %s: %w", c.Addr(), err))
			m.dropConn(c)
			continue
		}
		return resp, c.Addr(), nil
	}
	return nil, "", errors.Join(errs...)
}

// getConn returns the view's live connection, dialing known brokers and
// then the bootstrap list in turn.
func (m *Metadata) getConn(ctx context.Context) (*Conn, error) {
	select {
	case m.connLock <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: waiting for another dial: %w", ErrNoBroker, ctx.Err())
	}
	defer func() { <-m.connLock }()
	if m.conn != nil {
		select {
		case <-m.conn.Done():
			m.conn = nil
		default:
			return m.conn, nil
		}
	}
	m.mu.RLock()
	known := make([]string, 0, len(m.brokers))
	for _, a := range m.brokers {
		known = append(known, a)
	}
	m.mu.RUnlock()
	slices.Sort(known)
	// The brokers metadata names come first, starting after the one
	// tried last (so the attempt after one that failed or hung goes to
	// another broker); the bootstrap list only after them, as an address
	// there may be one a broker left.
	addrs := append(known, m.bootstrap...)
	seen := make(map[string]bool, len(addrs))
	addrs = slices.DeleteFunc(addrs, func(a string) bool {
		dup := seen[a]
		seen[a] = true
		return dup
	})
	// Before the first answer there are only bootstrap addresses: they
	// rotate too, or a bootstrap broker that hangs would take every
	// refresh whose timeout one attempt fills.
	if i := slices.Index(addrs, m.lastTried); i >= 0 {
		addrs = append(addrs[i+1:], addrs[:i+1]...)
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("%w: empty bootstrap list", ErrNoBroker)
	}
	var errs []error
	for _, addr := range addrs {
		m.lastTried = addr
		c, err := m.cfg.Dial(ctx, addr)
		if err != nil {
			errs = append(errs, err)
			if expired(ctx) {
				break
			}
			continue
		}
		if m.ctx.Err() != nil {
			// Closed while dialing (Describe's caller has its own
			// context): Close has already let go of m.conn.
			_ = c.Close()
			return nil, ErrClosed
		}
		m.conn = c
		return c, nil
	}
	return nil, fmt.Errorf("%w: %w", ErrNoBroker, errors.Join(errs...))
}

// dropConn closes c and forgets it. It never waits for a dial in
// progress: then c is no longer the view's connection (a dial starts only
// without a live one), and the dial sets lastTried itself.
func (m *Metadata) dropConn(c *Conn) {
	_ = c.Close()
	select {
	case m.connLock <- struct{}{}:
	default:
		return
	}
	if m.conn == c {
		m.conn = nil
	}
	// The next attempt starts after this broker, whichever was dialed
	// last (the connection may be older than other dials).
	m.lastTried = c.Addr()
	<-m.connLock
}

func (m *Metadata) apply(resp *kmsg.MetadataResponse) error {
	if err := ErrorForCode(resp.ErrorCode); err != nil {
		return err
	}
	brokers := make(map[int32]string, len(resp.Brokers))
	for _, b := range resp.Brokers {
		if b.Port < 0 || b.Port > 65535 {
			return fmt.Errorf("%w: broker %d has port %d", ErrMalformedResponse, b.NodeID, b.Port)
		}
		brokers[b.NodeID] = net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port)))
	}
	var moved []int32
	defer func() { m.notifyMoved(moved) }() // after the unlock
	m.mu.Lock()
	defer m.mu.Unlock()
	defer m.publishLocked(true) // also when a malformed topic ends the loop early
	for id, addr := range brokers {
		// A broker missing from the last answer (it was down) may be
		// back elsewhere: the pools compare with where they connected.
		if was, ok := m.brokers[id]; !ok || was != addr {
			moved = append(moved, id)
		}
	}
	m.brokers = brokers
	for _, t := range resp.Topics {
		if t.Topic == nil {
			continue
		}
		name := *t.Topic
		tm := &topicMeta{err: t.ErrorCode, id: t.TopicID}
		old := m.topics[name]
		if old != nil && old.err != 0 {
			old = nil
		}
		if t.ErrorCode == int16(kafkaerr.UnknownTopicOrPartition) {
			m.missingLocked(name)
		}
		for _, p := range t.Partitions {
			if p.Partition < 0 || p.Partition >= 1<<20 {
				return fmt.Errorf("%w: topic %s has partition %d", ErrMalformedResponse, name, p.Partition)
			}
			if int(p.Partition) >= len(tm.parts) {
				tm.parts = append(tm.parts, make([]partMeta, int(p.Partition)+1-len(tm.parts))...)
			}
			tm.parts[p.Partition] = partMeta{present: true, leader: p.Leader, epoch: p.LeaderEpoch, err: p.ErrorCode}
		}
		if t.ErrorCode == 0 {
			inc, stale, fresh := m.incarnationLocked(name, t.TopicID, old, tm.parts)
			if stale {
				continue // a broker that has not heard of the deletion
			}
			tm.inc = inc
			if fresh {
				old = nil // a new topic: its leader epochs start over
			}
		}
		if old != nil {
			for i, pm := range tm.parts {
				if i < len(old.parts) {
					if prev := old.parts[i]; prev.present && pm.present && prev.epoch > pm.epoch && pm.epoch >= 0 {
						tm.parts[i] = prev // a lagging broker answered; keep the newer leader
					}
				}
			}
		}
		m.topics[name] = tm
	}
	return nil
}

// publishCountsLocked replaces counts if a topic's count changed.
func (m *Metadata) publishCountsLocked() {
	if old := m.counts.Load(); old != nil {
		same, n := true, 0
		for name, tm := range m.topics {
			if tm.err != 0 {
				continue
			}
			n++
			if c, ok := old.n[name]; !ok || c != int32(len(tm.parts)) {
				same = false
				break
			}
		}
		if same && n == len(old.n) {
			return
		}
	}
	counts := make(map[string]int32, len(m.topics))
	for name, tm := range m.topics {
		if tm.err == 0 {
			counts[name] = int32(len(tm.parts))
		}
	}
	m.counts.Store(&Counts{n: counts})
}

// Counts is a snapshot of the partition count of every topic known without
// error. It never changes: when a count changes (or a topic appears or
// fails) Metadata publishes a new one, so a caller may keep what it derived
// from a snapshot for as long as Counts still returns that same pointer.
type Counts struct{ n map[string]int32 }

// Partitions returns topic's partition count in the snapshot.
func (c *Counts) Partitions(topic string) (int32, bool) {
	if c == nil {
		return 0, false
	}
	n, ok := c.n[topic]
	return n, ok
}

// Counts returns the current snapshot of partition counts (nil before the
// first refresh that knew a topic).
func (m *Metadata) Counts() *Counts { return m.counts.Load() }

// Leader returns the leader broker id and leader epoch of a partition as of
// the last refresh. An unknown topic or partition gives *UnknownTopicError;
// a partition without a leader gives a *KafkaError (LEADER_NOT_AVAILABLE or
// the broker's partition code) naming it.
func (m *Metadata) Leader(topic string, partition int32) (brokerID int32, leaderEpoch int32, err error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.leaderLocked(topic, partition)
}

func (m *Metadata) leaderLocked(topic string, partition int32) (brokerID int32, leaderEpoch int32, err error) {
	return leaderOf(m.topics, topic, partition)
}

func (m *Metadata) topicLocked(topic string) (*topicMeta, error) { return topicOf(m.topics, topic) }

// Partitions returns a topic's partition count. A topic the cluster does not
// know (or that was never refreshed) gives *UnknownTopicError naming it.
func (m *Metadata) Partitions(topic string) (int32, error) {
	if n, ok := m.counts.Load().Partitions(topic); ok {
		return n, nil
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	tm, err := m.topicLocked(topic)
	if err != nil {
		return 0, err
	}
	return int32(len(tm.parts)), nil
}

// TopicID returns the topic's id (Metadata v10+); ok is false if unknown.
func (m *Metadata) TopicID(topic string) (id [16]byte, ok bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	tm, found := m.topics[topic]
	if !found || tm.err != 0 {
		return id, false
	}
	return tm.id, tm.id != [16]byte{}
}

// Broker returns a broker's "host:port" address.
func (m *Metadata) Broker(id int32) (addr string, ok bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	addr, ok = m.brokers[id]
	return addr, ok
}

// BrokerIDs returns the known broker ids in ascending order.
func (m *Metadata) BrokerIDs() []int32 {
	m.mu.RLock()
	ids := make([]int32, 0, len(m.brokers))
	for id := range m.brokers {
		ids = append(ids, id)
	}
	m.mu.RUnlock()
	slices.Sort(ids)
	return ids
}

// ApplyLeaderHint is ApplyLeaderHints with one hint.
func (m *Metadata) ApplyLeaderHint(topic string, partition, leader, leaderEpoch int32, addr string) {
	m.ApplyLeaderHints(LeaderHint{Topic: topic, Partition: partition, Leader: leader, LeaderEpoch: leaderEpoch, Addr: addr})
}

// onBrokerMoved registers f, called (without locks held) with each broker
// id a refresh or a leader hint gives a new address (or that the previous
// refresh did not list). Pools resolving
// through m register, so that a connection to an address a broker left is
// dropped as soon as the move is known, not when it is next asked for: a
// broker gone from the network leaves its connections open and silent,
// and requests in flight on them would otherwise wait out their timeout.
func (m *Metadata) onBrokerMoved(f func(id int32)) {
	m.movedMu.Lock()
	m.onMoved = append(m.onMoved, f)
	m.movedMu.Unlock()
}

func (m *Metadata) notifyMoved(ids []int32) {
	if len(ids) == 0 {
		return
	}
	m.movedMu.Lock()
	fs := slices.Clone(m.onMoved)
	m.movedMu.Unlock()
	for _, id := range ids {
		for _, f := range fs {
			f(id)
		}
	}
}
