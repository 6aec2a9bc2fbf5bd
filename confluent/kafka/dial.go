package kafka

import (
	"context"
	"net"
)

// dialer applies broker.address.family, socket.send.buffer.bytes,
// socket.receive.buffer.bytes and socket.nagle.disable to each broker
// connection; nil when none is set (the client's own dial).
func (s *settings) dialer() func(ctx context.Context, network, addr string) (net.Conn, error) {
	if (s.addressFamily == "" || s.addressFamily == "any") && s.sendBuffer == 0 && s.receiveBuffer == 0 && !s.nagle {
		return nil
	}
	family, send, receive, nagle := s.addressFamily, s.sendBuffer, s.receiveBuffer, s.nagle
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		switch family {
		case "v4":
			network = "tcp4"
		case "v6":
			network = "tcp6"
		}
		var d net.Dialer
		conn, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		tcp, ok := conn.(*net.TCPConn)
		if !ok {
			return conn, nil
		}
		if send > 0 {
			err = tcp.SetWriteBuffer(send)
		}
		if receive > 0 && err == nil {
			err = tcp.SetReadBuffer(receive)
		}
		if nagle && err == nil {
			err = tcp.SetNoDelay(false)
		}
		if err != nil {
			conn.Close()
			return nil, err
		}
		return conn, nil
	}
}
