package sim

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestTestCA(t *testing.T) {
	ca, err := NewTestCA()
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(ca.ServerCert.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"127.0.0.1", "localhost", "::1"} {
		if _, err := leaf.Verify(x509.VerifyOptions{DNSName: host, Roots: ca.Pool}); err != nil {
			t.Errorf("%s: %v", host, err)
		}
	}
	if _, err := leaf.Verify(x509.VerifyOptions{DNSName: "example.com", Roots: ca.Pool}); err == nil {
		t.Error("certificate valid for example.com")
	}
	other, err := NewTestCA()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{DNSName: "localhost", Roots: other.Pool}); err == nil {
		t.Error("another CA verifies the certificate")
	}
	if _, err := tls.X509KeyPair(ca.ServerCertPEM, ca.ServerKeyPEM); err != nil {
		t.Errorf("PEM pair: %v", err)
	}
}

// TestTLSListener: brokers serve TLS (also after a restart); plain TCP
// clients and clients not trusting the CA are refused.
func TestTLSListener(t *testing.T) {
	ca, err := NewTestCA()
	if err != nil {
		t.Fatal(err)
	}
	c := newTestCluster(t, Brokers(2), Topic("t", 2, 2), TLS(ca.ServerConfig()))
	for _, addr := range c.Addrs() {
		tc := dialTLS(t, addr, ca.ClientConfig())
		tc.do(apiVersionsReq())
		if md := tc.do(metadataAll()).(*kmsg.MetadataResponse); len(md.Brokers) != 2 {
			t.Fatalf("metadata: %d brokers", len(md.Brokers))
		}
		if st := tc.nc.(*tls.Conn).ConnectionState(); !st.HandshakeComplete || len(st.PeerCertificates) == 0 {
			t.Fatalf("TLS state %+v", st)
		}
	}
	named := ca.ClientConfig()
	named.ServerName = "localhost"
	dialTLS(t, c.Addrs()[0], named).do(metadataAll())

	// A plain Kafka request is not a TLS hello: the connection is closed.
	dial(t, c.Addrs()[0]).expectNoAnswer(apiVersionsReq())

	// A client trusting another CA fails its handshake.
	other, err := NewTestCA()
	if err != nil {
		t.Fatal(err)
	}
	d := &tls.Dialer{NetDialer: &net.Dialer{Timeout: 5 * time.Second}, Config: other.ClientConfig()}
	nc, err := d.Dial("tcp", c.Addrs()[0])
	if err == nil {
		_ = nc.Close()
		t.Fatal("handshake succeeded with an untrusted CA")
	}
	var ue x509.UnknownAuthorityError
	if !errors.As(err, &ue) {
		t.Fatalf("untrusted CA: %v", err)
	}

	if err := c.StopBroker(1); err != nil {
		t.Fatal(err)
	}
	if err := c.StartBroker(1); err != nil {
		t.Fatal(err)
	}
	dialTLS(t, c.Addrs()[1], ca.ClientConfig()).do(metadataAll())
}

// TestTLSSilentClientClose: a client that connects and never finishes its
// handshake does not hold up Close (the leak check runs in cleanup).
func TestTLSSilentClientClose(t *testing.T) {
	ca, err := NewTestCA()
	if err != nil {
		t.Fatal(err)
	}
	c := newTestCluster(t, Brokers(1), TLS(ca.ServerConfig()), SASL(MechPlain, "u", "p"))
	nc, err := net.DialTimeout("tcp", c.Addrs()[0], 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	half := dialTLS(t, c.Addrs()[0], ca.ClientConfig()) // handshaken, never authenticates
	half.do(apiVersionsReq())
	done := make(chan error, 1)
	go func() { done <- c.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close blocked by idle TLS connections")
	}
	half.expectClosed()
}
