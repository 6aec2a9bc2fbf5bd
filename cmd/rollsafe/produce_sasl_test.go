package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/sim"
)

const (
	cliUser = "cli-producer"
	cliPass = "hunter2-but-longer"
)

// clientCert makes a self-signed client certificate; it returns the
// cert/key PEM files and a pool trusting it (for the server's ClientCAs).
func clientCert(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(7),
		Subject:               pkix.Name{CommonName: "rollsafe test client"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	require.NoError(t, err)
	certFile, keyFile = filepath.Join(dir, "client.pem"), filepath.Join(dir, "client.key")
	require.NoError(t, os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	require.NoError(t, os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600))
	return certFile, keyFile, pool
}

// mtlsSASLCluster serves TLS that requires a client certificate, plus
// SCRAM-SHA-256. It returns the cluster and the flags to reach it.
func mtlsSASLCluster(t *testing.T) (*sim.Cluster, []string) {
	t.Helper()
	dir := t.TempDir()
	ca, err := sim.NewTestCA()
	require.NoError(t, err)
	caFile := filepath.Join(dir, "ca.pem")
	require.NoError(t, os.WriteFile(caFile, ca.CACertPEM, 0o600))
	certFile, keyFile, clientCAs := clientCert(t, dir)
	srv := ca.ServerConfig()
	srv.ClientAuth = tls.RequireAndVerifyClientCert
	srv.ClientCAs = clientCAs
	c, err := sim.NewCluster(sim.Brokers(1), sim.Topic("events", 2, 1), sim.TLS(srv),
		sim.SASL(sim.MechScramSHA256, cliUser, cliPass))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c, []string{"-brokers", c.Addrs()[0], "-topic", "events", "-linger", "1ms",
		"-tls-ca", caFile, "-tls-cert", certFile, "-tls-key", keyFile}
}

func summary(t *testing.T, out string) produceSummary {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var sum produceSummary
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &sum))
	return sum
}

func TestProduceCommandTLSAndSASL(t *testing.T) {
	c, flags := mtlsSASLCluster(t)
	t.Setenv(produceSASLPasswordEnv, cliPass)
	var in strings.Builder
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&in, "line-%d\n", i)
	}
	var out, errOut bytes.Buffer
	args := append(flags, "-sasl-mechanism", "scram-sha-256", "-sasl-user", cliUser)
	code := runProduce(context.Background(), args, strings.NewReader(in.String()), &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	sum := summary(t, out.String())
	require.Equal(t, int64(100), sum.Acked)
	var total int64
	for p := int32(0); p < 2; p++ {
		hw, _, err := c.HighWatermark("events", p)
		require.NoError(t, err)
		total += hw
	}
	require.Equal(t, int64(100), total)
}

func TestProduceCommandAuthFailures(t *testing.T) {
	_, flags := mtlsSASLCluster(t)
	run := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		args = append(append([]string{}, flags...), args...)
		args = append(args, "-delivery-timeout", "5s")
		code := runProduce(context.Background(), args, strings.NewReader("a\n"), &out, &errOut)
		return code, out.String(), errOut.String()
	}

	t.Setenv(produceSASLPasswordEnv, "wrong-"+cliPass)
	code, out, errOut := run("-sasl-mechanism", "SCRAM-SHA-256", "-sasl-user", cliUser)
	require.Equal(t, 1, code)
	require.Equal(t, int64(1), summary(t, out).Failed)
	require.Contains(t, errOut, "SASL authentication with SCRAM-SHA-256")
	require.NotContains(t, errOut, cliPass)
	require.NotContains(t, errOut, cliUser)
}

func TestProduceCommandSecurityFlagErrors(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.pem")
	require.NoError(t, os.WriteFile(junk, []byte("not pem"), 0o600))
	base := []string{"-brokers", "127.0.0.1:1", "-topic", "x"}
	t.Setenv(produceSASLPasswordEnv, cliPass)
	for _, extra := range [][]string{
		{"-tls-cert", junk},
		{"-tls-key", junk},
		{"-tls-cert", junk, "-tls-key", junk},
		{"-tls-ca", junk},
		{"-tls-ca", filepath.Join(dir, "missing.pem")},
		{"-sasl-mechanism", "GSSAPI", "-sasl-user", cliUser},
		{"-sasl-mechanism", "PLAIN"},
		{"-sasl-user", cliUser},
	} {
		var out, errOut bytes.Buffer
		code := runProduce(context.Background(), append(append([]string{}, base...), extra...), strings.NewReader(""), &out, &errOut)
		require.Equal(t, 2, code, extra)
		require.Contains(t, errOut.String(), "usage", extra)
		require.NotContains(t, errOut.String(), cliPass, extra)
	}
	// The password must come from the environment.
	require.NoError(t, os.Unsetenv(produceSASLPasswordEnv))
	var out, errOut bytes.Buffer
	code := runProduce(context.Background(), append(base, "-sasl-mechanism", "PLAIN", "-sasl-user", cliUser), strings.NewReader(""), &out, &errOut)
	require.Equal(t, 2, code)
	require.Contains(t, errOut.String(), produceSASLPasswordEnv)
}

func TestProduceCommandInsecureSkipVerify(t *testing.T) {
	ca, err := sim.NewTestCA()
	require.NoError(t, err)
	c, err := sim.NewCluster(sim.Brokers(1), sim.Topic("events", 1, 1), sim.TLS(ca.ServerConfig()))
	require.NoError(t, err)
	defer c.Close()
	var out, errOut bytes.Buffer
	code := runProduce(context.Background(), []string{"-brokers", c.Addrs()[0], "-topic", "events", "-tls-insecure-skip-verify", "-linger", "1ms"},
		strings.NewReader("a\nb\n"), &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	require.Equal(t, int64(2), summary(t, out.String()).Acked)
}

func TestProduceCommandOAuthBearer(t *testing.T) {
	ca, err := sim.NewTestCA()
	require.NoError(t, err)
	dir := t.TempDir()
	caFile := filepath.Join(dir, "ca.pem")
	require.NoError(t, os.WriteFile(caFile, ca.CACertPEM, 0o600))
	c, err := sim.NewCluster(sim.Brokers(1), sim.Topic("events", 2, 1), sim.TLS(ca.ServerConfig()), sim.SASLOAuthBearer())
	require.NoError(t, err)
	defer c.Close()
	tokenFile := filepath.Join(dir, "token")
	now := time.Now()
	require.NoError(t, os.WriteFile(tokenFile, []byte(sim.UnsecuredJWT("cli", now, now.Add(time.Hour), nil)+"\n"), 0o600))
	base := []string{"-brokers", c.Addrs()[0], "-topic", "events", "-linger", "1ms", "-tls-ca", caFile,
		"-sasl-mechanism", "OAUTHBEARER", "-sasl-oauth-token-file", tokenFile, "-delivery-timeout", "5s"}
	var out, errOut bytes.Buffer
	code := runProduce(context.Background(), base, strings.NewReader("a\nb\nc\n"), &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	require.Equal(t, int64(3), summary(t, out.String()).Acked)

	expired := sim.UnsecuredJWT("cli", now.Add(-time.Hour), now.Add(-time.Minute), nil)
	require.NoError(t, os.WriteFile(tokenFile, []byte(expired), 0o600))
	out.Reset()
	errOut.Reset()
	code = runProduce(context.Background(), base, strings.NewReader("a\n"), &out, &errOut)
	require.Equal(t, 1, code)
	// An expired token is never presented: the file's token counts as a
	// provider failure, named, and never printed.
	require.Contains(t, errOut.String(), "the token expired at")
	require.NotContains(t, errOut.String(), expired)

	// A token the broker refuses (no subject) is reported as refused.
	refused := sim.UnsecuredJWT("", now, now.Add(time.Hour), nil)
	require.NoError(t, os.WriteFile(tokenFile, []byte(refused), 0o600))
	out.Reset()
	errOut.Reset()
	code = runProduce(context.Background(), base, strings.NewReader("a\n"), &out, &errOut)
	require.Equal(t, 1, code)
	require.Contains(t, errOut.String(), `rejected the OAUTHBEARER token: status "invalid_token"`)
	require.NotContains(t, errOut.String(), refused)

	for _, extra := range [][]string{
		{"-sasl-mechanism", "OAUTHBEARER"},
		{"-sasl-mechanism", "OAUTHBEARER", "-sasl-oauth-token-file", tokenFile, "-sasl-user", "u"},
		{"-sasl-oauth-token-file", tokenFile},
		{"-sasl-mechanism", "PLAIN", "-sasl-user", "u", "-sasl-oauth-token-file", tokenFile},
	} {
		var out, errOut bytes.Buffer
		t.Setenv(produceSASLPasswordEnv, cliPass)
		code := runProduce(context.Background(), append([]string{"-brokers", "127.0.0.1:1", "-topic", "x"}, extra...), strings.NewReader(""), &out, &errOut)
		require.Equal(t, 2, code, extra)
	}
}
