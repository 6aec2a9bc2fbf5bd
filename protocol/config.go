package protocol

import (
	"context"
	"crypto/tls"
	"log/slog"
	"net"
	"time"
)

// Defaults applied to zero ConnConfig fields.
const (
	DefaultClientID       = "rollsafe"
	DefaultDialTimeout    = 10 * time.Second
	DefaultMaxInFlight    = 5
	DefaultRequestTimeout = 45 * time.Second
)

// ConnConfig configures a connection to one broker.
type ConnConfig struct {
	// ClientID is sent in every request header. Default "rollsafe".
	ClientID string
	// DialTimeout bounds TCP connect, TLS handshake and the ApiVersions
	// handshake together (default 10s). The dial context may shorten it.
	DialTimeout time.Duration
	// TLS, when non-nil, wraps the connection in TLS. An empty ServerName is
	// filled from the dialed host.
	TLS *tls.Config
	// MaxFrameBytes is the largest response frame accepted (default 100 MiB);
	// a larger announced size is a connection error.
	MaxFrameBytes int32
	// MaxInFlight is how many requests expecting a response may be pipelined
	// on the connection (default 5).
	MaxInFlight int
	// RequestTimeout: if the oldest in-flight request has no response this
	// long after it was written, or after the response before it (Kafka
	// handles a connection's requests one at a time), the connection is
	// closed with ErrResponseTimeout. Default 45s; negative disables. Keep it
	// above any broker-side timeout carried in requests (produce
	// TimeoutMillis).
	RequestTimeout time.Duration
	// MaxVersions optionally caps the version used per API key (only to
	// lower what the package would pick).
	MaxVersions map[int16]int16
	// Authenticate, when set, runs after the ApiVersions handshake and before
	// Dial returns (the SASL seam). An error fails the dial.
	Authenticate func(ctx context.Context, c *Conn) error
	// Logger receives connection events; nil discards them.
	Logger *slog.Logger
	// Dial, when set, opens the network connection instead of a TCP dial
	// (a proxy, a custom resolver, or sim/memnet's in-memory network).
	// TLS, when set, still wraps what it returns.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

func (cfg ConnConfig) withDefaults() ConnConfig {
	if cfg.ClientID == "" {
		cfg.ClientID = DefaultClientID
	}
	if cfg.DialTimeout <= 0 {
		cfg.DialTimeout = DefaultDialTimeout
	}
	if cfg.MaxFrameBytes <= 0 {
		cfg.MaxFrameBytes = DefaultMaxFrameBytes
	}
	if cfg.MaxInFlight <= 0 {
		cfg.MaxInFlight = DefaultMaxInFlight
	}
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return cfg
}
