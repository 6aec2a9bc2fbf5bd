package kafka

import (
	"net"
	"strings"
)

// defaultBrokerPort is the port of a bootstrap.servers entry that names
// none (librdkafka's RD_KAFKA_PORT).
const defaultBrokerPort = "9092"

// brokerAddr reads one bootstrap.servers entry as librdkafka does:
// "[proto://]host[:port][/path]", an IPv6 host in brackets when a port
// follows; without a port, 9092. It returns host:port ("" for an empty
// entry).
func brokerAddr(b string) string {
	b = strings.TrimSpace(b)
	if _, rest, ok := strings.Cut(b, "://"); ok { // PLAINTEXT://host:port
		b, _, _ = strings.Cut(rest, "/") // the path part of a URL is ignored
	}
	if b == "" {
		return ""
	}
	if _, _, err := net.SplitHostPort(b); err == nil {
		return b
	}
	host := strings.TrimSuffix(strings.TrimPrefix(b, "["), "]")
	return net.JoinHostPort(host, defaultBrokerPort)
}
