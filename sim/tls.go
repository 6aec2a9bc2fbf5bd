package sim

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"time"
)

// tlsHandshakeTimeout bounds a client's TLS handshake.
const tlsHandshakeTimeout = 10 * time.Second

func validateTLS(cfg *tls.Config) error {
	if cfg == nil {
		return nil
	}
	if len(cfg.Certificates) == 0 && cfg.GetCertificate == nil && cfg.GetConfigForClient == nil {
		return fmt.Errorf("%w: TLS configuration without a certificate", ErrBadConfig)
	}
	return nil
}

// secureConn runs the server side of the TLS handshake on nc when the
// cluster serves TLS, bounded by tlsHandshakeTimeout and ctx; without TLS
// it returns nc. The caller keeps closing nc itself.
func (b *broker) secureConn(ctx context.Context, nc net.Conn, connID uint64) (net.Conn, bool) {
	cfg := b.c.cfg.sec.tls
	if cfg == nil {
		return nc, true
	}
	tc := tls.Server(nc, cfg)
	hctx, cancel := context.WithTimeout(ctx, tlsHandshakeTimeout)
	defer cancel()
	if err := tc.HandshakeContext(hctx); err != nil {
		b.c.log.Warn("TLS handshake failed", "broker", b.id, "conn", connID, "err", err)
		return nil, false
	}
	return tc, true
}
