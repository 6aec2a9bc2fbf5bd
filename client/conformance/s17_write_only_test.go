package conformance

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/kafkaerr"
	"github.com/rollsafe/rollsafe/protocol"
	"github.com/rollsafe/rollsafe/sim"
)

// TestConformance17WriteOnlyPrincipal the producer
// authenticates as a principal granted WRITE on the topic and nothing else,
// as many deployments configure producers; the brokers authorize as
// Kafka's does, so its DescribeProducers and Fetch are answered
// TOPIC_AUTHORIZATION_FAILED (READ needed). Through faults that need the
// partition settled — a batch whose every attempt loses its connection once
// read, the leader appending it after the delivery deadline, then a batch
// appended whose connection closes instead of answering, followed by one
// answered
// OUT_OF_ORDER_SEQUENCE_NUMBER — nothing
// the producer cannot prove absent is reported ErrNotWritten: those
// records end ErrOutcomeUnknown and are never written a second time.
// Production carries on, and an admin principal reading the topic back
// finds no duplicate, no loss, nothing reported not-written present.
func TestConformance17WriteOnlyPrincipal(t *testing.T) {
	world(t, func(t *testing.T) {
		c := stalledCfg(sim.SASL(sim.MechPlain, "writer", "w-secret"), sim.SASL(sim.MechPlain, "admin", "a-secret"),
			sim.ACL("writer", topic, sim.OpWrite), sim.SuperUser("admin"))
		c.client = append(c.client, client.SASLPlain("writer", "w-secret"))
		r := startT(t, c)
		ctx := context.Background()
		r.produceTo(ctx, "warm", 50, one(0))
		r.check(t, r.wait(10*time.Second), "warm-up")
		r.replicated(t, 0)

		// Every attempt of B1 loses its connection once the leader has read
		// it, and the leader appends it later, after B1's delivery deadline:
		// only the leader's producer state or log could settle it.
		r.check(t, r.c.ProcessAfterDisconnect(topic, 0, 1000, 1200*time.Millisecond), "late")
		r.produceTo(ctx, "b1", 5, one(0))
		r.check(t, r.wait(10*time.Second), "b1")
		late := func(pr sim.ProduceRecord) bool {
			return pr.Appended && strings.HasPrefix(pr.Fault, "connection dropped")
		}
		if !waitUntil(5*time.Second, func() bool { return r.count(0, late) > 0 }) {
			t.Fatalf("b1 was never processed after its connection dropped\n%s", r.dump())
		}
		r.check(t, r.c.ClearFaults(topic, 0), "clear")
		// Every attempt the leader read is processed (1.2 s after it was
		// read) before the next faults are queued, so none takes their strikes.
		time.Sleep(1500 * time.Millisecond)
		if n := r.refusedReads(); n == 0 {
			t.Fatalf("the producer never asked the leader to settle b1\n%s", r.dump())
		}
		if _, u, nw := r.outcomes(t, "b1"); nw != 0 || u != 5 {
			t.Fatalf("b1: %d unknown, %d not written; want all 5 unknown (in the log, unprovable without READ)\n%s", u, nw, r.dump())
		}

		// B2 is appended and its connection closed instead of an answer, then
		// B3 is answered OUT_OF_ORDER_SEQUENCE_NUMBER: a desync to settle.
		r.check(t, r.c.CloseConnAfterAppend(topic, 0, 1), "lose b2's response")
		r.check(t, r.c.InjectError(topic, 0, codeOutOfOrderSequence, 1), "desync b3")
		r.produceTo(ctx, "b2", 5, one(0))
		time.Sleep(20 * time.Millisecond)
		r.produceTo(ctx, "b3", 5, one(0))
		r.check(t, r.wait(10*time.Second), "b2, b3")
		if r.count(0, answered(codeOutOfOrderSequence, false)) == 0 {
			t.Fatalf("no OUT_OF_ORDER_SEQUENCE_NUMBER answered\n%s", r.dump())
		}
		r.check(t, r.goesOn("after", 100), "after")
		log := r.verifyAs(t, "admin", "a-secret")
		for _, pfx := range []string{"b1", "b2", "b3"} {
			a, u, nw := r.outcomes(t, pfx)
			in := inLogCount(log, pfx)
			t.Logf("%s: %d delivered, %d unknown, %d not written; %d in the log", pfx, a, u, nw, in)
			if pfx == "b1" && nw != 0 {
				t.Fatalf("b1 is in the log, yet %d of its records were reported not written", nw)
			}
			if in > 5 {
				t.Fatalf("%s is in the log %d times over", pfx, in)
			}
		}
		if got := inLogCount(log, "b1"); got != 5 {
			t.Fatalf("b1 in the log %d times; want its 5 records once", got)
		}
	})
}

// inLogCount counts the log's records whose value starts with prefix+"-".
func inLogCount(log map[int32][]readback.Record, prefix string) int {
	n := 0
	for _, recs := range log {
		for _, rec := range recs {
			if strings.HasPrefix(string(rec.Value), prefix+"-") {
				n++
			}
		}
	}
	return n
}

// refusedReads counts the DescribeProducers and Fetch requests refused
// TOPIC_AUTHORIZATION_FAILED.
func (r *rig) refusedReads() int {
	n := 0
	for _, ex := range r.c.Recorder().Exchanges() {
		switch resp := ex.Response.(type) {
		case *kmsg.DescribeProducersResponse:
			for _, rt := range resp.Topics {
				for _, rp := range rt.Partitions {
					if rp.ErrorCode == int16(kafkaerr.TopicAuthorizationFailed) {
						n++
					}
				}
			}
		case *kmsg.FetchResponse:
			for _, rt := range resp.Topics {
				for _, rp := range rt.Partitions {
					if rp.ErrorCode == int16(kafkaerr.TopicAuthorizationFailed) {
						n++
					}
				}
			}
		}
	}
	return n
}

// verifyAs is verify reading the topic back as SASL PLAIN user (the
// producer's own principal may not read it). It returns the log read.
func (r *rig) verifyAs(t *testing.T, user, pass string) map[int32][]readback.Record {
	t.Helper()
	r.check(t, r.wait(30*time.Second), "settle")
	m, err := protocol.NewSASLMechanism(sim.MechPlain, user, pass)
	r.check(t, err, "mechanism")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	log, err := readback.ReadTopicConn(ctx, r.c.Addrs(), topic, protocol.ConnConfig{Dial: r.dial, Authenticate: protocol.SASL(m)})
	r.check(t, err, "read back as "+user)
	r.mu.Lock()
	defer r.mu.Unlock()
	rep := readback.Check(log, r.produced, func(rec readback.Record) string { return string(rec.Value) })
	var problems []error
	if rep.Duplicates+rep.Reordered+rep.WrongOffset+rep.FailedPresent > 0 {
		problems = append(problems, errors.New(rep.String()+"\n"+strings.Join(rep.Problems, "\n")))
	}
	if err := r.checkLossLocked(rep); err != nil {
		problems = append(problems, err)
	}
	if len(problems) > 0 {
		t.Fatalf("read-back: %v", errors.Join(problems...))
	}
	return log
}
