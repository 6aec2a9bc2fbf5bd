package client

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rollsafe/rollsafe/batching"
	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/idempotence"
	"github.com/rollsafe/rollsafe/protocol"
	"github.com/rollsafe/rollsafe/sim"
	"github.com/rollsafe/rollsafe/sim/memnet"
)

// TestSenderFenceCheckedAfterDial: the sender's fence
// must be checked once it holds the connection it writes on. Here the
// failure callback of the old connection moves the fence during the dial:
// request R1 is written on connection 1 and held by the broker; the broker
// is then found at a new address, and request R2 — built by the loop before
// it heard of any failure — makes the sender dial. The pool closes
// connection 1 on the way (R1 fails: outcome unknown, one more failure)
// and dials the new address. R2 must be answered never written, not
// written on the new connection ahead of R1, which the broker still
// appends (10 s later): the log read back must hold R1 alone.
func TestSenderFenceCheckedAfterDial(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newSenderHarness(t)
		r1, r2 := h.batch(t, "r1"), h.batch(t, "r2")
		if err := h.c.DelayProcessing("t", 0, 1, 10*time.Second); err != nil {
			t.Fatal(err)
		}

		h.s.push([][]outgoing{{r1}}, 0)
		// Virtual time: the network's latencies pass, nothing else.
		if !until(time.Second, func() bool { n, _ := h.c.PendingFaults("t", 0); return n == 0 }) {
			t.Fatal("R1 did not reach the broker")
		}
		if got := h.s.p.loop.in.take(); len(got) != 0 {
			t.Fatalf("answers before the broker moved: %+v", got)
		}

		h.res.move("broker-0-new:9092")
		h.s.push([][]outgoing{{r2}}, 0) // built before the loop heard of a failure
		answers := map[idempotence.BatchID]answersIn{}
		until(time.Second, func() bool {
			for _, x := range h.s.p.loop.in.take() {
				a, ok := x.(answersIn)
				if !ok || len(a.round) != 1 {
					t.Fatalf("unexpected input %#v", x)
				}
				answers[a.round[0].id] = a
			}
			return len(answers) == 2
		})
		if a, ok := answers[r1.id]; !ok || !a.failure || a.resps[0].Class != idempotence.MaybeAppended {
			t.Errorf("R1 answered %+v (present %v), want the connection's failure, outcome unknown", a, ok)
		}
		if a, ok := answers[r2.id]; !ok || a.resps[0] != neverWritten || !errors.Is(a.errs[0], errBehindFailure) {
			t.Errorf("R2 answered %+v (present %v), want never written behind the failure", a, ok)
		}

		time.Sleep(11 * time.Second) // R1's append lands
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		log, err := readback.ReadTopicConn(ctx, h.c.Addrs(), "t", protocol.ConnConfig{Dial: h.mn.Dial})
		if err != nil {
			t.Fatal(err)
		}
		var values []string
		for _, rec := range log[0] {
			values = append(values, string(rec.Value))
		}
		if len(values) != 1 || values[0] != "r1" {
			t.Fatalf("log %q, want [r1]: R2 went out on the new connection ahead of R1", values)
		}
	})
}

// until checks cond every millisecond of virtual time until it holds or d
// has passed; it says whether it held.
func until(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			return false
		}
	}
	return true
}

// senderHarness is one sender on its own, writing to a 1-broker sim over
// an in-memory network; the test plays the loop (it pushes rounds and
// takes the answers from the loop's inbox).
type senderHarness struct {
	c     *sim.Cluster
	mn    *memnet.Network
	res   *movingResolver
	s     *sender
	acc   *batching.Accumulator
	out   chan *batching.Batch
	idSeq idempotence.BatchID
}

func newSenderHarness(t *testing.T) *senderHarness {
	mn := memnet.New(1)
	c, err := sim.NewCluster(sim.Brokers(1), sim.Topic("t", 1, 1), sim.Network(mn))
	if err != nil {
		t.Fatal(err)
	}
	h := &senderHarness{c: c, mn: mn, out: make(chan *batching.Batch, 4)}
	h.res = &movingResolver{addr: "broker-0:9092"}
	cfg := defaultConfig()
	connCfg := protocol.ConnConfig{Dial: mn.Dial, MaxInFlight: connInFlight, RequestTimeout: time.Minute}
	brokerAddr := c.Addrs()[0]
	pool := protocol.NewPool(h.res, protocol.PoolConfig{
		// Both names the resolver gives reach the one broker.
		Dial: func(ctx context.Context, _ string) (*protocol.Conn, error) {
			return protocol.Dial(ctx, brokerAddr, connCfg)
		},
	})
	p := &Producer{cfg: cfg, log: slog.New(slog.NewTextHandler(io.Discard, nil)), hooks: Hooks{}.filled(),
		pools: []*protocol.Pool{pool}, metaKick: make(chan struct{}, 1)}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	p.loop = &loop{p: p, in: inbox{signal: make(chan struct{}, 1)}}
	h.acc, err = batching.NewAccumulator(batching.Config{Linger: -1, Workers: 1}, func(b *batching.Batch) { h.out <- b })
	if err != nil {
		t.Fatal(err)
	}
	h.s = newSender(p, route{broker: 0})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); h.s.run() }()
	t.Cleanup(func() {
		h.s.stop()
		p.cancel()
		wg.Wait()
		_ = pool.Close()
		h.acc.Close()
		_ = c.Close()
	})
	return h
}

// batch returns a one-record batch of partition 0 with value v, as the
// loop would hand it to a sender (plain: no producer id, so the broker
// appends what it gets in the order it gets it).
func (h *senderHarness) batch(t *testing.T, v string) outgoing {
	t.Helper()
	tp := batching.TopicPartition{Topic: "t", Partition: 0}
	if err := h.acc.Append(context.Background(), tp, &batching.Record{Value: []byte(v)}, nil); err != nil {
		t.Fatal(err)
	}
	h.acc.Flush()
	b := <-h.out
	b.SetProducer(-1, -1, -1)
	h.idSeq++
	return outgoing{tp: idempotence.TopicPartition{Topic: "t", Partition: 0}, id: h.idSeq, bytes: b.Bytes(), n: b.Records}
}

// movingResolver gives broker 0's address, which move changes (the broker
// back on a new host:port).
type movingResolver struct {
	mu   sync.Mutex
	addr string
}

func (r *movingResolver) Broker(id int32) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.addr, id == 0
}

func (r *movingResolver) BrokerIDs() []int32 { return []int32{0} }

func (r *movingResolver) move(addr string) {
	r.mu.Lock()
	r.addr = addr
	r.mu.Unlock()
}
