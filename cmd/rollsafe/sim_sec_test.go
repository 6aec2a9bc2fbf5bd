package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/binary"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/sim"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// lockedBuffer is an io.Writer safe for the logger and the test.
type lockedBuffer struct {
	mu sync.Mutex
	sb strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sb.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sb.String()
}

// roundTrip sends req on nc and decodes its (non-flexible) response.
func roundTrip(t *testing.T, nc net.Conn, corr int32, req kmsg.Request) kmsg.Response {
	t.Helper()
	if _, err := nc.Write(kmsg.NewRequestFormatter(kmsg.FormatterClientID("t")).AppendRequest(nil, req, corr)); err != nil {
		t.Fatal(err)
	}
	_ = nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	var sz [4]byte
	if _, err := io.ReadFull(nc, sz[:]); err != nil {
		t.Fatalf("%s: %v", kmsg.NameForKey(req.Key()), err)
	}
	frame := make([]byte, binary.BigEndian.Uint32(sz[:]))
	if _, err := io.ReadFull(nc, frame); err != nil {
		t.Fatal(err)
	}
	resp := req.ResponseKind()
	if err := resp.ReadFrom(frame[4:]); err != nil {
		t.Fatal(err)
	}
	return resp
}

// plainLogin runs SaslHandshake v1 and SaslAuthenticate v1 with PLAIN.
func plainLogin(t *testing.T, nc net.Conn, user, pass string) *kmsg.SASLAuthenticateResponse {
	t.Helper()
	hs := kmsg.NewPtrSASLHandshakeRequest()
	hs.Version, hs.Mechanism = 1, "PLAIN"
	if r := roundTrip(t, nc, 1, hs).(*kmsg.SASLHandshakeResponse); r.ErrorCode != 0 {
		t.Fatalf("handshake: %d", r.ErrorCode)
	}
	auth := kmsg.NewPtrSASLAuthenticateRequest()
	auth.Version, auth.SASLAuthBytes = 1, []byte("\x00"+user+"\x00"+pass)
	return roundTrip(t, nc, 2, auth).(*kmsg.SASLAuthenticateResponse)
}

// TestRunSimTLSAndSASL: -tls-cert/-tls-key serve TLS, -sasl-* require
// PLAIN with the password from the environment, and the password never
// shows in the (verbose) log.
func TestRunSimTLSAndSASL(t *testing.T) {
	ca, err := sim.NewTestCA()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(cert, ca.ServerCertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, ca.ServerKeyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	const pass = "env-password-Qw3"
	t.Setenv(saslPasswordEnv, pass)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	var stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"sim", "-v", "-brokers", "1", "-topic", "a:1", "-tls-cert", cert, "-tls-key", key,
			"-sasl-mechanism", "PLAIN", "-sasl-user", "svc", "-sasl-session-lifetime", "1h"}, pw, &stderr)
		_ = pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	addr := strings.TrimSpace(line)
	dialer := &tls.Dialer{NetDialer: &net.Dialer{Timeout: 5 * time.Second}, Config: ca.ClientConfig()}
	open := func() net.Conn {
		nc, err := dialer.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = nc.Close() })
		return nc
	}

	nc := open()
	if r := plainLogin(t, nc, "svc", pass); r.ErrorCode != 0 || r.SessionLifetimeMillis != 3_600_000 {
		t.Fatalf("login: code %d, lifetime %d", r.ErrorCode, r.SessionLifetimeMillis)
	}
	md := kmsg.NewPtrMetadataRequest()
	md.Version = 4
	if r := roundTrip(t, nc, 3, md).(*kmsg.MetadataResponse); len(r.Topics) != 1 {
		t.Fatalf("metadata: %d topics", len(r.Topics))
	}
	if r := plainLogin(t, open(), "svc", "not-"+pass); r.ErrorCode != 58 {
		t.Fatalf("wrong password: code %d", r.ErrorCode)
	}

	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("sim did not stop")
	}
	logs := stderr.String()
	if !strings.Contains(logs, "SASL authenticated") || !strings.Contains(logs, "SASL authentication failed") {
		t.Fatalf("log lacks the logins:\n%s", logs)
	}
	if strings.Contains(logs, pass) || strings.Contains(logs, "svc") {
		t.Fatalf("log shows credentials:\n%s", logs)
	}
}

func TestRunSimSecurityFlagErrors(t *testing.T) {
	const pass = "env-password-Qw3"
	for _, tc := range []struct {
		args []string
		env  bool
		code int
	}{
		{[]string{"-tls-cert", "c.pem"}, true, 2},
		{[]string{"-tls-key", "k.pem"}, true, 2},
		{[]string{"-tls-cert", "/nonexistent/c.pem", "-tls-key", "/nonexistent/k.pem"}, true, 1},
		{[]string{"-sasl-user", "u"}, true, 2},
		{[]string{"-sasl-session-lifetime", "1s"}, true, 2},
		{[]string{"-sasl-mechanism", "PLAIN"}, true, 2},
		{[]string{"-sasl-mechanism", "GSSAPI", "-sasl-user", "u"}, true, 2},
		{[]string{"-sasl-mechanism", "SCRAM-SHA-512", "-sasl-user", "u"}, false, 2},
		{[]string{"-sasl-mechanism", "SCRAM-SHA-512", "-sasl-user", "u", "-sasl-session-lifetime", "-1s"}, true, 1},
	} {
		if tc.env {
			t.Setenv(saslPasswordEnv, pass)
		} else {
			t.Setenv(saslPasswordEnv, "")
		}
		var out, errb strings.Builder
		args := append([]string{"sim", "-brokers", "1"}, tc.args...)
		if code := run(context.Background(), args, &out, &errb); code != tc.code {
			t.Errorf("%q: exit %d, want %d (%s)", tc.args, code, tc.code, errb.String())
		}
		if out.Len() != 0 || strings.Contains(errb.String(), pass) {
			t.Errorf("%q: stdout %q, stderr %q", tc.args, out.String(), errb.String())
		}
	}
}
