package protocol

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"fmt"
	"net"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Software name and version sent in ApiVersions v3+.
const (
	clientSoftwareName    = "rollsafe"
	clientSoftwareVersion = "0.1.0"
)

// Dial connects to addr ("host:port"), optionally over TLS, performs the
// ApiVersions handshake and then cfg.Authenticate. The whole sequence is
// bounded by ctx and cfg.DialTimeout. The returned Conn must be closed.
func Dial(ctx context.Context, addr string, cfg ConnConfig) (*Conn, error) {
	cfg = cfg.withDefaults()
	ctx, cancel := context.WithTimeout(ctx, cfg.DialTimeout)
	defer cancel()

	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("protocol: dial %s: %w", addr, err)
	}
	if cfg.TLS != nil {
		tc := cfg.TLS.Clone()
		if tc.ServerName == "" {
			if host, _, err := net.SplitHostPort(addr); err == nil {
				tc.ServerName = host
			}
		}
		tlsConn := tls.Client(nc, tc)
		if err := tlsConn.HandshakeContext(ctx); err != nil {
			_ = nc.Close()
			return nil, fmt.Errorf("protocol: TLS handshake with %s: %w", addr, err)
		}
		nc = tlsConn
	}
	return handshake(ctx, nc, addr, cfg)
}

// NewConn runs the ApiVersions handshake and cfg.Authenticate over an
// already-established connection (for tests and custom transports). It takes
// ownership of nc.
func NewConn(ctx context.Context, nc net.Conn, addr string, cfg ConnConfig) (*Conn, error) {
	cfg = cfg.withDefaults()
	ctx, cancel := context.WithTimeout(ctx, cfg.DialTimeout)
	defer cancel()
	return handshake(ctx, nc, addr, cfg)
}

func handshake(ctx context.Context, nc net.Conn, addr string, cfg ConnConfig) (*Conn, error) {
	c := newConn(nc, addr, cfg)
	vs, err := c.apiVersions(ctx)
	if err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("protocol: ApiVersions with %s: %w", addr, err)
	}
	c.versions = vs
	c.log.Debug("kafka connection established", "apis", vs.Len())
	if cfg.Authenticate != nil {
		if err := cfg.Authenticate(ctx, c); err != nil {
			_ = c.Close()
			return nil, fmt.Errorf("protocol: authenticating to %s: %w", addr, err)
		}
	}
	return c, nil
}

// apiVersions asks at our highest ApiVersions version. A broker that does not
// know it answers in v0 format with UNSUPPORTED_VERSION and its own range,
// and we retry once at the highest version both know.
func (c *Conn) apiVersions(ctx context.Context) (*Versions, error) {
	ours, _ := ClientRange(18)
	v := ours.Max
	if cp, ok := c.cfg.MaxVersions[18]; ok && cp < v && cp >= 0 {
		v = cp
	}
	for attempt := 0; attempt < 2; attempt++ {
		resp, err := c.apiVersionsAt(ctx, v)
		if err != nil {
			return nil, err
		}
		if resp.ErrorCode == int16(UnsupportedVersion) && attempt == 0 {
			next := int16(-1)
			for _, k := range resp.ApiKeys {
				if k.ApiKey == 18 {
					next = min(k.MaxVersion, v-1)
				}
			}
			if next < 0 {
				next = 0
			}
			v = next
			continue
		}
		if err := ErrorForCode(resp.ErrorCode); err != nil {
			return nil, err
		}
		vs := &Versions{broker: make(map[int16]VersionRange, len(resp.ApiKeys))}
		for _, k := range resp.ApiKeys {
			if k.MinVersion > k.MaxVersion || k.MinVersion < 0 {
				return nil, fmt.Errorf("%w: API %d has range v%d-v%d", ErrMalformedResponse, k.ApiKey, k.MinVersion, k.MaxVersion)
			}
			vs.broker[k.ApiKey] = VersionRange{k.MinVersion, k.MaxVersion}
		}
		return vs, nil
	}
	return nil, fmt.Errorf("%w: broker rejected ApiVersions twice", ErrUnsupportedVersion)
}

func (c *Conn) apiVersionsAt(ctx context.Context, v int16) (*kmsg.ApiVersionsResponse, error) {
	req := kmsg.NewPtrApiVersionsRequest()
	req.SetVersion(v)
	req.ClientSoftwareName = clientSoftwareName
	req.ClientSoftwareVersion = clientSoftwareVersion
	decode := func(body []byte) (kmsg.Response, error) {
		resp := kmsg.NewPtrApiVersionsResponse()
		resp.SetVersion(v)
		// An UNSUPPORTED_VERSION answer is always encoded as v0.
		if len(body) >= 2 && int16(binary.BigEndian.Uint16(body)) == int16(UnsupportedVersion) {
			resp.SetVersion(0)
		}
		return resp, resp.ReadFrom(body)
	}
	type result struct {
		resp kmsg.Response
		err  error
	}
	ch := make(chan result, 1)
	if err := c.send(ctx, req, decode, func(r kmsg.Response, err error) { ch <- result{r, err} }); err != nil {
		return nil, err
	}
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, r.err
		}
		return r.resp.(*kmsg.ApiVersionsResponse), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
