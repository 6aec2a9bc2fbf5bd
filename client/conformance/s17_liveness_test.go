package conformance

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/compress"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestConformance17LongPartitionRead: partition 0 holds
// about 40 MB written by another producer — five of the producer's 8 MB
// read pages, each well within a request timeout (700 ms), all five
// together not, under the race detector. This producer's first batch there is appended but
// answered REQUEST_TIMED_OUT, and its retry OUT_OF_ORDER_SEQUENCE_NUMBER:
// with no batch of its own acknowledged, the producer must read the
// partition from its log start. The read finishes (each request has its own
// timeout), the partition is settled and production carries on; nothing is
// lost or duplicated.
//
// Not covered: a principal that may write but not read the topic (the
// simulator has no ACLs), and v0/v1 batches at the log start (the
// simulator accepts only v2 batches).
func TestConformance17LongPartitionRead(t *testing.T) {
	world(t, func(t *testing.T) {
		r := startT(t, cfg{partitions: 1, client: []client.Option{
			client.RequestTimeout(700 * time.Millisecond), client.DeliveryTimeout(10 * time.Second),
			client.RetryBackoff(20 * time.Millisecond),
		}})
		ctx := context.Background()
		fill, err := client.NewProducer(client.Brokers(r.c.Addrs()...), client.ClientID("filler"), client.Dialer(r.dial),
			client.BatchBytes(256<<10), client.Compression(compress.None, compress.DefaultLevel))
		r.check(t, err, "filler")
		pad := strings.Repeat("f", 8<<10)
		for i := range 5000 {
			fill.Produce(ctx, &client.Record{Topic: topic, Partition: 0, HasPartition: true, Value: []byte("filler-" + itoa(i) + pad)}, nil)
		}
		fctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		r.check(t, fill.Flush(fctx), "fill")
		r.check(t, fill.Close(fctx), "close filler")
		r.replicated(t, 0)
		hw, _, _ := r.c.HighWatermark(topic, 0)

		r.check(t, r.c.InjectErrorAfterAppend(topic, 0, codeRequestTimedOut, 1), "unknown")
		r.check(t, r.c.InjectError(topic, 0, codeOutOfOrderSequence, 1), "desync")
		start := time.Now()
		r.produceTo(ctx, "b", 5, one(0))
		r.check(t, r.wait(20*time.Second), "b")
		if r.count(0, answered(codeOutOfOrderSequence, false)) == 0 || r.count(0, answered(codeRequestTimedOut, false)) == 0 {
			t.Fatalf("the faults did not strike\n%s", r.dump())
		}
		r.check(t, r.goesOn("after", 100), "after")
		took := time.Since(start)
		// The producer read from the log start.
		fromStart, furthest := false, int64(0)
		for _, ex := range r.c.Recorder().Exchanges() {
			if fr, ok := ex.Request.(*kmsg.FetchRequest); ok && ex.ClientID == "rollsafe" {
				for _, ft := range fr.Topics {
					for _, fp := range ft.Partitions {
						fromStart = fromStart || fp.FetchOffset == 0
						furthest = max(furthest, fp.FetchOffset)
					}
				}
			}
		}
		if !fromStart || furthest < hw*2/3 {
			t.Fatalf("the producer did not read partition 0 page by page from its start (furthest page at %d of %d)\n%s", furthest, hw, r.dump())
		}
		_, err = r.verify()
		r.check(t, err, "read-back")
		// The leader holds B: once the partition is read, B is delivered.
		a, u, nw := r.outcomes(t, "b")
		if a != 5 {
			t.Fatalf("b: %d delivered, %d unknown, %d not written; the leader holds it: the read did not settle it\n%s", a, u, nw, r.dump())
		}
		t.Logf("%d records before this producer's first; settled and resumed in %v; b: %d delivered, %d unknown, %d not written", hw, took, a, u, nw)
	})
}
