package memnet

import (
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// stream is one direction of a connection: chunks written and the time
// each becomes readable.
type stream struct {
	mu      sync.Mutex
	chunks  []chunk
	last    time.Time // delivery time of the last chunk: order is kept
	eof     bool      // the writer closed: EOF once drained
	reset   bool      // the reader closed: writes fail
	wake    chan struct{}
	readDL  time.Time
	writeDL time.Time
	// A reset (ResetAfter) reaches the reader at rstAt, after what was
	// written before it: reads then fail with ECONNRESET instead of EOF.
	// Until then the writer's bytes go nowhere, as they do in flight
	// towards a peer that has reset the connection.
	rst   bool
	rstAt time.Time
}

type chunk struct {
	at time.Time
	b  []byte
}

func newStream() *stream { return &stream{wake: make(chan struct{}, 1)} }

// conn is one end of a connection: it reads in and writes out.
type conn struct {
	n             *Network
	in, out       *stream
	local, remote net.Addr
	key           string // the listener's address, for latencies
	dir           byte

	closeOnce sync.Once
}

func (c *conn) Read(p []byte) (int, error) {
	s := c.in
	for {
		s.mu.Lock()
		now := time.Now()
		if s.reset {
			s.mu.Unlock()
			return 0, c.opErr("read", net.ErrClosed)
		}
		if !s.readDL.IsZero() && !now.Before(s.readDL) {
			s.mu.Unlock()
			return 0, c.opErr("read", os.ErrDeadlineExceeded)
		}
		var wait time.Duration = -1
		if len(s.chunks) > 0 {
			h := &s.chunks[0]
			if !h.at.After(now) {
				n := copy(p, h.b)
				h.b = h.b[n:]
				if len(h.b) == 0 {
					s.chunks[0] = chunk{}
					s.chunks = s.chunks[1:]
				}
				s.mu.Unlock()
				return n, nil
			}
			wait = h.at.Sub(now)
		} else if s.eof {
			if !s.rst {
				s.mu.Unlock()
				return 0, io.EOF
			}
			if !s.rstAt.After(now) {
				s.mu.Unlock()
				return 0, c.opErr("read", syscall.ECONNRESET)
			}
			wait = s.rstAt.Sub(now)
		}
		if !s.readDL.IsZero() {
			if d := s.readDL.Sub(now); wait < 0 || d < wait {
				wait = d
			}
		}
		s.mu.Unlock()
		if wait < 0 {
			<-s.wake
			continue
		}
		t := time.NewTimer(wait)
		select {
		case <-s.wake:
		case <-t.C:
		}
		t.Stop()
	}
}

func (c *conn) Write(p []byte) (int, error) {
	s := c.out
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	switch {
	case s.eof:
		return 0, c.opErr("write", net.ErrClosed)
	case s.reset && s.rstAt.After(now):
		// The peer has reset the connection; the reset is on its way.
		return len(p), nil
	case s.reset:
		return 0, c.opErr("write", syscall.ECONNRESET)
	case !s.writeDL.IsZero() && !now.Before(s.writeDL):
		return 0, c.opErr("write", os.ErrDeadlineExceeded)
	}
	if len(p) == 0 {
		return 0, nil
	}
	at := now.Add(c.n.latency(now, c.key, c.dir, p))
	if !at.After(s.last) {
		// Behind the previous write on the stream: it arrives after it, a
		// nanosecond later, so that a reader never gets two writes at one
		// instant (two answers waking two waiters at once).
		at = s.last.Add(time.Nanosecond)
	}
	s.last = at
	if c.n.trace != nil {
		c.n.trace(fmt.Sprintf("%d write %s %c %d bytes, arrives %d: % x", now.UnixNano(), c.key, c.dir, len(p), at.UnixNano(), p[:min(len(p), 64)]))
	}
	s.chunks = append(s.chunks, chunk{at: at, b: append([]byte(nil), p...)})
	signal(s.wake)
	return len(p), nil
}

// Close ends both directions from this end: the peer reads what was
// written before and then EOF; its writes from then on fail.
func (c *conn) Close() error {
	c.closeOnce.Do(func() {
		if c.n.trace != nil {
			c.n.trace(fmt.Sprintf("%d close %s %c", time.Now().UnixNano(), c.key, c.dir))
		}
		c.out.mu.Lock()
		c.out.eof = true
		signal(c.out.wake)
		c.out.mu.Unlock()
		c.in.mu.Lock()
		c.in.reset = true
		c.in.chunks = nil
		signal(c.in.wake)
		c.in.mu.Unlock()
	})
	return nil
}

// ResetAfter resets the connection from this end, as a host or a
// middlebox dropping it does: this end reads and writes no more at once,
// while the peer reads what was written before and then, d after the last
// of it arrives (or d from now if it all has), a reset (ECONNRESET). Until
// the reset reaches it, what the peer writes goes nowhere. Close after
// ResetAfter does nothing more.
func (c *conn) ResetAfter(d time.Duration) {
	c.closeOnce.Do(func() {
		now := time.Now()
		at := now
		c.out.mu.Lock()
		if c.out.last.After(at) {
			at = c.out.last
		}
		at = at.Add(max(d, 0))
		if c.n.trace != nil {
			c.n.trace(fmt.Sprintf("%d reset %s %c, reaches the peer at %d", now.UnixNano(), c.key, c.dir, at.UnixNano()))
		}
		c.out.eof, c.out.rst, c.out.rstAt = true, true, at
		signal(c.out.wake)
		c.out.mu.Unlock()
		c.in.mu.Lock()
		c.in.reset, c.in.rstAt = true, at
		c.in.chunks = nil
		signal(c.in.wake)
		c.in.mu.Unlock()
	})
}

func (c *conn) LocalAddr() net.Addr  { return c.local }
func (c *conn) RemoteAddr() net.Addr { return c.remote }

func (c *conn) SetDeadline(t time.Time) error {
	_ = c.SetReadDeadline(t)
	return c.SetWriteDeadline(t)
}

func (c *conn) SetReadDeadline(t time.Time) error {
	c.in.mu.Lock()
	c.in.readDL = t
	signal(c.in.wake)
	c.in.mu.Unlock()
	return nil
}

func (c *conn) SetWriteDeadline(t time.Time) error {
	c.out.mu.Lock()
	c.out.writeDL = t
	c.out.mu.Unlock()
	return nil
}

func (c *conn) opErr(op string, err error) error {
	return &net.OpError{Op: op, Net: "tcp", Source: c.local, Addr: c.remote, Err: err}
}
