package protocol

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// fakeBroker is an in-memory Kafka peer: it parses request frames with kmsg
// and answers through handle. ApiVersions is answered by default.
type fakeBroker struct {
	t testing.TB
	// versions advertised; nil means every kmsg key at 0..MaxVersion.
	versions map[int16]VersionRange
	// handle returns the response for a request, or nil for no response.
	handle func(req kmsg.Request) kmsg.Response
	// raw, when set and returning non-nil, replaces the whole response
	// frame written for a request (for malformed replies).
	raw func(corr int32, req kmsg.Request) []byte
	// hangUpAfterRaw closes the connection after the first raw frame.
	hangUpAfterRaw bool

	mu    sync.Mutex
	conns []net.Conn
	wg    sync.WaitGroup
	ln    net.Listener
}

func newFakeBroker(t testing.TB) *fakeBroker {
	return &fakeBroker{t: t}
}

// pipe returns the client end of a net.Pipe served by the fake.
func (f *fakeBroker) pipe() net.Conn {
	cli, srv := net.Pipe()
	f.serve(srv)
	return cli
}

// listen serves the fake on a 127.0.0.1 TCP port and returns its address.
func (f *fakeBroker) listen() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		f.t.Fatal(err)
	}
	f.serveListener(ln)
	f.t.Cleanup(f.close)
	return ln.Addr().String()
}

// serveListener serves every connection ln accepts until f closes it.
func (f *fakeBroker) serveListener(ln net.Listener) {
	f.ln = ln
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			f.serve(nc)
		}
	}()
}

// errBadRequest marks a frame that arrived but did not decode (as opposed
// to the connection ending).
var errBadRequest = errors.New("bad request frame")

// readRequest reads one request frame from br and decodes it.
func readRequest(br *bufio.Reader) (kmsg.Request, int32, error) {
	var sz [4]byte
	if _, err := io.ReadFull(br, sz[:]); err != nil {
		return nil, 0, err
	}
	frame := make([]byte, binary.BigEndian.Uint32(sz[:]))
	if _, err := io.ReadFull(br, frame); err != nil {
		return nil, 0, err
	}
	req, corr, err := parseRequestFrame(frame)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %w", errBadRequest, err)
	}
	return req, corr, nil
}

func (f *fakeBroker) serve(nc net.Conn) {
	f.mu.Lock()
	f.conns = append(f.conns, nc)
	f.mu.Unlock()
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		defer nc.Close()
		f.loop(nc)
	}()
}

// dropConns closes every server-side connection.
func (f *fakeBroker) dropConns() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.conns {
		_ = c.Close()
	}
	f.conns = nil
}

func (f *fakeBroker) close() {
	if f.ln != nil {
		_ = f.ln.Close()
	}
	f.dropConns()
	f.wg.Wait()
}

func (f *fakeBroker) loop(nc net.Conn) {
	type inReq struct {
		req  kmsg.Request
		corr int32
	}
	queue := make(chan inReq, 64)
	go func() {
		// Read continuously so a synchronous net.Pipe never blocks the
		// client's writes while a handler is slow.
		defer close(queue)
		br := bufio.NewReader(nc)
		for {
			req, corr, err := readRequest(br)
			if err != nil && !errors.Is(err, errBadRequest) {
				return // the connection ended
			}
			if err != nil {
				f.t.Errorf("fake broker: bad request: %v", err)
				_ = nc.Close()
				return
			}
			queue <- inReq{req, corr}
		}
	}()
	defer func() {
		_ = nc.Close()
		for range queue { // let the reader finish
		}
	}()
	for in := range queue {
		var out []byte
		if f.raw != nil {
			out = f.raw(in.corr, in.req)
		}
		isRaw := out != nil
		if out == nil {
			resp := f.respond(in.req)
			if resp == nil {
				continue
			}
			out = responseFrame(in.corr, in.req, resp)
		}
		if _, err := nc.Write(out); err != nil {
			return
		}
		if f.hangUpAfterRaw && isRaw {
			return
		}
	}
}

func (f *fakeBroker) respond(req kmsg.Request) kmsg.Response {
	if r, ok := req.(*kmsg.ApiVersionsRequest); ok {
		resp := kmsg.NewPtrApiVersionsResponse()
		resp.SetVersion(r.Version)
		for key := int16(0); key < 100; key++ {
			k := kmsg.RequestForKey(key)
			if k == nil {
				continue
			}
			vr := VersionRange{0, k.MaxVersion()}
			if f.versions != nil {
				var ok bool
				if vr, ok = f.versions[key]; !ok {
					continue
				}
			}
			ak := kmsg.NewApiVersionsResponseApiKey()
			ak.ApiKey, ak.MinVersion, ak.MaxVersion = key, vr.Min, vr.Max
			resp.ApiKeys = append(resp.ApiKeys, ak)
		}
		return resp
	}
	if f.handle == nil {
		return nil
	}
	return f.handle(req)
}

func parseRequestFrame(frame []byte) (kmsg.Request, int32, error) {
	if len(frame) < 10 {
		return nil, 0, errors.New("short request")
	}
	key := int16(binary.BigEndian.Uint16(frame))
	ver := int16(binary.BigEndian.Uint16(frame[2:]))
	corr := int32(binary.BigEndian.Uint32(frame[4:]))
	idLen := int(int16(binary.BigEndian.Uint16(frame[8:])))
	body := frame[10:]
	if idLen > 0 {
		body = body[idLen:]
	}
	req := kmsg.RequestForKey(key)
	if req == nil {
		return nil, corr, errors.New("unknown key")
	}
	req.SetVersion(ver)
	if req.IsFlexible() {
		var err error
		if body, err = skipTags(body); err != nil {
			return nil, corr, err
		}
	}
	return req, corr, req.ReadFrom(body)
}

func responseFrame(corr int32, req kmsg.Request, resp kmsg.Response) []byte {
	resp.SetVersion(req.GetVersion())
	b := binary.BigEndian.AppendUint32(make([]byte, 4), uint32(corr))
	if responseHeaderFlexible(req.Key(), req.IsFlexible()) {
		b = append(b, 0)
	}
	b = resp.AppendTo(b)
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b
}

// rawFrame wraps payload in a size prefix.
func rawFrame(payload []byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(payload))), payload...)
}

// checkNoLeak fails t if the goroutine count does not return to base
// within a bounded wait.
func checkNoLeak(t *testing.T, base int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		n := runtime.NumGoroutine()
		if n <= base {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("goroutine leak: %d > %d\n%s", n, base, buf[:runtime.Stack(buf, true)])
		}
		runtime.Gosched()
		time.Sleep(5 * time.Millisecond)
	}
}
