package sim

import (
	"context"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// dialTLS opens a TLS connection speaking kmsg requests.
func dialTLS(t testing.TB, addr string, cfg *tls.Config) *testConn {
	t.Helper()
	d := &tls.Dialer{NetDialer: &net.Dialer{Timeout: 5 * time.Second}, Config: cfg}
	nc, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = nc.Close() })
	return &testConn{t: t, nc: nc, fmt: kmsg.NewRequestFormatter(kmsg.FormatterClientID("simtest"))}
}

// testClient is a SASL client: a mechanism with its credentials.
type testClient interface {
	// first is the initial client message.
	first() []byte
	// next answers the server's challenge (SCRAM's server-first).
	next(challenge []byte) (msg []byte, err error)
	// final checks the server's last message.
	final(msg []byte) error
}

func newTestClient(mech, user, pass string) testClient {
	switch mech {
	case MechPlain:
		return &plainClient{user: user, pass: pass}
	case MechScramSHA256:
		return &scramClient{h: sha256.New, user: user, pass: pass}
	case MechScramSHA512:
		return &scramClient{h: sha512.New, user: user, pass: pass}
	}
	panic("unknown mechanism " + mech)
}

type plainClient struct{ user, pass string }

func (p *plainClient) first() []byte { return []byte("\x00" + p.user + "\x00" + p.pass) }
func (p *plainClient) next([]byte) ([]byte, error) {
	return nil, errors.New("PLAIN has no challenge")
}
func (p *plainClient) final(msg []byte) error {
	if len(msg) != 0 {
		return fmt.Errorf("PLAIN success carries %q", msg)
	}
	return nil
}

// scramClient is an RFC 5802 client, written for the tests.
type scramClient struct {
	h          func() hash.Hash
	user, pass string
	cnonce     string
	bare       string
	serverSig  []byte
	// repeatNonce sends the client nonce again in front of the server's
	// in the client-final message, as librdkafka before 2.6.1 does.
	repeatNonce bool
}

func (s *scramClient) mac(key []byte, msg string) []byte {
	m := hmac.New(s.h, key)
	m.Write([]byte(msg))
	return m.Sum(nil)
}

func (s *scramClient) first() []byte {
	var b [12]byte
	_, _ = rand.Read(b[:])
	s.cnonce = base64.RawStdEncoding.EncodeToString(b[:])
	name := strings.NewReplacer("=", "=3D", ",", "=2C").Replace(s.user)
	s.bare = "n=" + name + ",r=" + s.cnonce
	return []byte("n,," + s.bare)
}

func (s *scramClient) next(challenge []byte) ([]byte, error) {
	serverFirst := string(challenge)
	var nonce, salt string
	iters := 0
	for _, kv := range strings.Split(serverFirst, ",") {
		switch {
		case strings.HasPrefix(kv, "r="):
			nonce = kv[2:]
		case strings.HasPrefix(kv, "s="):
			salt = kv[2:]
		case strings.HasPrefix(kv, "i="):
			iters, _ = strconv.Atoi(kv[2:])
		}
	}
	if !strings.HasPrefix(nonce, s.cnonce) || len(nonce) <= len(s.cnonce) {
		return nil, fmt.Errorf("server nonce %q does not extend %q", nonce, s.cnonce)
	}
	if iters != 4096 {
		return nil, fmt.Errorf("iterations %d", iters)
	}
	rawSalt, err := base64.StdEncoding.DecodeString(salt)
	if err != nil || len(rawSalt) == 0 {
		return nil, fmt.Errorf("salt %q: %v", salt, err)
	}
	salted, err := pbkdf2.Key(s.h, s.pass, rawSalt, iters, s.h().Size())
	if err != nil {
		return nil, err
	}
	clientKey := s.mac(salted, "Client Key")
	h := s.h()
	h.Write(clientKey)
	storedKey := h.Sum(nil)
	withoutProof := "c=biws,r=" + nonce
	if s.repeatNonce {
		withoutProof = "c=biws,r=" + s.cnonce + nonce
	}
	authMessage := s.bare + "," + serverFirst + "," + withoutProof
	proof := s.mac(storedKey, authMessage)
	for i := range proof {
		proof[i] ^= clientKey[i]
	}
	s.serverSig = s.mac(s.mac(salted, "Server Key"), authMessage)
	return []byte(withoutProof + ",p=" + base64.StdEncoding.EncodeToString(proof)), nil
}

func (s *scramClient) final(msg []byte) error {
	if string(msg) != "v="+base64.StdEncoding.EncodeToString(s.serverSig) {
		return fmt.Errorf("server signature %q does not verify", msg)
	}
	return nil
}

// handshake sends SaslHandshake v1 for mech.
func (tc *testConn) handshake(mech string) *kmsg.SASLHandshakeResponse {
	tc.t.Helper()
	req := kmsg.NewPtrSASLHandshakeRequest()
	req.SetVersion(1)
	req.Mechanism = mech
	return tc.do(req).(*kmsg.SASLHandshakeResponse)
}

// saslAuth sends one SaslAuthenticate at version v.
func (tc *testConn) saslAuth(v int16, msg []byte) *kmsg.SASLAuthenticateResponse {
	tc.t.Helper()
	req := kmsg.NewPtrSASLAuthenticateRequest()
	req.SetVersion(v)
	req.SASLAuthBytes = msg
	return tc.do(req).(*kmsg.SASLAuthenticateResponse)
}

// login runs SaslHandshake and SaslAuthenticate (version v) for mech. It
// returns the last SaslAuthenticate response, failed or not; a successful
// exchange has verified the server's final message.
func (tc *testConn) login(v int16, mech, user, pass string) *kmsg.SASLAuthenticateResponse {
	tc.t.Helper()
	if hs := tc.handshake(mech); hs.ErrorCode != 0 {
		tc.t.Fatalf("handshake %s: code %d (mechanisms %v)", mech, hs.ErrorCode, hs.SupportedMechanisms)
	}
	cl := newTestClient(mech, user, pass)
	resp := tc.saslAuth(v, cl.first())
	if resp.ErrorCode != 0 {
		return resp
	}
	if mech != MechPlain {
		msg, err := cl.next(resp.SASLAuthBytes)
		if err != nil {
			tc.t.Fatal(err)
		}
		if resp = tc.saslAuth(v, msg); resp.ErrorCode != 0 {
			return resp
		}
	}
	if err := cl.final(resp.SASLAuthBytes); err != nil {
		tc.t.Fatal(err)
	}
	return resp
}

// mustLogin logs in and fails the test unless it succeeded.
func (tc *testConn) mustLogin(v int16, mech, user, pass string) *kmsg.SASLAuthenticateResponse {
	tc.t.Helper()
	resp := tc.login(v, mech, user, pass)
	if resp.ErrorCode != 0 {
		tc.t.Fatalf("%s login: code %d %v", mech, resp.ErrorCode, deref(resp.ErrorMessage))
	}
	return resp
}

// expectClosed checks that the broker closed the connection: the next read
// ends (EOF or reset) rather than timing out.
func (tc *testConn) expectClosed() {
	tc.t.Helper()
	_ = tc.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	var b [1]byte
	_, err := tc.nc.Read(b[:])
	if err == nil {
		tc.t.Fatal("connection still open: read a byte")
	}
	if isTimeout(err) {
		tc.t.Fatal("connection still open: read timed out")
	}
}

// expectNoAnswer sends req and checks the connection is closed without an
// answer.
func (tc *testConn) expectNoAnswer(req kmsg.Request) {
	tc.t.Helper()
	corr := tc.send(req)
	if resp, err := tc.recv(req, corr, 5*time.Second); err == nil {
		tc.t.Fatalf("%s answered %+v; want the connection closed", kmsg.NameForKey(req.Key()), resp)
	} else if isTimeout(err) {
		tc.t.Fatalf("%s: no answer but the connection stays open", kmsg.NameForKey(req.Key()))
	} else if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) && !strings.Contains(err.Error(), "reset") {
		tc.t.Logf("%s: connection ended with %v", kmsg.NameForKey(req.Key()), err)
	}
}

// fakeClock is a settable clock for session lifetimes.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fakeClock) Advance(d time.Duration) {
	f.mu.Lock()
	f.now = f.now.Add(d)
	f.mu.Unlock()
}

// withClock makes session lifetimes run on clk.
func withClock(clk *fakeClock) Option { return func(c *config) { c.sec.now = clk.Now } }

// captureHandler is a slog handler keeping every formatted record.
type captureHandler struct {
	mu    *sync.Mutex
	buf   *strings.Builder
	attrs string
}

func newCapture() *captureHandler { return &captureHandler{mu: &sync.Mutex{}, buf: &strings.Builder{}} }

func (h *captureHandler) Enabled(_ context.Context, _ slog.Level) bool { return true }

func (h *captureHandler) Handle(_ context.Context, r slog.Record) error {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s %s%s", r.Level, r.Message, h.attrs)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&sb, " %s=%v", a.Key, a.Value.Any())
		return true
	})
	h.mu.Lock()
	h.buf.WriteString(sb.String() + "\n")
	h.mu.Unlock()
	return nil
}

func (h *captureHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	for _, a := range as {
		c.attrs += fmt.Sprintf(" %s=%v", a.Key, a.Value.Any())
	}
	return &c
}

func (h *captureHandler) WithGroup(string) slog.Handler { return h }

func (h *captureHandler) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.buf.String()
}
