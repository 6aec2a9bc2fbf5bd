package protocol

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"
)

// Pool defaults.
const (
	DefaultBackoffMin = 100 * time.Millisecond
	DefaultBackoffMax = 5 * time.Second
)

// BrokerResolver maps broker ids to addresses; *Metadata implements it.
type BrokerResolver interface {
	Broker(id int32) (addr string, ok bool)
	BrokerIDs() []int32
}

// PoolConfig configures a Pool.
type PoolConfig struct {
	// Conn configures each connection (used when Dial is nil).
	Conn ConnConfig
	// Dial, when set, replaces Dial(ctx, addr, Conn).
	Dial func(ctx context.Context, addr string) (*Conn, error)
	// BackoffMin and BackoffMax bound the wait before redialing a broker
	// after failed dials: it doubles per consecutive failure, with jitter.
	BackoffMin, BackoffMax time.Duration
	// Logger receives dial events; nil discards them.
	Logger *slog.Logger
	// Jitter, when set, picks the wait in [d/2, d] before redialing broker
	// (default: at random); a deterministic simulation makes it a function
	// of its arguments and the time.
	Jitter func(broker int32, d time.Duration) time.Duration
	// OnConnect, when set, is told of every dial: the broker, the address
	// dialed, how long the dial took (TCP, TLS, ApiVersions and SASL) and
	// its error (nil: connected). It is called on the dialing goroutine
	// and must not block.
	OnConnect func(broker int32, addr string, d time.Duration, err error)
	// OnDisconnect, when set, is told when a connection OnConnect reported
	// dies, with why (Conn.AfterDone: on its reader goroutine, before
	// Close returns). It must not block.
	OnDisconnect func(broker int32, addr string, err error)
}

// Pool keeps one connection per broker id and redials a dead one on demand,
// backing off after failures. Safe for concurrent use.
type Pool struct {
	cfg     PoolConfig
	brokers BrokerResolver
	log     *slog.Logger

	mu     sync.Mutex
	closed bool
	slots  map[int32]*slot
	done   chan struct{}
	ctx    context.Context // cancelled by Close, aborting dials
	cancel context.CancelFunc
}

type slot struct {
	lock     chan struct{} // held while dialing
	conn     *Conn         // guarded by lock
	addr     string        // the address conn was dialed at (or last tried)
	failures int
	nextTry  time.Time
	// dialCancel aborts the dial under way, if any (Drop). Guarded by
	// Pool.mu.
	dialCancel context.CancelFunc
}

// current returns the slot's connection if it is alive and still at the
// address the resolver gives for id (or the resolver no longer knows id);
// a live connection to an address the broker left is closed and forgotten,
// as are the failures counted against that address. The caller holds
// s.lock.
func (p *Pool) current(s *slot, id int32) *Conn {
	addr, ok := p.brokers.Broker(id)
	if ok && addr != s.addr {
		if s.conn != nil {
			p.log.Info("kafka broker moved, closing connection to its old address",
				"broker", id, "old", s.addr, "new", addr)
			_ = s.conn.Close()
			s.conn = nil
		}
		s.addr, s.failures, s.nextTry = addr, 0, time.Time{}
	}
	if alive(s.conn) {
		return s.conn
	}
	return nil
}

// NewPool returns a pool resolving broker ids through brokers.
func NewPool(brokers BrokerResolver, cfg PoolConfig) *Pool {
	if cfg.BackoffMin <= 0 {
		cfg.BackoffMin = DefaultBackoffMin
	}
	if cfg.BackoffMax < cfg.BackoffMin {
		cfg.BackoffMax = max(DefaultBackoffMax, cfg.BackoffMin)
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
	p := &Pool{cfg: cfg, brokers: brokers, log: cfg.Logger, slots: map[int32]*slot{}, done: make(chan struct{})}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	if w, ok := brokers.(moveWatcher); ok {
		w.onBrokerMoved(p.brokerMoved)
	}
	return p
}

// moveWatcher is a resolver that says when a broker id moves (*Metadata).
type moveWatcher interface {
	onBrokerMoved(func(id int32))
}

// brokerMoved closes the connection to broker id's old address at once,
// failing the requests in flight on it with ErrConnLostAfterWrite, so they
// are retried at the new address instead of waiting for an answer a
// vanished host never sends. A slot being dialed is left to its dialer,
// which resolves the address afresh.
func (p *Pool) brokerMoved(id int32) {
	p.idleSlot(id, func(s *slot) { p.current(s, id) })
}

// idleSlot runs fn with broker id's slot locked, unless the pool is
// closed, the broker has no slot, or a dial holds the slot (its dialer
// resolves the address afresh and nothing is in flight on it yet).
func (p *Pool) idleSlot(id int32, fn func(s *slot)) {
	p.mu.Lock()
	s := p.slots[id]
	closed := p.closed
	p.mu.Unlock()
	if s == nil || closed {
		return
	}
	select {
	case s.lock <- struct{}{}:
	default:
		return
	}
	defer func() { <-s.lock }()
	fn(s)
}

// Drop closes broker id's connection, if it has one: the requests in
// flight on it fail at once (ErrConnLostAfterWrite for those written) and
// the next Conn dials again. A dial under way is aborted (its caller's
// request was never written). It is for a broker that stopped answering
// while partitions it led moved elsewhere, so that their batches go to the
// new leaders without waiting out the request timeout.
func (p *Pool) Drop(id int32) {
	p.mu.Lock()
	var abort context.CancelFunc
	if s := p.slots[id]; s != nil && !p.closed {
		abort = s.dialCancel
	}
	p.mu.Unlock()
	if abort != nil {
		p.log.Info("aborting the dial of a broker that stopped answering; its partitions moved", "broker", id)
		abort()
		return
	}
	p.idleSlot(id, func(s *slot) {
		if s.conn != nil {
			p.log.Info("closing the connection to a broker that stopped answering; its partitions moved", "broker", id)
			_ = s.conn.Close()
			s.conn = nil
		}
	})
}

func alive(c *Conn) bool {
	if c == nil {
		return false
	}
	select {
	case <-c.Done():
		return false
	default:
		return true
	}
}

// Conn returns the live connection to brokerID, dialing it if needed. After
// failed dials it waits out the backoff (bounded by ctx) before dialing
// again. An unknown broker id gives an error matching ErrNoBroker.
//
// When the resolver gives brokerID a new address (a broker replaced or
// rescheduled comes back elsewhere under the same id), the connection to
// the old address is closed, failing the requests in flight on it with
// ErrConnLostAfterWrite (the broker may have processed them), and the new address
// is dialed without waiting out the old address's backoff.
func (p *Pool) Conn(ctx context.Context, brokerID int32) (*Conn, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, ErrClosed
	}
	s := p.slots[brokerID]
	if s == nil {
		s = &slot{lock: make(chan struct{}, 1)}
		p.slots[brokerID] = s
	}
	p.mu.Unlock()

	select {
	case s.lock <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-p.done:
		return nil, ErrClosed
	}
	defer func() { <-s.lock }()
	if c := p.current(s, brokerID); c != nil {
		return c, nil
	}
	if wait := time.Until(s.nextTry); wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("protocol: waiting to redial broker %d: %w", brokerID, ctx.Err())
		case <-p.done:
			t.Stop()
			return nil, ErrClosed
		}
	}
	addr, ok := p.brokers.Broker(brokerID)
	if !ok {
		return nil, fmt.Errorf("%w: broker id %d is not in the metadata", ErrNoBroker, brokerID)
	}
	if addr != s.addr {
		// Moved while we waited out the backoff.
		s.addr, s.failures = addr, 0
	}
	dctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(p.ctx, cancel)
	p.mu.Lock()
	s.dialCancel = cancel
	p.mu.Unlock()
	dialStart := time.Now()
	c, err := p.cfg.Dial(dctx, addr)
	p.mu.Lock()
	s.dialCancel = nil
	p.mu.Unlock()
	if p.cfg.OnConnect != nil {
		p.cfg.OnConnect(brokerID, addr, time.Since(dialStart), err)
	}
	if err == nil && p.cfg.OnDisconnect != nil {
		c.AfterDone(func(err error) { p.cfg.OnDisconnect(brokerID, addr, err) })
	}
	stop()
	cancel()
	if err != nil {
		s.failures++
		s.nextTry = time.Now().Add(p.backoff(brokerID, s.failures))
		p.log.Warn("kafka dial failed", "broker", brokerID, "addr", addr, "failures", s.failures, "err", err)
		return nil, err
	}
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed {
		_ = c.Close()
		return nil, ErrClosed
	}
	s.failures, s.nextTry, s.conn = 0, time.Time{}, c
	return c, nil
}

func (p *Pool) backoff(broker int32, failures int) time.Duration {
	d := p.cfg.BackoffMin
	for i := 1; i < failures && d < p.cfg.BackoffMax; i++ {
		d *= 2
	}
	d = min(d, p.cfg.BackoffMax)
	// Jitter in [d/2, d].
	if p.cfg.Jitter != nil {
		return min(max(p.cfg.Jitter(broker, d), d/2), d)
	}
	return d/2 + rand.N(d/2+1)
}

// Any returns a live connection to any broker: an existing one if there
// is one, otherwise the first broker (in metadata order) that dials.
func (p *Pool) Any(ctx context.Context) (*Conn, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, ErrClosed
	}
	p.mu.Unlock()
	ids := p.brokers.BrokerIDs()
	if len(ids) == 0 {
		return nil, fmt.Errorf("%w: no broker ids known", ErrNoBroker)
	}
	for _, id := range ids {
		if c := p.existing(id); c != nil {
			return c, nil
		}
	}
	var errs []error
	for _, id := range ids {
		c, err := p.Conn(ctx, id)
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
		if expired(ctx) || errors.Is(err, ErrClosed) {
			break
		}
	}
	return nil, fmt.Errorf("%w: %w", ErrNoBroker, errors.Join(errs...))
}

func (p *Pool) existing(id int32) *Conn {
	p.mu.Lock()
	s := p.slots[id]
	p.mu.Unlock()
	if s == nil {
		return nil
	}
	select {
	case s.lock <- struct{}{}:
	default:
		return nil // being dialed
	}
	defer func() { <-s.lock }()
	return p.current(s, id)
}

// Close closes every connection, failing requests in flight on them, and
// makes later calls return ErrClosed. It returns once every connection has
// ended (callbacks and OnDisconnect run), so it must not be called from a
// connection's callback.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	close(p.done)
	p.cancel()
	slots := p.slots
	p.mu.Unlock()
	for _, s := range slots {
		s.lock <- struct{}{} // wait for a dial in progress to finish
		c := s.conn
		s.conn = nil
		<-s.lock
		if c != nil {
			c.closeWait()
		}
	}
	return nil
}
