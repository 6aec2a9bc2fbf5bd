package protocol

import (
	"bufio"
	"context"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// scriptedPeer is a broker played step by step by the test: every request
// frame the client writes arrives on reqs as soon as it is written.
type scriptedPeer struct {
	t    *testing.T
	nc   net.Conn
	reqs chan scriptedReq
}

type scriptedReq struct {
	req  kmsg.Request
	corr int32
}

func newScriptedPeer(t *testing.T, nc net.Conn) *scriptedPeer {
	p := &scriptedPeer{t: t, nc: nc, reqs: make(chan scriptedReq, 16)}
	go func() {
		defer close(p.reqs)
		br := bufio.NewReader(nc)
		for {
			req, corr, err := readRequest(br)
			if err != nil {
				return
			}
			p.reqs <- scriptedReq{req, corr}
		}
	}()
	return p
}

// next returns the next request, failing the test after a bound.
func (p *scriptedPeer) next(key int16) scriptedReq {
	p.t.Helper()
	select {
	case r, ok := <-p.reqs:
		require.True(p.t, ok, "connection closed")
		require.Equal(p.t, kmsg.NameForKey(key), kmsg.NameForKey(r.req.Key()))
		return r
	case <-time.After(5 * time.Second):
		p.t.Fatalf("no %s request", kmsg.NameForKey(key))
		return scriptedReq{}
	}
}

// quiet checks that no request arrives for d.
func (p *scriptedPeer) quiet(d time.Duration) {
	p.t.Helper()
	select {
	case r := <-p.reqs:
		p.t.Fatalf("unexpected %s request", kmsg.NameForKey(r.req.Key()))
	case <-time.After(d):
	}
}

func (p *scriptedPeer) answer(r scriptedReq, resp kmsg.Response) {
	p.t.Helper()
	_, err := p.nc.Write(responseFrame(r.corr, r.req, resp))
	require.NoError(p.t, err)
}

// login plays SaslHandshake and one PLAIN SaslAuthenticate, announcing
// lifetime.
func (p *scriptedPeer) login(lifetime time.Duration) {
	p.t.Helper()
	hs := p.next(17)
	p.answer(hs, hs.req.ResponseKind())
	au := p.next(36)
	resp := au.req.ResponseKind().(*kmsg.SASLAuthenticateResponse)
	resp.SessionLifetimeMillis = lifetime.Milliseconds()
	p.answer(au, resp)
}

// TestReauthWaitsForInFlightAndHoldsNewRequests: a request in flight when
// re-authentication is due delays it; a request sent meanwhile waits until
// the exchange is over; nothing interleaves with the handshake.
func TestReauthWaitsForInFlightAndHoldsNewRequests(t *testing.T) {
	base := runtime.NumGoroutine()
	cli, srv := net.Pipe()
	peer := newScriptedPeer(t, srv)
	const lifetime = 100 * time.Millisecond
	type dialed struct {
		c   *Conn
		err error
	}
	dch := make(chan dialed, 1)
	go func() {
		c, err := NewConn(context.Background(), cli, "scripted", ConnConfig{Authenticate: SASL(SASLPlain("u", "p"))})
		dch <- dialed{c, err}
	}()
	av := peer.next(18)
	peer.answer(av, (&fakeBroker{}).respond(av.req))
	peer.login(lifetime)
	d := <-dch
	require.NoError(t, d.err)
	c := d.c

	// A request in flight across the moment re-authentication is due.
	first := make(chan error, 1)
	require.NoError(t, c.Send(context.Background(), kmsg.NewPtrMetadataRequest(), func(_ kmsg.Response, err error) { first <- err }))
	m1 := peer.next(3)
	// Past 90% of the lifetime re-authentication is due and waits for m1;
	// wait until it holds the gate (a loaded machine runs its timer late).
	for gated, until := false, time.Now().Add(5*time.Second); !gated; {
		if time.Now().After(until) {
			t.Fatal("re-authentication did not start within 5 s")
		}
		time.Sleep(5 * time.Millisecond)
		c.mu.Lock()
		gated = c.reauth.gate != nil
		c.mu.Unlock()
	}
	second := make(chan error, 1)
	go func() {
		_, err := c.Request(context.Background(), kmsg.NewPtrMetadataRequest())
		second <- err
	}()
	peer.quiet(50 * time.Millisecond) // neither the handshake nor the new request
	peer.answer(m1, m1.req.ResponseKind())
	require.NoError(t, <-first)

	peer.login(0) // re-authentication, now that nothing is in flight; no further lifetime
	m2 := peer.next(3)
	peer.answer(m2, m2.req.ResponseKind())
	require.NoError(t, <-second)
	require.Equal(t, 1, c.Reauthentications())
	require.Zero(t, c.SessionLifetime())

	require.NoError(t, c.Close())
	_ = srv.Close()
	checkNoLeak(t, base)
}
