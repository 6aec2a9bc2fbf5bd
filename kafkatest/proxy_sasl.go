package kafkatest

import (
	"encoding/binary"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// SASLAuth is one SASL authentication on a client connection through a
// Proxy, as the proxy read it off the wire (WatchSASL): what the client
// asked and what the broker answered, whatever the client made of it.
type SASLAuth struct {
	Conn uint64 // the proxy's number of the client connection, from 1
	// Reauth: not the connection's first authentication (a KIP-368
	// re-authentication).
	Reauth bool
	// Started is when the client's SaslHandshake reached the proxy on
	// its way to the broker.
	Started time.Time
	// Answered is when the broker's last SaslAuthenticate response of
	// this authentication reached the proxy; zero when none did.
	Answered time.Time
	// ErrorCode is that response's error code (0: accepted), and
	// SessionLifetime the session lifetime it announced (0: none).
	ErrorCode       int16
	SessionLifetime time.Duration
}

// Accepted reports that the broker accepted the authentication.
func (a SASLAuth) Accepted() bool { return !a.Answered.IsZero() && a.ErrorCode == 0 }

// WatchSASL makes the proxy read the Kafka frames of every connection it
// accepts from now on and keep each SASL authentication (SASLAuths). For
// the proxy of a listener without TLS (PLAINTEXT, SASL_PLAINTEXT): the
// frames of a TLS listener are encrypted and nothing is found. A
// connection that authenticates with SaslHandshake v0 (raw SASL tokens
// follow, not frames) is read no further.
func (p *Proxy) WatchSASL() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.watchSASL = true
}

// SASLAuths returns the authentications seen so far on the connections
// accepted since WatchSASL, in the order they started.
func (p *Proxy) SASLAuths() []SASLAuth {
	p.saslMu.Lock()
	defer p.saslMu.Unlock()
	return append([]SASLAuth(nil), p.auths...)
}

// saslWatch reads one proxied connection's frames both ways.
type saslWatch struct {
	p    *Proxy
	conn uint64

	mu         sync.Mutex // the two directions' writers both feed
	pending    map[int32]reqHeader
	handshakes int
	last       int // index in p.auths of the connection's latest authentication
	stopped    bool
	answering  reqHeader // the request the response being read answers
	req, resp  frames
}

type reqHeader struct{ key, version int16 }

// Kafka API keys and the largest frame a watch follows.
const (
	keySASLHandshake    = 17
	keySASLAuthenticate = 36
	maxWatchedFrame     = 256 << 20
)

func (p *Proxy) newSASLWatch() *saslWatch {
	w := &saslWatch{p: p, pending: map[int32]reqHeader{}, last: -1}
	p.nconn++
	w.conn = p.nconn
	// Requests: size, key, version, correlation id; only headers count.
	w.req = frames{peek: 8, decide: func(h []byte) bool {
		w.request(reqHeader{int16(binary.BigEndian.Uint16(h)), int16(binary.BigEndian.Uint16(h[2:]))},
			int32(binary.BigEndian.Uint32(h[4:])))
		return false
	}}
	// Responses: size, correlation id; a SaslAuthenticate response is
	// read whole.
	w.resp = frames{peek: 4, decide: func(h []byte) bool {
		corr := int32(binary.BigEndian.Uint32(h))
		r, ok := w.pending[corr]
		delete(w.pending, corr)
		w.answering = r
		return ok && r.key == keySASLAuthenticate
	}, done: w.response}
	return w
}

// feed reads b, just forwarded from the client (toBroker) or the broker.
func (w *saslWatch) feed(toBroker bool, b []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	f := &w.resp
	if toBroker {
		f = &w.req
	}
	if !f.feed(b) {
		w.stopped = true
	}
}

func (w *saslWatch) request(h reqHeader, corr int32) {
	w.pending[corr] = h
	if h.key != keySASLHandshake {
		return
	}
	w.handshakes++
	w.p.saslMu.Lock()
	w.last = len(w.p.auths)
	w.p.auths = append(w.p.auths, SASLAuth{Conn: w.conn, Reauth: w.handshakes > 1, Started: time.Now()})
	w.p.saslMu.Unlock()
	if h.version == 0 {
		w.stopped = true // raw SASL tokens follow, not frames
	}
}

// response reads a whole SaslAuthenticate response frame (after its
// size): the header (correlation id, tagged fields when flexible) and the
// body.
func (w *saslWatch) response(frame []byte) {
	if w.last < 0 {
		return
	}
	req := kmsg.NewPtrSASLAuthenticateRequest()
	req.Version = w.answering.version
	body := frame[4:]
	if req.IsFlexible() {
		var ok bool
		if body, ok = skipTags(body); !ok {
			return
		}
	}
	resp := req.ResponseKind().(*kmsg.SASLAuthenticateResponse)
	if err := resp.ReadFrom(body); err != nil {
		return
	}
	w.p.saslMu.Lock()
	a := &w.p.auths[w.last]
	a.Answered, a.ErrorCode = time.Now(), resp.ErrorCode
	a.SessionLifetime = time.Duration(resp.SessionLifetimeMillis) * time.Millisecond
	w.p.saslMu.Unlock()
}

// skipTags skips a flexible header's tagged fields.
func skipTags(b []byte) ([]byte, bool) {
	n, k := binary.Uvarint(b)
	if k <= 0 {
		return nil, false
	}
	b = b[k:]
	for range n {
		if _, k = binary.Uvarint(b); k <= 0 {
			return nil, false
		}
		b = b[k:]
		size, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < size {
			return nil, false
		}
		b = b[k+int(size):]
	}
	return b, true
}

// frames follows one direction's size-prefixed frames across the chunks
// the proxy forwards: of each frame it reads the first peek bytes, asks
// decide whether to keep the frame whole, and if so gives it to done.
type frames struct {
	peek   int
	decide func(head []byte) bool
	done   func(frame []byte)

	size    []byte // the size prefix read so far
	left    int    // bytes of the current frame still to come
	decided bool
	whole   bool
	body    []byte
}

// feed reads b; false when the stream is not Kafka frames.
func (f *frames) feed(b []byte) bool {
	for len(b) > 0 {
		if f.left == 0 {
			n := min(4-len(f.size), len(b))
			f.size, b = append(f.size, b[:n]...), b[n:]
			if len(f.size) < 4 {
				return true
			}
			size := int(int32(binary.BigEndian.Uint32(f.size)))
			f.size = f.size[:0]
			if size < f.peek || size > maxWatchedFrame {
				return false
			}
			f.left, f.decided, f.whole, f.body = size, false, false, f.body[:0]
			continue
		}
		var n int
		switch {
		case !f.decided:
			n = min(f.peek-len(f.body), len(b))
			f.body = append(f.body, b[:n]...)
		case f.whole:
			n = min(f.left, len(b))
			f.body = append(f.body, b[:n]...)
		default:
			n = min(f.left, len(b))
		}
		f.left, b = f.left-n, b[n:]
		if !f.decided && len(f.body) == f.peek {
			f.decided, f.whole = true, f.decide(f.body)
		}
		if f.left == 0 && f.whole {
			f.done(f.body)
		}
	}
	return true
}
