package kafkatest

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/kafkaerr"
	"github.com/rollsafe/rollsafe/protocol"
	"github.com/rollsafe/rollsafe/sim"
)

// TestProxyWatchSASL: a proxy in front of a SASL broker (the simulator,
// 400 ms sessions) sees each connection's authentications as the broker
// answered them — the first, the re-authentications, the refusals — and
// the same ones the broker itself records.
func TestProxyWatchSASL(t *testing.T) {
	c, err := sim.NewCluster(sim.Brokers(1), sim.SASL(sim.MechPlain, "alice", "pw"),
		sim.SASL(sim.MechScramSHA512, "alice", "pw"), sim.SessionLifetime(400*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	px, err := newProxy(c.Addrs()[0])
	if err != nil {
		t.Fatal(err)
	}
	defer px.Close()
	px.WatchSASL()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	for i, m := range []protocol.SASLMechanism{protocol.SASLPlain("alice", "pw"), protocol.SASLScramSHA512("alice", "pw")} {
		conn, err := protocol.Dial(ctx, px.Addr(), protocol.ConnConfig{Authenticate: protocol.SASL(m)})
		if err != nil {
			t.Fatal(err)
		}
		for conn.Reauthentications() < 2 {
			if _, err := conn.Request(ctx, kmsg.NewPtrMetadataRequest()); err != nil {
				t.Fatal(err)
			}
			time.Sleep(20 * time.Millisecond)
		}
		conn.Close()
		var auths []SASLAuth
		for _, a := range px.SASLAuths() {
			if a.Conn == uint64(i+1) {
				auths = append(auths, a)
			}
		}
		if len(auths) < 3 {
			t.Fatalf("%s: %d authentications seen, want 3: %+v", m.Name(), len(auths), auths)
		}
		for j, a := range auths[:3] {
			if a.Reauth != (j > 0) || !a.Accepted() || a.SessionLifetime != 400*time.Millisecond ||
				a.Answered.Before(a.Started) {
				t.Fatalf("%s: authentication %d: %+v", m.Name(), j, a)
			}
		}
	}
	if _, err := protocol.Dial(ctx, px.Addr(), protocol.ConnConfig{Authenticate: protocol.SASL(protocol.SASLPlain("alice", "nope"))}); !errors.Is(err, protocol.ErrSaslAuthenticationFailed) {
		t.Fatalf("wrong password: %v", err)
	}
	auths := px.SASLAuths()
	if last := auths[len(auths)-1]; last.Conn != 3 || last.Reauth || last.Accepted() || last.ErrorCode != int16(kafkaerr.SaslAuthenticationFailed) {
		t.Fatalf("refused authentication: %+v", last)
	}
	// The broker's own record: the same accepted authentications.
	accepted := 0
	for _, a := range auths {
		if a.Accepted() {
			accepted++
		}
	}
	if n := len(c.Recorder().Authentications()); n != accepted {
		t.Fatalf("the broker recorded %d authentications, the proxy saw %d accepted", n, accepted)
	}
}

// TestFramesAcrossChunks: frames split anywhere across the forwarded
// chunks are read the same.
func TestFramesAcrossChunks(t *testing.T) {
	var stream []byte
	var want [][]byte
	for i := range 50 {
		body := bytes.Repeat([]byte{byte(i)}, 4+i*7)
		binary.BigEndian.PutUint32(body, uint32(i))
		stream = binary.BigEndian.AppendUint32(stream, uint32(len(body)))
		stream = append(stream, body...)
		if i%3 == 0 {
			want = append(want, body)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		var got [][]byte
		var heads []uint32
		f := frames{peek: 4, decide: func(h []byte) bool {
			n := binary.BigEndian.Uint32(h)
			heads = append(heads, n)
			return n%3 == 0
		}, done: func(b []byte) { got = append(got, bytes.Clone(b)) }}
		for b := stream; len(b) > 0; {
			n := min(len(b), 1+rng.IntN(40))
			if !f.feed(b[:n]) {
				t.Fatal("not frames")
			}
			b = b[n:]
		}
		if len(heads) != 50 || len(got) != len(want) {
			t.Fatalf("%d headers, %d frames kept", len(heads), len(got))
		}
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("frame %d differs", i)
			}
		}
	}
	f := frames{peek: 8, decide: func([]byte) bool { return false }}
	if f.feed([]byte{0, 0, 0, 3, 1, 2, 3}) {
		t.Fatal("a frame shorter than a request header was taken for Kafka")
	}
}
