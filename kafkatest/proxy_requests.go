package kafkatest

import "encoding/binary"

// OnRequest makes the proxy call fn with the API key and version of
// every request a client sends through it from now on, once the bytes
// that complete the request's header have been forwarded to the broker
// (fn runs on the connection's forwarding goroutine: the rest of the
// request waits for it). nil stops the calls. Every connection's request
// frames are followed from its start, so connections already open count
// too; a connection whose bytes are not Kafka frames (TLS) is not read.
func (p *Proxy) OnRequest(fn func(key, version int16)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.onRequest = fn
}

func (p *Proxy) requestHook() func(key, version int16) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.onRequest
}

// requestWatch follows one connection's request frames (client to broker)
// and keeps the headers that arrived in the chunk being forwarded.
type requestWatch struct {
	f       frames
	stopped bool
	seen    []reqHeader
}

func newRequestWatch() *requestWatch {
	w := &requestWatch{}
	// Requests: size, key, version, correlation id; only headers count.
	w.f = frames{peek: 4, decide: func(h []byte) bool {
		w.seen = append(w.seen, reqHeader{int16(binary.BigEndian.Uint16(h)), int16(binary.BigEndian.Uint16(h[2:]))})
		return false
	}}
	return w
}

// feed reads b and returns the headers it completed.
func (w *requestWatch) feed(b []byte) []reqHeader {
	if w.stopped {
		return nil
	}
	w.seen = w.seen[:0]
	if !w.f.feed(b) {
		w.stopped = true
	}
	return w.seen
}
