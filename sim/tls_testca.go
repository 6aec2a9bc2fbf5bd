package sim

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"time"
)

// TestCA is a throwaway certificate authority and a server certificate it
// signed for 127.0.0.1, ::1 and localhost, made for tests: serve with
// TLS(ca.ServerConfig()) and dial with ca.ClientConfig(). Keys are ECDSA
// P-256; the certificates are valid from an hour ago for a day.
type TestCA struct {
	// CACertPEM is the CA certificate, PEM encoded.
	CACertPEM []byte
	// ServerCertPEM and ServerKeyPEM are the server certificate and its
	// private key (PKCS #8), PEM encoded, as a cert/key file pair.
	ServerCertPEM, ServerKeyPEM []byte
	// Pool holds the CA certificate.
	Pool *x509.CertPool
	// ServerCert is the server certificate with its key.
	ServerCert tls.Certificate
}

// NewTestCA generates a CA and a server certificate signed by it.
func NewTestCA() (*TestCA, error) {
	now := time.Now()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("sim: test CA key: %w", err)
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "rollsafe sim test CA"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("sim: test CA certificate: %w", err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, fmt.Errorf("sim: test CA certificate: %w", err)
	}

	srvKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("sim: test server key: %w", err)
	}
	srvTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "localhost"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	srvDER, err := x509.CreateCertificate(rand.Reader, srvTmpl, caCert, &srvKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("sim: test server certificate: %w", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(srvKey)
	if err != nil {
		return nil, fmt.Errorf("sim: test server key: %w", err)
	}
	ca := &TestCA{
		CACertPEM:     pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		ServerCertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srvDER}),
		ServerKeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
		Pool:          x509.NewCertPool(),
	}
	ca.Pool.AddCert(caCert)
	ca.ServerCert, err = tls.X509KeyPair(ca.ServerCertPEM, ca.ServerKeyPEM)
	if err != nil {
		return nil, fmt.Errorf("sim: test server key pair: %w", err)
	}
	return ca, nil
}

// ServerConfig returns a TLS server configuration presenting the server
// certificate (TLS 1.2 or later).
func (ca *TestCA) ServerConfig() *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{ca.ServerCert}, MinVersion: tls.VersionTLS12}
}

// ClientConfig returns a TLS client configuration trusting only the CA.
// Its ServerName is empty, so the name dialed (127.0.0.1 or localhost) is
// verified.
func (ca *TestCA) ClientConfig() *tls.Config {
	return &tls.Config{RootCAs: ca.Pool, MinVersion: tls.VersionTLS12}
}
