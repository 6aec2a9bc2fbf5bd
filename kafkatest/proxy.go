package kafkatest

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// Mode is what a Proxy does with a broker's client connections.
type Mode int

const (
	// Pass forwards bytes both ways as they come.
	Pass Mode = iota
	// Delay forwards every chunk of bytes Delay after it arrived (both ways).
	Delay
	// Drop closes every open connection and closes new ones as soon as
	// they are accepted, like a broker whose port refuses connections.
	Drop
	// Blackhole accepts connections and forwards nothing: bytes are held,
	// connections stay open and silent, like a network partition. When
	// the mode changes back to Pass or Delay the held bytes are delivered
	// in order (TCP retransmitting once the partition heals), including a
	// close that happened meanwhile.
	Blackhole
)

func (m Mode) String() string {
	switch m {
	case Pass:
		return "pass"
	case Delay:
		return "delay"
	case Drop:
		return "drop"
	case Blackhole:
		return "blackhole"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// Proxy stands in front of one broker's client listener: the broker
// advertises the proxy's address, so every client connection to that
// broker passes through it. Safe for concurrent use.
type Proxy struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	mode   Mode
	delay  time.Duration
	open   chan struct{} // closed while bytes may flow (Pass, Delay)
	conns  map[*link]struct{}
	closed bool
	wg     sync.WaitGroup

	watchSASL bool   // WatchSASL: new links read their frames
	nconn     uint64 // links watched so far
	saslMu    sync.Mutex
	auths     []SASLAuth

	onRequest func(key, version int16) // OnRequest
}

// link is one proxied client connection and its broker-side twin.
type link struct {
	client, broker net.Conn
	once           sync.Once
	sasl           *saslWatch // nil unless the proxy watches SASL
	reqs           *requestWatch
}

func (l *link) close() {
	l.once.Do(func() {
		_ = l.client.Close()
		if l.broker != nil {
			_ = l.broker.Close()
		}
	})
}

// newProxy listens on 127.0.0.1 (port chosen by the system) and forwards
// to target.
func newProxy(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("kafkatest: proxy listen: %w", err)
	}
	p := &Proxy{ln: ln, target: target, open: make(chan struct{}), conns: map[*link]struct{}{}}
	close(p.open)
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr is the proxy's address, the one the broker advertises to clients.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Mode returns the current mode.
func (p *Proxy) Mode() Mode {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mode
}

// Set switches the proxy to m; d is the delay for Delay and ignored
// otherwise. Drop closes every open connection.
func (p *Proxy) Set(m Mode, d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	wasOpen := p.mode == Pass || p.mode == Delay
	p.mode, p.delay = m, d
	nowOpen := m == Pass || m == Delay
	switch {
	case wasOpen && !nowOpen:
		p.open = make(chan struct{})
	case !wasOpen && nowOpen:
		close(p.open)
	}
	if m == Drop {
		for l := range p.conns {
			l.close()
		}
	}
}

// Heal is Set(Pass, 0).
func (p *Proxy) Heal() { p.Set(Pass, 0) }

// gate returns a channel closed while bytes may flow, and the delay.
func (p *Proxy) gate() (<-chan struct{}, time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.open, p.delay
}

// Close stops the proxy and closes every connection through it.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	for l := range p.conns {
		l.close()
	}
	if p.mode != Pass && p.mode != Delay {
		close(p.open) // release held writers; their connections are closed
	}
	p.mu.Unlock()
	err := p.ln.Close()
	p.wg.Wait()
	return err
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.closed || p.mode == Drop {
			p.mu.Unlock()
			_ = c.Close()
			continue
		}
		l := &link{client: c, reqs: newRequestWatch()}
		if p.watchSASL {
			l.sasl = p.newSASLWatch()
		}
		p.conns[l] = struct{}{}
		p.wg.Add(1)
		p.mu.Unlock()
		go p.serve(l)
	}
}

// serve dials the broker and pumps both ways until either side ends.
func (p *Proxy) serve(l *link) {
	defer p.wg.Done()
	defer func() {
		l.close()
		p.mu.Lock()
		delete(p.conns, l)
		p.mu.Unlock()
	}()
	b, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	if err != nil {
		return // broker down: the client sees its connection closed
	}
	p.mu.Lock()
	l.broker = b
	dead := p.closed || p.mode == Drop
	p.mu.Unlock()
	if dead {
		_ = b.Close()
		return
	}
	done := make(chan struct{})
	go func() { p.pump(l, l.broker, l.client); close(done) }()
	p.pump(l, l.client, l.broker)
	<-done
}

type chunk struct {
	at  time.Time
	buf []byte
	err error // set on the last chunk: the source ended
}

// pump copies src to dst through the gate: a reader queues chunks with
// their arrival time, a writer releases each when the gate is open and
// its delay has passed. When either way ends the link is closed.
func (p *Proxy) pump(l *link, dst, src net.Conn) {
	q := make(chan chunk, 256)
	go func() {
		defer close(q)
		for {
			buf := make([]byte, 32<<10)
			n, err := src.Read(buf)
			if n > 0 {
				q <- chunk{at: time.Now(), buf: buf[:n]}
			}
			if err != nil {
				q <- chunk{at: time.Now(), err: err}
				return
			}
		}
	}()
	defer func() {
		l.close()
		for range q { // drain: the reader ends now that src is closed
		}
	}()
	for c := range q {
		open, d := p.gate()
		<-open
		if p.isClosed() {
			return
		}
		if _, d = p.gate(); d > 0 {
			if wait := time.Until(c.at.Add(d)); wait > 0 {
				time.Sleep(wait)
			}
		}
		if c.err != nil {
			if tc, ok := dst.(*net.TCPConn); ok && errors.Is(c.err, io.EOF) {
				_ = tc.CloseWrite() // pass the close on after the bytes before it
			}
			return
		}
		if l.sasl != nil {
			// Before the bytes go on: the answer to a request is
			// never read before the request.
			l.sasl.feed(src == l.client, c.buf)
		}
		var reqs []reqHeader
		var onRequest func(key, version int16)
		if src == l.client {
			reqs, onRequest = l.reqs.feed(c.buf), p.requestHook()
		}
		if _, err := dst.Write(c.buf); err != nil {
			return
		}
		if onRequest != nil {
			for _, h := range reqs {
				onRequest(h.key, h.version)
			}
		}
	}
}

func (p *Proxy) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}
