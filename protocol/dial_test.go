package protocol

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"math/big"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestDialAuthenticateHook(t *testing.T) {
	base := runtime.NumGoroutine()
	f := newFakeBroker(t)
	f.handle = metadataResponder
	addr := f.listen()
	ctx := context.Background()

	ran := false
	c, err := Dial(ctx, addr, ConnConfig{Authenticate: func(ctx context.Context, c *Conn) error {
		ran = true
		require.NotNil(t, c.Versions(), "hook runs after ApiVersions")
		_, err := c.Request(ctx, kmsg.NewPtrMetadataRequest())
		return err
	}})
	require.NoError(t, err)
	require.True(t, ran)
	require.Equal(t, addr, c.Addr())
	require.NoError(t, c.Close())

	denied := errors.New("denied")
	_, err = Dial(ctx, addr, ConnConfig{Authenticate: func(context.Context, *Conn) error { return denied }})
	require.ErrorIs(t, err, denied)

	f.close()
	checkNoLeak(t, base)
}

func TestDialFailsAndTimesOut(t *testing.T) {
	_, err := Dial(context.Background(), "127.0.0.1:1", ConnConfig{DialTimeout: time.Second})
	require.Error(t, err)

	// A peer that accepts but never answers ApiVersions: bounded by DialTimeout.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
	}()
	start := time.Now()
	_, err = Dial(context.Background(), ln.Addr().String(), ConnConfig{DialTimeout: 100 * time.Millisecond})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Less(t, time.Since(start), 5*time.Second)
	(<-accepted).Close()
}

func selfSignedTLS(t *testing.T) (*tls.Config, *x509.CertPool) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}, pool
}

func TestDialTLS(t *testing.T) {
	srvCfg, roots := selfSignedTLS(t)
	f := newFakeBroker(t)
	f.handle = metadataResponder
	ln, err := tls.Listen("tcp", "127.0.0.1:0", srvCfg)
	require.NoError(t, err)
	f.serveListener(ln)
	defer f.close()

	c, err := Dial(context.Background(), ln.Addr().String(), ConnConfig{TLS: &tls.Config{RootCAs: roots}})
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Request(context.Background(), kmsg.NewPtrMetadataRequest())
	require.NoError(t, err)
}
