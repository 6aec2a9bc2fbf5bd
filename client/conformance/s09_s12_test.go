package conformance

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/compress"
	"github.com/rollsafe/rollsafe/protocol"
	"github.com/rollsafe/rollsafe/sim"
)

// TestConformance09LostResponseThenConnectionDrop: the response to a
// written batch never comes, then the broker closes the connection after
// writing the next one. Both are retried and deduplicated by the broker.
func TestConformance09LostResponseThenConnectionDrop(t *testing.T) {
	world(t, func(t *testing.T) {
		r := startT(t, cfg{partitions: 2, client: []client.Option{client.BatchBytes(1 << 10), client.Linger(time.Millisecond)}})
		ctx := context.Background()
		r.produceTo(ctx, "warm", 100, one(0))
		r.check(t, r.wait(10*time.Second), "warm-up")
		r.check(t, r.c.DropResponses(topic, 0, 1), "drop")
		r.check(t, r.c.CloseConnAfterAppend(topic, 0, 1), "close")
		start := time.Now()
		r.produceTo(ctx, "fault", 2000, one(0))
		r.check(t, r.goesOn("after", 300), "after")
		_, err := r.verify()
		r.check(t, err, "read-back")
		dropped := func(pr sim.ProduceRecord) bool { return pr.Appended && pr.Outcome == "dropped" }
		closed := func(pr sim.ProduceRecord) bool { return pr.Appended && pr.Outcome == "connection closed" }
		dup := func(pr sim.ProduceRecord) bool { return pr.Duplicate }
		if !r.sequence(0, dropped, closed, dup) {
			t.Fatalf("no dropped response, closed connection and deduplicated retry on partition 0\n%s", r.dump())
		}
		t.Logf("resolved in %v", time.Since(start))
	})
}

// TestConformance10MessageTooLarge: the broker's message.max.bytes is
// smaller than the producer's batches: MESSAGE_TOO_LARGE. The batches are
// split and delivered; nothing is lost or duplicated.
func TestConformance10MessageTooLarge(t *testing.T) {
	world(t, func(t *testing.T) {
		r := startT(t, cfg{partitions: 2, sim: []sim.Option{sim.MaxBatchBytes(3000)},
			client: []client.Option{client.BatchBytes(16 << 10), client.Compression(compress.None, compress.DefaultLevel), client.Linger(5 * time.Millisecond)}})
		ctx := context.Background()
		pad := strings.Repeat("x", 100)
		for i := range 600 {
			id := "big-" + pad + "-" + itoa(i)
			r.mu.Lock()
			r.index[id] = len(r.produced)
			r.produced = append(r.produced, producedEntry(id))
			r.mu.Unlock()
			r.pending.Add(1)
			r.p.Produce(ctx, &client.Record{Topic: topic, Partition: int32(i % 2), HasPartition: true, Value: []byte(id)}, r.done)
		}
		r.check(t, r.goesOn("after", 200), "after")
		_, err := r.verify()
		r.check(t, err, "read-back")
		if n, errs := r.acked("big"); n != 600 {
			t.Fatalf("%d of 600 acknowledged: %v", n, errs[:min(3, len(errs))])
		}
		if r.count(0, answered(codeMessageTooLarge, true)) == 0 {
			t.Fatalf("the broker never answered MESSAGE_TOO_LARGE\n%s", r.dump())
		}
	})
}

// TestConformance11DeliveryTimeoutUnknownOutcome: the first batch is
// written but answered REQUEST_TIMED_OUT, and every retry times out too
// until the delivery timeout passes, with more batches queued behind it.
// The delivery timeout bounds every outcome: at the deadline the batch whose
// attempts were all ambiguous is reported ErrOutcomeUnknown (it is in fact
// in the log — the report is honest, and never "not written"); the batches
// queued behind it, never sent, fail ErrNotWritten and are absent. The
// producer then reads the log to settle the partition's sequence and goes
// on without a duplicate.
func TestConformance11DeliveryTimeoutUnknownOutcome(t *testing.T) {
	world(t, func(t *testing.T) {
		// Small batches: more of them than may be in flight at once.
		r := startT(t, cfg{partitions: 2, client: []client.Option{client.BatchBytes(256), client.Linger(time.Millisecond), client.DeliveryTimeout(400 * time.Millisecond)}})
		ctx := context.Background()
		r.produceTo(ctx, "warm", 100, one(0))
		r.check(t, r.wait(10*time.Second), "warm-up")
		r.check(t, r.c.InjectErrorAfterAppend(topic, 0, codeRequestTimedOut, 1), "inject")
		r.check(t, r.c.InjectError(topic, 0, codeRequestTimedOut, 100000), "inject")
		r.produceTo(ctx, "fault", 300, one(0))
		r.check(t, r.wait(20*time.Second), "fault")
		r.check(t, r.c.ClearFaults(topic, 0), "clear")
		written, errs := r.acked("fault")
		if written != 0 {
			t.Fatalf("%d records acknowledged although every answer timed out", written)
		}
		unknown, notWritten := 0, 0
		for _, err := range errs {
			switch {
			case !errors.Is(err, client.ErrDeliveryTimeout):
				t.Fatalf("failed record: %v; want ErrDeliveryTimeout", err)
			case errors.Is(err, client.ErrOutcomeUnknown) && !errors.Is(err, client.ErrNotWritten):
				unknown++
			case errors.Is(err, client.ErrNotWritten) && !errors.Is(err, client.ErrOutcomeUnknown):
				notWritten++
			default:
				t.Fatalf("failed record: %v; want exactly one of ErrOutcomeUnknown and ErrNotWritten", err)
			}
		}
		if unknown == 0 || notWritten == 0 {
			t.Fatalf("want the written batch reported unknown and the queued ones not written: %d unknown, %d not written\n%s", unknown, notWritten, r.dump())
		}
		if r.count(0, func(pr sim.ProduceRecord) bool { return pr.ErrorCode == codeRequestTimedOut && pr.Appended }) != 1 {
			t.Fatalf("the timed-out write did not happen once\n%s", r.dump())
		}
		r.check(t, r.goesOn("after", 300), "after")
		if r.h.tailReads(0) == 0 {
			t.Fatal("the partition's sequence state was not settled from the log")
		}
		// verify proves every ErrNotWritten record absent, and no duplicate.
		_, err := r.verify()
		r.check(t, err, "read-back")
		rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		log, err := readback.ReadTopicConn(rctx, r.c.Addrs(), topic, protocol.ConnConfig{Dial: r.dial})
		r.check(t, err, "read")
		inLog := 0
		for _, rec := range log[0] {
			if strings.HasPrefix(string(rec.Value), "fault-") {
				inLog++
			}
		}
		if inLog == 0 || inLog > unknown {
			t.Fatalf("%d fault records in the log; want the written batch, reported unknown (%d unknown)", inLog, unknown)
		}
		t.Logf("%d records reported unknown (%d of them in the log), %d not written (absent)", unknown, inLog, notWritten)
	})
}

// TestConformance12EpochPerProducer: a broker keeping one epoch per
// producer id for the whole cluster (franz-go's kfake, some non-Apache
// brokers). Partition 0 moves to a new epoch; the others' next batches
// under the old epoch get INVALID_PRODUCER_EPOCH and must move on too,
// without loss or duplicates.
func TestConformance12EpochPerProducer(t *testing.T) {
	world(t, func(t *testing.T) {
		r := startT(t, cfg{partitions: 3, sim: []sim.Option{sim.EpochPerProducer()}, client: []client.Option{client.BatchBytes(1 << 10)}})
		ctx := context.Background()
		rr := func(i int) int32 { return int32(i % 3) }
		r.produceTo(ctx, "warm", 300, rr)
		r.check(t, r.wait(10*time.Second), "warm-up")
		// Partition 1's leader answers slowly: batches numbered under the
		// current epoch queue on its connection while partition 0, on another
		// leader, is desynchronised and moves to the next epoch.
		l0, _ := r.c.Leader(topic, 0)
		l1, _ := r.c.Leader(topic, 1)
		if l0 == l1 {
			t.Fatalf("partitions 0 and 1 share leader %d", l0)
		}
		mark := len(r.produces(1))
		r.check(t, r.c.DelayResponses(l1, 150*time.Millisecond), "delay")
		r.produceTo(ctx, "slow", 200, one(1))
		if !waitUntil(5*time.Second, func() bool { return len(r.produces(1)) > mark }) {
			t.Fatal("partition 1 sent nothing")
		}
		r.check(t, r.c.InjectError(topic, 0, codeOutOfOrderSequence, 1), "inject")
		r.produceTo(ctx, "fault", 300, one(0))
		r.check(t, r.wait(20*time.Second), "fault")
		r.check(t, r.c.DelayResponses(l1, 0), "undelay")
		r.produceTo(ctx, "more", 1000, rr)
		r.check(t, r.goesOn("after", 300), "after")
		_, err := r.verify()
		r.check(t, err, "read-back")
		if len(r.h.bumpsOf(0)) == 0 {
			t.Fatal("partition 0 did not move to a new epoch")
		}
		// The other partitions either met INVALID_PRODUCER_EPOCH with a batch
		// numbered under the old epoch, or — when their in-flight batches were
		// answered first — adopted the new epoch at their next clean boundary
		// without meeting it. Both must end on the new epoch with nothing lost
		// or duplicated (checked above).
		stale := r.count(1, answered(codeInvalidProducerEpoch, true)) + r.count(2, answered(codeInvalidProducerEpoch, true))
		newEpoch := func(p int32) bool {
			return r.count(p, func(pr sim.ProduceRecord) bool { return pr.ProducerEpoch > 0 && pr.Appended }) > 0
		}
		if !newEpoch(1) || !newEpoch(2) {
			t.Fatalf("partitions 1 and 2 did not move to the new epoch\n%s", r.dump())
		}
		t.Logf("stale-epoch answers on partitions 1-2: %d", stale)
	})
}
