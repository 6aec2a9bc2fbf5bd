package protocol

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Conn is one connection to a broker. It pipelines up to MaxInFlight
// requests and matches responses strictly in send order. Any protocol
// violation by the peer (short frame, oversized frame, wrong correlation id,
// undecodable body) closes the connection and fails every request in flight.
// Conn is safe for concurrent use.
type Conn struct {
	cfg      ConnConfig
	addr     string
	nc       net.Conn
	log      *slog.Logger
	versions *Versions // set during Dial, read-only afterwards

	sem   chan struct{} // in-flight slots for requests expecting a response
	wlock chan struct{} // write lock; a channel so waiting honours ctx
	wbuf  []byte        // guarded by wlock
	pf    produceFrame  // guarded by wlock
	// writev is set for sockets whose net.Buffers writes are one writev
	// (TCP, Unix); others (TLS, pipes) get produce frames flattened.
	writev bool

	mu      sync.Mutex
	closed  bool
	cause   error
	corr    int32
	pending []*pending

	inCallback atomic.Bool
	done       chan struct{} // closed once the reader exited and all in-flight requests failed
	// ended: the reader exited; afterDone are the calls AfterDone
	// registered before (guarded by mu).
	ended     bool
	afterDone []func(error)

	reauth reauthState // SASL re-authentication (KIP-368), see sasl_reauth.go
}

type pending struct {
	corr    int32
	key     int16
	flexHdr bool
	sentAt  time.Time
	written bool
	decode  func(body []byte) (kmsg.Response, error)
	cb      func(kmsg.Response, error)
}

func newConn(nc net.Conn, addr string, cfg ConnConfig) *Conn {
	c := &Conn{
		cfg:   cfg,
		addr:  addr,
		nc:    nc,
		log:   cfg.Logger.With("broker", addr),
		sem:   make(chan struct{}, cfg.MaxInFlight),
		wlock: make(chan struct{}, 1),
		done:  make(chan struct{}),
	}
	switch nc.(type) {
	case *net.TCPConn, *net.UnixConn:
		c.writev = true
	}
	go c.readLoop()
	return c
}

// Addr returns the address the connection was dialed to.
func (c *Conn) Addr() string { return c.addr }

// Versions returns the broker's advertised API versions.
func (c *Conn) Versions() *Versions { return c.versions }

// Done is closed once the connection is dead and every request in flight on
// it has been failed.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err returns why the connection died, or nil while it is alive.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cause
}

// Close closes the connection. Requests in flight fail with an error
// matching both ErrConnLostAfterWrite and ErrConnClosed. Close waits until
// their callbacks have run, and for a re-authentication under way to end,
// unless it is called while a callback is running (possibly from that
// callback), in which case it returns without waiting.
func (c *Conn) Close() error {
	c.fail(ErrConnClosed)
	if !c.inCallback.Load() {
		c.waitEnded()
	}
	return nil
}

// closeWait closes the connection and always waits for its end: for the
// callbacks of the requests in flight, AfterDone's calls and a
// re-authentication under way. Close skips the wait while any callback
// runs, since it cannot tell the reader's goroutine from another; the
// shutdowns that are never called from a callback (Pool.Close,
// Metadata.Close) use closeWait so they return only after every end was
// reported.
func (c *Conn) closeWait() {
	c.fail(ErrConnClosed)
	c.waitEnded()
}

func (c *Conn) waitEnded() {
	<-c.done
	c.reauth.bg.Wait()
}

// fail records the first cause and closes the socket, which ends the reader.
func (c *Conn) fail(cause error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	c.cause = cause
	c.stopReauthLocked()
	c.mu.Unlock()
	if !errors.Is(cause, ErrConnClosed) {
		c.log.Warn("kafka connection failed", "err", cause)
	}
	_ = c.nc.Close()
}

// VersionFor returns the version Send would use for API key on this
// connection, or a *VersionError.
func (c *Conn) VersionFor(key int16) (int16, error) {
	return c.versions.pick(key, c.cfg.MaxVersions, c.addr)
}

// Request sends req and waits for its response. A Produce request with
// Acks 0 returns (nil, nil) once written. If ctx ends after the request was
// written the response is discarded and ctx's error returned.
func (c *Conn) Request(ctx context.Context, req kmsg.Request) (kmsg.Response, error) {
	v, err := c.VersionFor(req.Key())
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotWritten, err)
	}
	req.SetVersion(v)
	return c.requestAt(ctx, req)
}

// requestAt is Request at the version already set on req.
func (c *Conn) requestAt(ctx context.Context, req kmsg.Request) (kmsg.Response, error) {
	type result struct {
		resp kmsg.Response
		err  error
	}
	ch := make(chan result, 1)
	if err := c.send(ctx, req, nil, func(r kmsg.Response, err error) { ch <- result{r, err} }); err != nil {
		return nil, err
	}
	select {
	case r := <-ch:
		return r.resp, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("protocol: %s request to %s written, response abandoned: %w",
			kmsg.NameForKey(req.Key()), c.addr, ctx.Err())
	}
}

// Send sets req's version to the highest both sides speak, writes it, and
// returns once it is written. If Send returns nil, cb is called exactly once:
// with the response, or with an error matching ErrConnLostAfterWrite if the
// connection died first. Callbacks run in send order on the connection's
// reader goroutine and must not block. If Send returns an error, cb is never
// called and the error matches ErrNotWritten (and *VersionError when the
// broker cannot take the API). A Produce request with Acks 0 gets no
// response: cb(nil, nil) is called from Send right after the write.
// If ctx ends while the request is only partly written, the connection is
// closed (its stream would be corrupt) and everything in flight fails.
func (c *Conn) Send(ctx context.Context, req kmsg.Request, cb func(kmsg.Response, error)) error {
	v, err := c.VersionFor(req.Key())
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNotWritten, err)
	}
	req.SetVersion(v)
	return c.send(ctx, req, nil, cb)
}

// send writes req at its current version. decode, if nil, parses into
// req.ResponseKind(). It waits while a SASL re-authentication runs.
func (c *Conn) send(ctx context.Context, req kmsg.Request, decode func([]byte) (kmsg.Response, error), cb func(kmsg.Response, error)) error {
	return c.write(ctx, req, decode, cb, false)
}

// write is send; reauth marks the requests of a re-authentication, which
// pass the gate that holds every other request back.
func (c *Conn) write(ctx context.Context, req kmsg.Request, decode func([]byte) (kmsg.Response, error), cb func(kmsg.Response, error), reauth bool) error {
	if cb == nil {
		cb = func(kmsg.Response, error) {}
	}
	if decode == nil {
		decode = func(body []byte) (kmsg.Response, error) {
			resp := req.ResponseKind()
			resp.SetVersion(req.GetVersion())
			return resp, resp.ReadFrom(body)
		}
	}
	expect := true
	if p, ok := req.(*kmsg.ProduceRequest); ok && p.Acks == 0 {
		expect = false
	}
	name := kmsg.NameForKey(req.Key())
	notWritten := func(err error) error {
		return fmt.Errorf("%w: %s to %s: %w", ErrNotWritten, name, c.addr, err)
	}
	release := func() {
		if expect {
			<-c.sem
		}
	}
	unlock := func() { <-c.wlock }
	for {
		if !reauth {
			if err := c.waitReauth(ctx); err != nil {
				return notWritten(err)
			}
		}
		if expect {
			select {
			case c.sem <- struct{}{}:
			case <-ctx.Done():
				return notWritten(ctx.Err())
			case <-c.done:
				return notWritten(c.Err())
			}
		}
		select {
		case c.wlock <- struct{}{}:
		case <-ctx.Done():
			release()
			return notWritten(ctx.Err())
		case <-c.done:
			release()
			return notWritten(c.Err())
		}
		c.mu.Lock()
		if c.closed {
			cause := c.cause
			c.mu.Unlock()
			unlock()
			release()
			return notWritten(cause)
		}
		if reauth || c.reauth.gate == nil {
			break // c.mu stays held
		}
		// A re-authentication began meanwhile: wait for it.
		c.mu.Unlock()
		unlock()
		release()
	}

	var p *pending
	c.corr++
	corr := c.corr
	if expect {
		p = &pending{corr: corr, key: req.Key(), sentAt: time.Now(), decode: decode, cb: cb,
			flexHdr: responseHeaderFlexible(req.Key(), req.IsFlexible())}
		if len(c.pending) == 0 && c.cfg.RequestTimeout > 0 {
			_ = c.nc.SetReadDeadline(p.sentAt.Add(c.cfg.RequestTimeout))
		}
		c.pending = append(c.pending, p)
	}
	c.mu.Unlock()

	if dl, ok := ctx.Deadline(); ok {
		_ = c.nc.SetWriteDeadline(dl)
	} else if c.cfg.RequestTimeout > 0 {
		_ = c.nc.SetWriteDeadline(time.Now().Add(c.cfg.RequestTimeout))
	} else {
		_ = c.nc.SetWriteDeadline(time.Time{})
	}
	stop := context.AfterFunc(ctx, func() { _ = c.nc.SetWriteDeadline(time.Unix(1, 0)) })
	n, size, werr := c.writeFrame(req, corr)
	stop()

	if werr != nil && n < size {
		c.mu.Lock()
		if p != nil {
			for i, q := range c.pending {
				if q == p {
					c.pending = append(c.pending[:i], c.pending[i+1:]...)
					break
				}
			}
		}
		c.mu.Unlock()
		unlock()
		release()
		if ctx.Err() != nil {
			werr = fmt.Errorf("%w (%w)", ctx.Err(), werr)
		}
		// A partial frame desynchronises the stream: the connection is done.
		c.fail(fmt.Errorf("writing %s: %w", name, werr))
		return notWritten(werr)
	}
	if p != nil {
		c.mu.Lock()
		p.written = true
		c.mu.Unlock()
	}
	unlock()
	if !expect {
		cb(nil, nil)
	}
	return nil
}

// writeFrame encodes req's frame and writes it, returning the bytes
// written and the frame's size. Produce requests are written as segments
// (see produceFrame): with writev on TCP, the batches are never copied.
func (c *Conn) writeFrame(req kmsg.Request, corr int32) (written, size int64, err error) {
	if pr, ok := req.(*kmsg.ProduceRequest); ok && produceSpliceable(pr) {
		segs := c.pf.encode(pr, corr, c.cfg.ClientID)
		defer c.pf.release()
		if c.writev {
			bufs := net.Buffers(segs)
			written, err = bufs.WriteTo(c.nc)
			return written, int64(c.pf.size()), err
		}
		c.wbuf = c.pf.flatten(c.wbuf[:0])
	} else {
		c.wbuf = appendRequest(c.wbuf[:0], req, corr, c.cfg.ClientID)
	}
	n, err := c.nc.Write(c.wbuf)
	size = int64(len(c.wbuf))
	if cap(c.wbuf) > maxKeptWriteBuffer {
		c.wbuf = nil // do not pin an unusually large buffer
	}
	return int64(n), size, err
}

// maxKeptWriteBuffer bounds the write buffer a connection keeps between
// requests: large enough for a produce request of several 1 MiB batches,
// so the hot path does not reallocate it for every request.
const maxKeptWriteBuffer = 16 << 20

// readLoop reads responses until the connection fails, then fails whatever
// is still in flight.
func (c *Conn) readLoop() {
	br := bufio.NewReaderSize(c.nc, 32<<10)
	var buf bytes.Buffer
	for c.readOne(br, &buf) {
		if buf.Cap() > 1<<20 {
			buf = bytes.Buffer{}
		}
	}
	c.failPending()
	c.mu.Lock()
	c.ended = true
	fs, cause := c.afterDone, c.cause
	c.afterDone = nil
	c.mu.Unlock()
	for _, f := range fs {
		f(cause)
	}
	close(c.done)
}

// AfterDone arranges for f to be called once, with Err, when the
// connection dies: on its reader goroutine, after the requests in flight
// have failed and before Done is closed (so Close waits for f); at once,
// on the caller's goroutine, if it is dead already. f must not block.
func (c *Conn) AfterDone(f func(error)) {
	c.mu.Lock()
	if !c.ended {
		c.afterDone = append(c.afterDone, f)
		c.mu.Unlock()
		return
	}
	cause := c.cause
	c.mu.Unlock()
	f(cause)
}

func (c *Conn) readOne(br *bufio.Reader, buf *bytes.Buffer) bool {
	frame, err := readFrame(br, c.cfg.MaxFrameBytes, buf)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			err = fmt.Errorf("%w after %v: %w", ErrResponseTimeout, c.cfg.RequestTimeout, err)
		} else {
			c.awaitReauthVerdict()
		}
		c.fail(err)
		return false
	}
	c.mu.Lock()
	if len(c.pending) == 0 {
		c.mu.Unlock()
		c.fail(fmt.Errorf("%w: %d-byte response with no request in flight", ErrCorrelationMismatch, len(frame)))
		return false
	}
	p := c.pending[0]
	c.pending[0] = nil
	c.pending = c.pending[1:]
	if c.cfg.RequestTimeout > 0 {
		if len(c.pending) > 0 {
			// Kafka reads a connection's next request only once it has
			// answered the one before (an acks=all produce after
			// replication): the next request's time starts now, not when
			// it was written behind this one.
			_ = c.nc.SetReadDeadline(time.Now().Add(c.cfg.RequestTimeout))
		} else {
			_ = c.nc.SetReadDeadline(time.Time{})
		}
	}
	c.mu.Unlock()
	<-c.sem

	resp, err := c.decode(p, frame)
	if err != nil {
		c.fail(err)
		c.deliver(p, nil, fmt.Errorf("%w: %w", ErrConnLostAfterWrite, err))
		return false
	}
	if p.key != produceKey {
		// kmsg's decoded byte fields (a fetch's records) alias the frame:
		// leave this buffer to the response and read the next frame into a
		// new one. Produce responses hold no bytes the caller keeps, so the
		// hot path keeps reusing its buffer.
		*buf = bytes.Buffer{}
	}
	c.deliver(p, resp, nil)
	return true
}

// produceKey is the Produce API's key.
const produceKey = 0

func (c *Conn) decode(p *pending, frame []byte) (resp kmsg.Response, err error) {
	body, err := parseResponseHeader(frame, p.corr, p.flexHdr)
	if err != nil {
		return nil, fmt.Errorf("%s response: %w", kmsg.NameForKey(p.key), err)
	}
	defer func() {
		if r := recover(); r != nil {
			resp, err = nil, fmt.Errorf("%w: %s response: decoder panic: %v", ErrMalformedResponse, kmsg.NameForKey(p.key), r)
		}
	}()
	resp, err = p.decode(body)
	if err != nil {
		return nil, fmt.Errorf("%w: %s response: %w", ErrMalformedResponse, kmsg.NameForKey(p.key), err)
	}
	return resp, nil
}

func (c *Conn) deliver(p *pending, resp kmsg.Response, err error) {
	c.inCallback.Store(true)
	defer c.inCallback.Store(false)
	p.cb(resp, err)
}

// failPending runs once the socket is closed: it waits out any write in
// progress (which then fails fast), and fails every request still queued.
func (c *Conn) failPending() {
	c.wlock <- struct{}{}
	c.mu.Lock()
	ps := c.pending
	c.pending = nil
	cause := c.cause
	c.mu.Unlock()
	<-c.wlock
	for _, p := range ps {
		<-c.sem
		c.deliver(p, nil, fmt.Errorf("%w: %s to %s: %w", ErrConnLostAfterWrite, kmsg.NameForKey(p.key), c.addr, cause))
	}
}
