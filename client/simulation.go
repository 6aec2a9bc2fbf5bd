package client

import (
	"context"
	"encoding/binary"
	"hash/fnv"
	"log/slog"
	"net"
	"time"
)

// Dialer makes the producer open its connections with dial instead of a
// TCP dial: a proxy, a custom resolver, or sim/memnet's in-memory network
// (dial = n.Dial). TLS and SASL, when configured, still run over what it
// returns.
func Dialer(dial func(ctx context.Context, network, addr string) (net.Conn, error)) Option {
	return func(c *config) { c.dial = dial }
}

// SyncTest is for tests that run the producer inside a testing/synctest
// bubble, on virtual time and an in-memory network (sim.Network with
// memnet): each time the producer's loop wakes, it first lets every other
// goroutine of the bubble finish the current instant, then applies the
// inputs that arrived in that instant in one canonical order. The same
// inputs at the same virtual times then give the same execution, and a
// seed replays. Outside a bubble it only slows the producer down.
func SyncTest() Option { return func(c *config) { c.syncTest = true } }

// LevelTrace is the slog level at which the producer's loop logs every
// input it applies and every output of the idempotence machine ("in" and
// "out" records): a transcript of the execution, which under SyncTest is
// the same for the same seed. Below slog.LevelDebug, so a Debug logger
// does not see it.
const LevelTrace = slog.Level(-8)

// stagger, under SyncTest, holds a background goroutine of the given kind
// (and key: a broker, a partition) a few distinct microseconds before it
// acts, so that goroutines woken at one instant never share a connection
// or a metadata refresh in an order left to the scheduler.
func (p *Producer) stagger(kind int, key string) {
	if !p.cfg.syncTest {
		return
	}
	h := fnv.New32a()
	h.Write([]byte(key))
	time.Sleep(time.Duration(kind)*5*time.Microsecond + time.Duration(h.Sum32()%4096)*time.Nanosecond)
}

// Kinds of background goroutines, for stagger.
const (
	staggerMetadata = 1 + iota
	staggerIdentity
	staggerTopic
	staggerTail
	staggerSender
)

// simJitter is the pool's redial jitter under SyncTest: a function of the
// broker and the (virtual) time.
func simJitter(broker int32, d time.Duration) time.Duration {
	h := fnv.New64a()
	var b [12]byte
	binary.LittleEndian.PutUint32(b[:4], uint32(broker))
	binary.LittleEndian.PutUint64(b[4:], uint64(time.Now().UnixNano()))
	h.Write(b[:])
	return d/2 + time.Duration(h.Sum64()%uint64(d/2+1))
}
