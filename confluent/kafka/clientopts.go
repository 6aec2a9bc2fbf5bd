package kafka

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/compress"
	"github.com/rollsafe/rollsafe/protocol"
)

// defaultTopicWait is how long a message for a topic the cluster does not
// know waits before it fails: librdkafka's
// topic.metadata.propagation.max.ms default.
const defaultTopicWait = 30 * time.Second

// clientOptions turns the settings into rollsafe client options.
func (s *settings) clientOptions() ([]client.Option, error) {
	level := s.level
	if level == -1 {
		level = compress.DefaultLevel
	}
	// The client's own buffer must never be what refuses a message: the
	// queue.buffering.* limits are enforced by Produce. The client frees a
	// batch's room only after the callbacks of all its records ran, while
	// Produce counts a message out as soon as its report is handed over, so
	// the client may briefly hold more than Produce counts: give it twice
	// the room and more.
	bufRecords := 2*s.maxMessages + 100000
	bufBytes := 2*int64(s.maxKBytes)*1024 + int64(bufRecords)*256 + 64<<20
	opts := []client.Option{
		client.Brokers(s.brokers...),
		client.ClientID(s.clientID),
		client.Acks(s.acks),
		client.Linger(s.linger),
		client.BatchBytes(s.batchBytes),
		client.BatchRecords(s.batchMessages),
		client.Compression(s.codec, level),
		client.DeliveryTimeout(s.deliveryTimeout),
		client.RequestTimeout(s.requestTimeout),
		client.RetryBackoff(s.retryBackoff),
		client.RetryBackoffMax(s.retryBackoffMax),
		client.MaxInFlight(s.maxInFlight),
		client.MaxRecordBytes(s.messageMaxBytes + recordSlack),
		client.MaxBuffered(bufRecords, max(bufBytes, int64(s.messageMaxBytes+recordSlack))),
		client.WithPartitioner(newPartitioner(s.partitioner, s.batchBytes)),
		client.UnknownTopicWait(defaultTopicWait),
	}
	if !s.idempotent {
		opts = append(opts, client.DisableIdempotence())
	}
	if s.txnID != "" {
		opts = append(opts, client.TransactionalID(s.txnID), client.TransactionTimeout(s.txnTimeout))
	}
	if s.autoCreate {
		opts = append(opts, client.AllowAutoTopicCreation())
	}
	if s.topicWaitSet {
		opts = append(opts, client.UnknownTopicWait(s.topicWait))
	}
	if s.metadataAgeSet {
		opts = append(opts, client.MetadataMaxAge(s.metadataMaxAge))
	}
	if s.refreshInterval > 0 {
		opts = append(opts, client.MetadataMaxAge(s.refreshInterval))
	}
	if d := s.dialer(); d != nil {
		opts = append(opts, client.Dialer(d))
	}
	if s.dialTimeoutSet {
		opts = append(opts, client.DialTimeout(s.dialTimeout))
	}
	if s.security == "ssl" || s.security == "sasl_ssl" {
		cfg, err := s.tlsConfig()
		if err != nil {
			return nil, err
		}
		opts = append(opts, client.WithTLS(cfg))
	}
	if (s.security == "sasl_plaintext" || s.security == "sasl_ssl") && s.saslMechanism != "OAUTHBEARER" {
		m, err := protocol.NewSASLCredentials(s.saslMechanism, s.saslUser, s.saslPassword)
		if err != nil {
			return nil, configError(fmt.Sprintf(`"sasl.mechanisms" %s: %v`, s.saslMechanism, err))
		}
		s.saslCreds = m // SetSaslCredentials replaces them
		opts = append(opts, client.WithSASL(m))
	}
	return opts, nil
}

// tlsConfig reads ssl.ca.location / ssl.ca.pem, ssl.certificate.location /
// ssl.certificate.pem and ssl.key.location / ssl.key.pem (PEM; a key
// encrypted with ssl.key.password), enable.ssl.certificate.verification and
// ssl.endpoint.identification.algorithm. Without a CA the system's roots
// are trusted, as librdkafka does with its default "probe".
func (s *settings) tlsConfig() (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	var pool *x509.CertPool
	if s.caFile != "" && s.caFile != "probe" {
		pem, err := os.ReadFile(s.caFile)
		if err != nil {
			return nil, Error{code: ErrInvalidArg, str: fmt.Sprintf(`"ssl.ca.location": %v`, err), err: errors.Join(client.ErrInvalidConfig, err)}
		}
		pool = x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, configError(fmt.Sprintf(`"ssl.ca.location": no PEM certificate in %s`, s.caFile))
		}
	}
	if s.caPEM != "" {
		if pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM([]byte(s.caPEM)) {
			return nil, configError(`"ssl.ca.pem": no PEM certificate in it`)
		}
	}
	cfg.RootCAs = pool
	if s.certFile != "" || s.certPEM != "" {
		cert, err := s.clientCertificate()
		if err != nil {
			return nil, err
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	switch {
	case s.skipVerify:
		cfg.InsecureSkipVerify = true
	case s.noHostname:
		// Verify the chain, not the name: crypto/tls verifies both or
		// neither, so the chain is verified here.
		cfg.InsecureSkipVerify = true
		cfg.VerifyConnection = func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("tls: the broker sent no certificate")
			}
			inter := x509.NewCertPool()
			for _, c := range cs.PeerCertificates[1:] {
				inter.AddCert(c)
			}
			_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: pool, Intermediates: inter})
			return err
		}
	}
	return cfg, nil
}

// clientCertificate loads the client certificate and its key, decrypting
// a legacy encrypted PEM key with ssl.key.password.
func (s *settings) clientCertificate() (tls.Certificate, error) {
	read := func(file, text, prop string) ([]byte, error) {
		if text != "" {
			return []byte(text), nil
		}
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, Error{code: ErrInvalidArg, str: fmt.Sprintf("%q: %v", prop, err), err: errors.Join(client.ErrInvalidConfig, err)}
		}
		return b, nil
	}
	certPEM, err := read(s.certFile, s.certPEM, "ssl.certificate.location")
	if err != nil {
		return tls.Certificate{}, err
	}
	keyPEM, err := read(s.keyFile, s.keyPEM, "ssl.key.location")
	if err != nil {
		return tls.Certificate{}, err
	}
	if keyPEM, err = decryptKey(keyPEM, s.keyPassword); err != nil {
		return tls.Certificate{}, err
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return tls.Certificate{}, Error{code: ErrInvalidArg, str: fmt.Sprintf(`"ssl.certificate.location"/"ssl.key.location": %v`, err), err: errors.Join(client.ErrInvalidConfig, err)}
	}
	return cert, nil
}
