package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/sim"
)

// silentListener accepts TCP connections and never writes a byte.
func silentListener(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

// produceQuick runs `rollsafe produce` in process and returns its exit
// code, stderr and how long it took.
func produceQuick(t *testing.T, args ...string) (int, string, time.Duration) {
	t.Helper()
	var out, errOut bytes.Buffer
	start := time.Now()
	code := runProduce(context.Background(), args, strings.NewReader("a\nb\n"), &out, &errOut)
	took := time.Since(start)
	sum := lastSummary(t, out.String())
	require.Zero(t, sum.Read, "nothing read after a diagnosis")
	return code, errOut.String(), took
}

// A listener that accepts the connection and never answers is reported as
// such within the -probe-timeout the message states, not as an unknown
// topic 30 s later.
func TestProduceSilentListener(t *testing.T) {
	addr := silentListener(t)
	code, stderr, took := produceQuick(t, "-brokers", addr, "-topic", "events", "-probe-timeout", "1s")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, addr+" accepted the connection but answered nothing to an ApiVersions request within 1s")
	require.NotContains(t, stderr, "unknown topic")
	require.Less(t, took, 3*time.Second, "reported within the second it states (and some slack)")
	require.GreaterOrEqual(t, took, time.Second)
	require.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)

	// With TLS flags, the silence is in the handshake.
	code, stderr, _ = produceQuick(t, "-brokers", addr, "-topic", "events", "-probe-timeout", "1s", "-tls-insecure-skip-verify")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "completed no TLS handshake within 1s: is this a plaintext listener?")
}

// Plaintext to a TLS or SASL listener, and TLS to a plaintext one, get a
// hint naming the flags to use; a listener of the kind the flags describe
// passes the probe.
func TestProduceListenerHints(t *testing.T) {
	ca, err := sim.NewTestCA()
	require.NoError(t, err)
	tlsCluster, err := sim.NewCluster(sim.Brokers(1), sim.Topic("events", 1, 1), sim.TLS(ca.ServerConfig()))
	require.NoError(t, err)
	defer tlsCluster.Close()
	saslCluster, err := sim.NewCluster(sim.Brokers(1), sim.Topic("events", 1, 1), sim.SASL(sim.MechPlain, "alice", "pw"))
	require.NoError(t, err)
	defer saslCluster.Close()
	plain, err := sim.NewCluster(sim.Brokers(1), sim.Topic("events", 1, 1))
	require.NoError(t, err)
	defer plain.Close()

	code, stderr, took := produceQuick(t, "-brokers", tlsCluster.Addrs()[0], "-topic", "events")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "is this a TLS or SASL listener? try -tls-ca (or -tls-insecure-skip-verify) / -sasl-mechanism")
	require.Less(t, took, 5*time.Second)

	code, stderr, _ = produceQuick(t, "-brokers", saslCluster.Addrs()[0], "-topic", "events")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "closed the connection on a Metadata request sent without authentication: is this a SASL listener? try -sasl-mechanism")

	code, stderr, _ = produceQuick(t, "-brokers", plain.Addrs()[0], "-topic", "events", "-tls-insecure-skip-verify", "-probe-timeout", "2s")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "is this a plaintext listener? drop the -tls-* flags")

	// The right flags pass the probe and deliver.
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(caFile, ca.CACertPEM, 0o600))
	var out, errOut bytes.Buffer
	require.Equal(t, 0, runProduce(context.Background(), []string{"-brokers", tlsCluster.Addrs()[0], "-topic", "events", "-tls-ca", caFile},
		strings.NewReader("a\nb\n"), &out, &errOut), errOut.String())
	t.Setenv(produceSASLPasswordEnv, "pw")
	require.Equal(t, 0, runProduce(context.Background(), []string{"-brokers", saslCluster.Addrs()[0], "-topic", "events", "-sasl-mechanism", "PLAIN", "-sasl-user", "alice"},
		strings.NewReader("a\nb\n"), &out, &errOut), errOut.String())
}

// A listener answering a TLS alert to the plaintext request (as a TLS
// server may) gets the TLS hint.
func TestProduceTLSAlertAnswer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 64)
				_, _ = c.Read(buf)
				_, _ = c.Write([]byte{21, 3, 3, 0, 2, 2, 10}) // alert, TLS 1.2, fatal unexpected_message
				_, _ = c.Read(buf)                            // held open until the client closes
			}()
		}
	}()
	code, stderr, _ := produceQuick(t, "-brokers", ln.Addr().String(), "-topic", "events", "-probe-timeout", "2s")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "answered with TLS to a plaintext ApiVersions request: is this a TLS or SASL listener? try -tls-ca")
}
