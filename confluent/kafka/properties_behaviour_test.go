package kafka_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/confluent/kafka"
	"github.com/rollsafe/rollsafe/protocol"
	"github.com/rollsafe/rollsafe/sim"
)

// TestDeliveryReportOnlyError: with delivery.report.only.error only the
// failed message gets a report; the delivered ones are in the log, and
// Flush counts them out all the same.
func TestDeliveryReportOnlyError(t *testing.T) {
	c := newCluster(t, 2)
	p := newProducer(t, c, kafka.ConfigMap{"delivery.report.only.error": true,
		"allow.auto.create.topics": false, "topic.metadata.propagation.max.ms": 300})
	topic, missing := "t", "missing"
	vs := values("onlyerr", 40)
	own := make(chan kafka.Event, len(vs))
	for i, v := range vs {
		var ch chan kafka.Event
		if i%2 == 0 {
			ch = own // a per-message channel gets no report for a delivered message either
		}
		require.NoError(t, p.Produce(msg(&topic, v), ch))
	}
	require.NoError(t, p.Produce(msg(&missing, "lost"), nil))
	got := drain(t, p.Events(), 1)
	require.Equal(t, 0, p.Flush(30000), "nothing left: the delivered messages had no report to wait for")
	require.Len(t, got, 1)
	require.Contains(t, got, "lost")
	require.False(t, got["lost"].acked)
	require.Equal(t, kafka.MsgStatusNotPersisted, got["lost"].status)
	require.Empty(t, own)
	select {
	case ev := <-p.Events():
		t.Fatalf("a second event: %v", ev)
	default:
	}
	log := verify(t, c.Addrs(), topic, vs, nil, false)
	n := 0
	for _, recs := range log {
		n += len(recs)
	}
	require.Equal(t, len(vs), n, "every message in the log once")
}

// TestSocketProperties: broker.address.family=v6 cannot reach a broker
// listening on 127.0.0.1 (so it is applied); v4 with socket buffers and
// Nagle's algorithm on delivers every message.
func TestSocketProperties(t *testing.T) {
	c := newCluster(t, 2)
	v6 := newProducer(t, c, kafka.ConfigMap{"broker.address.family": "v6", "socket.connection.setup.timeout.ms": 1000})
	_, err := v6.GetMetadata(nil, true, 1500)
	require.Error(t, err, "no IPv6 connection to 127.0.0.1")

	p := newProducer(t, c, kafka.ConfigMap{"broker.address.family": "v4", "socket.send.buffer.bytes": 65536,
		"socket.receive.buffer.bytes": 65536, "socket.nagle.disable": false})
	topic := "t"
	vs := values("sock", 100)
	for _, v := range vs {
		require.NoError(t, p.Produce(msg(&topic, v), nil))
	}
	verify(t, c.Addrs(), topic, vs, drain(t, p.Events(), len(vs)), true)
}

// tlsFixture is a CA and a server certificate for a name no broker is
// dialled by, and a client certificate whose key is encrypted the legacy
// PEM way.
type tlsFixture struct {
	caPEM, serverCertPEM, clientCertPEM, clientKeyPEM, encryptedKeyPEM, pkcs8EncryptedPEM string
	server                                                                                *tls.Config
}

func newTLSFixture(t *testing.T) tlsFixture {
	now := time.Now()
	key := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		require.NoError(t, err)
		return k
	}
	caKey, srvKey, cliKey := key(), key(), key()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "props CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true, IsCA: true}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	require.NoError(t, err)
	ca, err := x509.ParseCertificate(caDER)
	require.NoError(t, err)
	issue := func(serial int64, name string, usage x509.ExtKeyUsage, k *ecdsa.PrivateKey) []byte {
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name}, DNSNames: []string{name},
			NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), KeyUsage: x509.KeyUsageDigitalSignature,
			ExtKeyUsage: []x509.ExtKeyUsage{usage}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &k.PublicKey, caKey)
		require.NoError(t, err)
		return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	}
	srvCert := issue(2, "elsewhere.invalid", x509.ExtKeyUsageServerAuth, srvKey)
	cliCert := issue(3, "client", x509.ExtKeyUsageClientAuth, cliKey)
	srvDER, err := x509.MarshalECPrivateKey(srvKey)
	require.NoError(t, err)
	cliDER, err := x509.MarshalECPrivateKey(cliKey)
	require.NoError(t, err)
	//nolint:staticcheck // legacy PEM encryption is what ssl.key.password decrypts
	enc, err := x509.EncryptPEMBlock(rand.Reader, "EC PRIVATE KEY", cliDER, []byte("s3cret"), x509.PEMCipherAES256)
	require.NoError(t, err)
	srvPair, err := tls.X509KeyPair(srvCert, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: srvDER}))
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return tlsFixture{
		caPEM:             string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})),
		serverCertPEM:     string(srvCert),
		clientCertPEM:     string(cliCert),
		clientKeyPEM:      string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: cliDER})),
		encryptedKeyPEM:   string(pem.EncodeToMemory(enc)),
		pkcs8EncryptedPEM: string(pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: []byte{0x30, 0}})),
		server: &tls.Config{Certificates: []tls.Certificate{srvPair}, MinVersion: tls.VersionTLS12,
			ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool},
	}
}

// TestTLSProperties: against brokers whose certificate names another host
// and which require a client certificate: ssl.ca.pem with the default
// ssl.endpoint.identification.algorithm (https) refuses them; "none"
// verifies the chain only and delivers, with the client certificate
// from ssl.certificate.pem and a key encrypted with ssl.key.password;
// enable.ssl.certificate.verification=false delivers without a CA; a wrong
// password, an encrypted PKCS#8 key or an untrusted CA fail.
func TestTLSProperties(t *testing.T) {
	f := newTLSFixture(t)
	c := newCluster(t, 2, sim.TLS(f.server), sim.Topic("noname", 2, 3), sim.Topic("noverify", 2, 3), sim.Topic("plainkey", 2, 3))
	base := kafka.ConfigMap{"security.protocol": "ssl", "ssl.certificate.pem": f.clientCertPEM,
		"ssl.key.pem": f.encryptedKeyPEM, "ssl.key.password": "s3cret", "socket.connection.setup.timeout.ms": 1000}
	with := func(extra kafka.ConfigMap) kafka.ConfigMap {
		m := kafka.ConfigMap{}
		for k, v := range base {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	produce := func(t *testing.T, p *kafka.Producer, topic string) {
		prefix := topic
		vs := values(prefix, 30)
		for _, v := range vs {
			require.NoError(t, p.Produce(msg(&topic, v), nil))
		}
		verifyTLS(t, c, f, topic, vs, drain(t, p.Events(), len(vs)))
	}

	t.Run("hostname checked by default", func(t *testing.T) {
		p := newProducer(t, c, with(kafka.ConfigMap{"ssl.ca.pem": f.caPEM}))
		_, err := p.GetMetadata(nil, true, 2000)
		require.Error(t, err, "the certificate names elsewhere.invalid, not 127.0.0.1")
	})
	t.Run("endpoint identification none", func(t *testing.T) {
		produce(t, newProducer(t, c, with(kafka.ConfigMap{"ssl.ca.pem": f.caPEM, "ssl.endpoint.identification.algorithm": "none"})), "noname")
	})
	t.Run("an untrusted CA is still refused with none", func(t *testing.T) {
		other := newTLSFixture(t)
		p := newProducer(t, c, with(kafka.ConfigMap{"ssl.ca.pem": other.caPEM, "ssl.endpoint.identification.algorithm": "none"}))
		_, err := p.GetMetadata(nil, true, 2000)
		require.Error(t, err)
	})
	t.Run("verification off", func(t *testing.T) {
		produce(t, newProducer(t, c, with(kafka.ConfigMap{"enable.ssl.certificate.verification": false})), "noverify")
	})
	for name, key := range map[string]kafka.ConfigMap{
		"wrong password":     {"ssl.key.password": "wrong"},
		"no password":        {"ssl.key.password": ""},
		"encrypted PKCS#8":   {"ssl.key.pem": f.pkcs8EncryptedPEM},
		"ca.pem without PEM": {"ssl.ca.pem": "not a certificate"},
	} {
		t.Run(name, func(t *testing.T) {
			conf := with(key)
			conf["bootstrap.servers"] = strings.Join(c.Addrs(), ",")
			p, err := kafka.NewProducer(&conf)
			require.Nil(t, p)
			require.Error(t, err)
			require.NotContains(t, err.Error(), "\n")
		})
	}
	t.Run("unencrypted key, password unused", func(t *testing.T) {
		produce(t, newProducer(t, c, with(kafka.ConfigMap{"ssl.key.pem": f.clientKeyPEM, "enable.ssl.certificate.verification": false})), "plainkey")
	})
}

// verifyTLS reads the topic back over TLS with the fixture's client
// certificate and checks the reports against it.
func verifyTLS(t *testing.T, c *sim.Cluster, f tlsFixture, topic string, vs []string, got map[string]report) {
	t.Helper()
	for _, v := range vs {
		require.True(t, got[v].acked, v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cert, err := tls.X509KeyPair([]byte(f.clientCertPEM), []byte(f.clientKeyPEM))
	require.NoError(t, err)
	readTLS(ctx, t, c, &tls.Config{InsecureSkipVerify: true, Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, topic, vs, got) //nolint:gosec // the test's own broker
}

func readTLS(ctx context.Context, t *testing.T, c *sim.Cluster, cfg *tls.Config, topic string, vs []string, got map[string]report) {
	t.Helper()
	log, err := readback.ReadTopicConn(ctx, c.Addrs(), topic, protocol.ConnConfig{TLS: cfg})
	require.NoError(t, err)
	produced := make([]readback.Produced, 0, len(vs))
	for _, v := range vs {
		r := got[v]
		produced = append(produced, readback.Produced{ID: v, Partition: r.partition, Offset: r.offset, Acked: true})
	}
	rep := readback.Check(log, produced, func(r readback.Record) string { return string(r.Value) })
	require.True(t, rep.OK(), "%s", rep)
	require.Equal(t, len(vs), rep.InLog)
}
