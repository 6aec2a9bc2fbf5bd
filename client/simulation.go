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
// memnet); wait is synctest.Wait. The loop calls it before it takes the
// inputs of an instant, so that every input of that instant has been
// posted, and applies them in one canonical order; and it lets the
// background goroutines that asked for a turn in that instant act one at
// a time, by kind and then name, calling wait before each (loop.go,
// loop_turns.go). The same inputs at the same virtual times then give the
// same execution, and a seed replays. A nil wait leaves the producer as
// it is outside a bubble.
//
// synctest.Wait may not be called by two goroutines at once: producers
// sharing a bubble must share a wait that lets one caller in at a time,
// waiting on a channel made inside the bubble (a wait on a mutex is not
// durably blocked), for example:
//
//	one := make(chan struct{}, 1)
//	wait := func() { one <- struct{}{}; synctest.Wait(); <-one }
func SyncTest(wait func()) Option { return func(c *config) { c.settle = wait } }

// LevelTrace is the slog level at which the producer's loop logs every
// input it applies and every output of the idempotence machine ("in" and
// "out" records): a transcript of the execution, which under SyncTest is
// the same for the same seed. Below slog.LevelDebug, so a Debug logger
// does not see it.
const LevelTrace = slog.Level(-8)

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
