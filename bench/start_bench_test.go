package bench

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/batching/fixture"
	"github.com/rollsafe/rollsafe/compress"
)

// The benchmarks of a producer from its start: BenchmarkProduce
// measures a warmed producer (connections open, metadata and producer id
// known, 2,000 records flushed first); these measure one as a service at
// start, a batch job, a CLI or a function living for one request runs it.

var shortLivedRecords = flag.Int("shortlived.records", 1000, "records per lifecycle of BenchmarkShortLived")

// BenchmarkProduceCold is BenchmarkProduce's cells with no warm-up: the
// timed part starts before the client is created (NewProducer, NewClient,
// NewAsyncProducer) and ends when every one of the b.N records has its
// outcome; Close is not timed. It reports what BenchmarkProduce reports
// (rec/s, cpu-ns/rec, ...), so that a cell's cold and warm figures compare
// directly; the client's start-up (connections, metadata, producer id) is
// in them, spread over b.N records.
//
//	cd bench && go test -run '^$' -bench 'BenchmarkProduceCold/broker=sim$/codec=none$/size=100B' -benchtime 1000000x -count 5
func BenchmarkProduceCold(b *testing.B) {
	procs := brokerProcs{}
	defer procs.stop(b)
	forEachCell(func(spec brokerSpec, name string, codec compress.Codec, size int) {
		for _, pc := range peerClients {
			b.Run(fmt.Sprintf("broker=%s/codec=%s/size=%s/client=%s", name, codec, sizeName(size), pc.name),
				func(b *testing.B) { benchProduceCold(b, procs.get(b, spec), pc, codec, eventRing(size)) })
		}
	})
}

func benchProduceCold(b *testing.B, bp *brokerProc, pc peerClient, codec compress.Codec, ring []fixture.Event) {
	ctx, cancel := context.WithTimeout(context.Background(), benchTimeout)
	defer cancel()
	runtime.GC()
	b.ReportAllocs()
	m := startProduceMeter(nil, bp)
	b.ResetTimer()
	p, err := pc.open(ctx, bp.addrs, codec, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := p.close(); err != nil {
			b.Error(err)
		}
	}()
	for i := range b.N {
		p.produce(ctx, &ring[i%len(ring)])
	}
	err = p.flush(ctx)
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	m.report(b, p, ring)
}

// BenchmarkShortLived measures a producer that lives for a few records:
// one op creates the client, produces -shortlived.records records (1,000)
// of the cell, waits for every outcome and closes the client, in
// BenchmarkProduce's cells. ns/op is the mean time from before the client
// is created to the last record's acknowledgement; close-ns/op the mean
// time Close then takes; cpu-ns/op the process's CPU time per op, Close
// included, and brk-cpu-ns/op the broker child's (10 ms ticks: run at
// least a few dozen ops).
//
//	cd bench && go test -run '^$' -bench 'BenchmarkShortLived/broker=sim$/codec=none$/size=100B' -benchtime 100x -count 5
func BenchmarkShortLived(b *testing.B) {
	procs := brokerProcs{}
	defer procs.stop(b)
	forEachCell(func(spec brokerSpec, name string, codec compress.Codec, size int) {
		for _, pc := range peerClients {
			b.Run(fmt.Sprintf("broker=%s/codec=%s/size=%s/client=%s", name, codec, sizeName(size), pc.name),
				func(b *testing.B) {
					benchLifecycle(b, procs.get(b, spec), pc, codec, eventRing(size), *shortLivedRecords)
				})
		}
	})
}

// BenchmarkFirstAck measures the time from before a client is created to
// the acknowledgement of its first record: one op creates the client,
// produces one 100 B fixture record (uncompressed), waits for its outcome
// (a flush: no client lingers for more records) and closes the client.
// Brokers: kfake and the sim, one broker and three (the topic's partitions
// spread over them, so the record's leader may not be the broker the
// client first asks for metadata). ns/op is the mean time to the
// acknowledgement; close-ns/op and cpu-ns/op as in BenchmarkShortLived.
//
//	cd bench && go test -run '^$' -bench 'BenchmarkFirstAck/broker=sim$' -benchtime 200x -count 5
func BenchmarkFirstAck(b *testing.B) {
	procs := brokerProcs{}
	defer procs.stop(b)
	for _, spec := range firstAckBrokers {
		for _, pc := range peerClients {
			b.Run(fmt.Sprintf("broker=%s/client=%s", brokerName(spec), pc.name),
				func(b *testing.B) {
					benchLifecycle(b, procs.get(b, spec), pc, compress.None, eventRing(fixture.Small), 1)
				})
		}
	}
}

// firstAckBrokers are BenchmarkFirstAck's clusters.
var firstAckBrokers = []brokerSpec{{"kfake", 1}, {"sim", 1}, {"kfake", 3}, {"sim", 3}}

// brokerName is a cluster's name in benchmark names: the kind, and the
// broker count when it is not one (kfake, kfake3).
func brokerName(s brokerSpec) string {
	if s.brokers == 1 {
		return s.kind
	}
	return fmt.Sprintf("%s%d", s.kind, s.brokers)
}

// benchLifecycle runs b.N lifecycles of a client: create it, produce n
// records of ring (each lifecycle continuing where the last one left off in
// ring), wait for every outcome, close it. It reports ns/op as the mean
// time from before the client's creation to the last outcome.
func benchLifecycle(b *testing.B, bp *brokerProc, pc peerClient, codec compress.Codec, ring []fixture.Event, n int) {
	ctx, cancel := context.WithTimeout(context.Background(), benchTimeout)
	defer cancel()
	runtime.GC()
	b.ReportAllocs()
	var toAck, closing time.Duration
	cpu0, brk0 := selfCPU(), procCPU(bp.pid())
	b.ResetTimer()
	next := 0
	for range b.N {
		t0 := time.Now()
		p, err := pc.open(ctx, bp.addrs, codec, nil)
		if err != nil {
			b.Fatal(err)
		}
		for range n {
			p.produce(ctx, &ring[next])
			next = (next + 1) % len(ring)
		}
		err = p.flush(ctx)
		t1 := time.Now()
		if err != nil {
			_ = p.close()
			b.Fatal(err)
		}
		if err := p.close(); err != nil {
			b.Fatal(err)
		}
		toAck += t1.Sub(t0)
		closing += time.Since(t1)
	}
	b.StopTimer()
	cpu1, brk1 := selfCPU(), procCPU(bp.pid())
	ops := float64(b.N)
	b.ReportMetric(float64(toAck)/ops, "ns/op")
	b.ReportMetric(float64(closing)/ops, "close-ns/op")
	b.ReportMetric(float64(cpu1-cpu0)/ops, "cpu-ns/op")
	if brk0 >= 0 && brk1 >= 0 {
		b.ReportMetric(float64(brk1-brk0)/ops, "brk-cpu-ns/op")
	}
}
