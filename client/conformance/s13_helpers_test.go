package conformance

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/protocol"
	"github.com/rollsafe/rollsafe/sim"
)

// codeInvalidRecord is INVALID_RECORD.
const codeInvalidRecord int16 = 87

// produceRec hands one record with the given id as value (and key, nil
// for none) to partition p.
func (r *rig) produceRec(ctx context.Context, id string, key []byte, p int32) {
	r.mu.Lock()
	r.index[id] = len(r.produced)
	r.produced = append(r.produced, producedEntry(id))
	r.mu.Unlock()
	r.pending.Add(1)
	r.p.Produce(ctx, &client.Record{Topic: topic, Partition: p, HasPartition: true, Key: key, Value: []byte(id)}, r.done)
}

// produceKeyed hands n records "prefix-i" keyed "k<i%keys>" to partition p.
func (r *rig) produceKeyed(ctx context.Context, prefix string, n, keys int, p int32) {
	for i := range n {
		r.produceRec(ctx, fmt.Sprintf("%s-%d", prefix, i), []byte(fmt.Sprintf("k%d", i%keys)), p)
	}
}

// outcomes classifies the failed records of prefix: unknown (ErrOutcomeUnknown
// only), notWritten (ErrNotWritten only); any other error fails the test.
func (r *rig) outcomes(t *testing.T, prefix string) (acked, unknown, notWritten int) {
	t.Helper()
	acked, errs := r.acked(prefix)
	for _, err := range errs {
		u, nw := errors.Is(err, client.ErrOutcomeUnknown), errors.Is(err, client.ErrNotWritten)
		switch {
		case u && !nw:
			unknown++
		case nw && !u:
			notWritten++
		default:
			t.Fatalf("failed record: %v; want exactly one of ErrOutcomeUnknown and ErrNotWritten\n%s", err, r.dump())
		}
	}
	return acked, unknown, notWritten
}

// inLog counts, per partition, the log's records whose value starts with
// prefix+"-".
func (r *rig) inLog(t *testing.T, prefix string) map[string]int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	log, err := readback.ReadTopicConn(ctx, r.c.Addrs(), topic, protocol.ConnConfig{Dial: r.dial})
	r.check(t, err, "read")
	out := map[string]int{}
	for _, recs := range log {
		for _, rec := range recs {
			if v := string(rec.Value); strings.HasPrefix(v, prefix+"-") {
				out[v]++
			}
		}
	}
	return out
}

// replicated waits until partition p's high watermark is its leader's log
// end and every replica is in sync.
func (r *rig) replicated(t *testing.T, p int32) {
	t.Helper()
	ok := waitUntil(5*time.Second, func() bool {
		hw, leo, err := r.c.HighWatermark(topic, p)
		isr, _ := r.c.ISR(topic, p)
		reps, _ := r.c.Replicas(topic, p)
		return err == nil && hw == leo && len(isr) == len(reps)
	})
	if !ok {
		t.Fatalf("partition %d never fully replicated\n%s", p, r.dump())
	}
}

// followers returns partition p's leader and its followers.
func (r *rig) followers(t *testing.T, p int32) (int32, []int32) {
	t.Helper()
	leader, _ := r.c.Leader(topic, p)
	reps, err := r.c.Replicas(topic, p)
	r.check(t, err, "replicas")
	var out []int32
	for _, b := range reps {
		if b != leader {
			out = append(out, b)
		}
	}
	return leader, out
}

// natural matches an answer the broker gave on its own (no injected fault).
func natural(m func(sim.ProduceRecord) bool) func(sim.ProduceRecord) bool {
	return func(pr sim.ProduceRecord) bool { return pr.Fault == "" && m(pr) }
}

// stopOneFollower warms partition 0 up (50 records, fully replicated),
// then stops one of its followers copying (it falls out of the ISR) and
// makes the other copy each batch 20 ms late. It returns the two.
func (r *rig) stopOneFollower(t *testing.T) (behind, slow int32) {
	t.Helper()
	r.produceTo(context.Background(), "warm", 50, one(0))
	r.check(t, r.wait(10*time.Second), "warm-up")
	r.replicated(t, 0)
	_, fs := r.followers(t, 0)
	behind, slow = fs[0], fs[1]
	r.check(t, r.c.PauseReplication(topic, 0, behind), "pause")
	r.check(t, r.c.SetFollowerLag(slow, 20*time.Millisecond), "lag")
	return behind, slow
}
