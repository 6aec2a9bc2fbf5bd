package kafka

import (
	"context"
	"net"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDialerSocketOptions: socket.send.buffer.bytes,
// socket.receive.buffer.bytes and socket.nagle.disable=false reach the
// broker connection's socket (Linux reports twice the buffer size asked).
func TestDialerSocketOptions(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	sockopt := func(conn net.Conn, level, opt int) int {
		raw, err := conn.(*net.TCPConn).SyscallConn()
		require.NoError(t, err)
		var v int
		var gerr error
		require.NoError(t, raw.Control(func(fd uintptr) { v, gerr = syscall.GetsockoptInt(int(fd), level, opt) }))
		require.NoError(t, gerr)
		return v
	}
	s := defaultSettings()
	require.Nil(t, s.dialer(), "nothing set: the client's own dial")
	s.sendBuffer, s.receiveBuffer, s.nagle, s.addressFamily = 100000, 120000, true, "v4"
	conn, err := s.dialer()(context.Background(), "tcp", ln.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	require.Equal(t, 200000, sockopt(conn, syscall.SOL_SOCKET, syscall.SO_SNDBUF))
	require.Equal(t, 240000, sockopt(conn, syscall.SOL_SOCKET, syscall.SO_RCVBUF))
	require.Equal(t, 0, sockopt(conn, syscall.IPPROTO_TCP, syscall.TCP_NODELAY), "Nagle on")

	s = defaultSettings()
	s.addressFamily = "v6"
	_, err = s.dialer()(context.Background(), "tcp", ln.Addr().String())
	require.Error(t, err, "tcp6 to 127.0.0.1")
}
