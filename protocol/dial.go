package protocol

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/kafkaerr"
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

	dial := cfg.Dial
	if dial == nil {
		var d net.Dialer
		dial = d.DialContext
	}
	nc, err := dial(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("protocol: dial %s: %w", addr, err)
	}
	plaintext := cfg.TLS == nil
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
			return nil, tlsHandshakeError(addr, err)
		}
		nc = tlsConn
	}
	c, err := handshake(ctx, nc, addr, cfg)
	if err != nil && plaintext && ctx.Err() == nil && closedEarly(err) {
		err = fmt.Errorf("%w (the listener closed the connection before answering: if it is a TLS listener, enable TLS)", err)
	}
	return c, err
}

// ErrNotKafka: the peer answered in a protocol that is not Kafka's (an
// HTTP server, or a TLS listener reached without TLS, or the other way).
var ErrNotKafka = errors.New("protocol: this is not a Kafka listener")

// notKafkaError is ErrNotKafka with what gave the peer away; it also
// matches the error the bytes caused (ErrFrameTooLarge, a TLS error).
type notKafkaError struct {
	msg   string
	cause error
}

func (e *notKafkaError) Error() string   { return e.msg }
func (e *notKafkaError) Unwrap() []error { return []error{ErrNotKafka, e.cause} }

// frameSizeError explains a response frame size above limit. Some sizes
// are other protocols' first bytes: "HTTP" (1213486160) is an HTTP reply,
// 0x15 0x03 a TLS alert from a TLS listener spoken to in plaintext.
func frameSizeError(sz [4]byte, n, limit int32) error {
	switch {
	case string(sz[:]) == "HTTP":
		return &notKafkaError{cause: ErrFrameTooLarge, msg: fmt.Sprintf(
			"protocol: the reply starts with \"HTTP\" (read as a frame of %d bytes): this is not a Kafka listener (HTTP?)", n)}
	case sz[0] == 0x15 && sz[1] == 0x03:
		return &notKafkaError{cause: ErrFrameTooLarge, msg: "protocol: the reply is a TLS alert: this is a TLS listener, not a plaintext Kafka one (enable TLS)"}
	}
	return fmt.Errorf("%w: %d bytes announced, limit %d", ErrFrameTooLarge, n, limit)
}

// closedEarly reports whether err is the peer closing or resetting the
// connection.
func closedEarly(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, ErrConnClosed)
}

// tlsHandshakeError explains a failed TLS handshake: an HTTP server, or a
// plaintext listener (a Kafka one closes the connection when the
// ClientHello's first bytes announce a request of hundreds of MB).
func tlsHandshakeError(addr string, err error) error {
	var rhe tls.RecordHeaderError
	if errors.As(err, &rhe) {
		if string(rhe.RecordHeader[:4]) == "HTTP" {
			return &notKafkaError{cause: err, msg: fmt.Sprintf("protocol: TLS handshake with %s: the reply starts with \"HTTP\": this is not a Kafka listener (HTTP?)", addr)}
		}
		return &notKafkaError{cause: err, msg: fmt.Sprintf("protocol: TLS handshake with %s: %v (the listener does not speak TLS: is it a plaintext listener?)", addr, err)}
	}
	if closedEarly(err) {
		return fmt.Errorf("protocol: TLS handshake with %s: %w (the listener closed the connection: is it a plaintext listener?)", addr, err)
	}
	return fmt.Errorf("protocol: TLS handshake with %s: %w", addr, err)
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
		if nk := (*notKafkaError)(nil); errors.As(err, &nk) {
			err = nk // what the peer is matters, not the request's fate
		}
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
		if resp.ErrorCode == int16(kafkaerr.UnsupportedVersion) && attempt == 0 {
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
		if len(body) >= 2 && int16(binary.BigEndian.Uint16(body)) == int16(kafkaerr.UnsupportedVersion) {
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
