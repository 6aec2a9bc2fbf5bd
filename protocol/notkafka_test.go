package protocol

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Endpoints that are not a Kafka listener of the kind dialed are named as
// such: an HTTP server (its reply read as a frame of 1213486160 bytes), a
// TLS listener dialed in plaintext, a plaintext listener dialed with TLS.
func TestDialNamesWhatIsNotKafka(t *testing.T) {
	ctx := context.Background()
	cfg := ConnConfig{DialTimeout: 5 * time.Second}

	// Like nginx, the HTTP server rejects the first bytes that cannot
	// start a request line with a 400 at once.
	web, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer web.Close()
	go func() {
		for {
			c, err := web.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 512)
				if _, err := c.Read(buf); err == nil {
					_, _ = io.WriteString(c, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
				}
			}()
		}
	}()
	addr := web.Addr().String()
	_, err = Dial(ctx, addr, cfg)
	require.ErrorIs(t, err, ErrNotKafka)
	t.Log(err)
	require.ErrorIs(t, err, ErrFrameTooLarge)
	require.Contains(t, err.Error(), "this is not a Kafka listener (HTTP?)")
	require.Contains(t, err.Error(), "1213486160")
	require.Contains(t, err.Error(), addr)

	_, err = Dial(ctx, addr, ConnConfig{DialTimeout: 5 * time.Second, TLS: &tls.Config{InsecureSkipVerify: true}})
	require.ErrorIs(t, err, ErrNotKafka)
	t.Log(err)
	require.Contains(t, err.Error(), "this is not a Kafka listener (HTTP?)")

	srvCfg, _ := selfSignedTLS(t)
	tln, err := tls.Listen("tcp", "127.0.0.1:0", srvCfg)
	require.NoError(t, err)
	defer tln.Close()
	go func() {
		for {
			c, err := tln.Accept()
			if err != nil {
				return
			}
			go func() { _ = c.(*tls.Conn).Handshake(); c.Close() }()
		}
	}()
	_, err = Dial(ctx, tln.Addr().String(), cfg)
	require.Error(t, err)
	t.Log(err)
	require.Contains(t, err.Error(), "TLS listener")

	// A Kafka plaintext listener reads a ClientHello's first bytes as a
	// request of hundreds of MB and closes the connection.
	pln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer pln.Close()
	go func() {
		for {
			c, err := pln.Accept()
			if err != nil {
				return
			}
			var sz [4]byte
			if _, err := io.ReadFull(c, sz[:]); err == nil && binary.BigEndian.Uint32(sz[:]) > 100<<20 {
				c.Close()
			}
		}
	}()
	_, err = Dial(ctx, pln.Addr().String(), ConnConfig{DialTimeout: 5 * time.Second, TLS: &tls.Config{InsecureSkipVerify: true}})
	require.Error(t, err)
	t.Log(err)
	require.Contains(t, err.Error(), "plaintext listener")
}
