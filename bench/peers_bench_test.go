package bench

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/batching/fixture"
	"github.com/rollsafe/rollsafe/compress"
)

// ringBytes is about how many value bytes of fixture events the benchmark
// cycles through: more than a 1 MiB batch, so no codec sees a batch repeat.
const ringBytes = 4 << 20

var (
	ringsMu sync.Mutex
	rings   = map[int][]fixture.Event{}
)

// eventRing returns the fixture events (seed fixture.Seed) with values of
// size bytes that every client produces, in the same order.
func eventRing(size int) []fixture.Event {
	ringsMu.Lock()
	defer ringsMu.Unlock()
	if r, ok := rings[size]; ok {
		return r
	}
	r := fixture.Events(fixture.Seed, max(ringBytes/size, 1024), size)
	rings[size] = r
	return r
}

// payloadBytes is the key and value bytes of the first n records of ring
// (cycled).
func payloadBytes(ring []fixture.Event, n int) int64 {
	size := func(evs []fixture.Event) (t int64) {
		for i := range evs {
			t += int64(len(evs[i].Key) + len(evs[i].Value))
		}
		return t
	}
	return int64(n/len(ring))*size(ring) + size(ring[:n%len(ring)])
}

func sizeName(size int) string {
	if size%1024 == 0 {
		return fmt.Sprintf("%dKB", size/1024)
	}
	return fmt.Sprintf("%dB", size)
}

const (
	benchWarmup  = 2000            // records produced before the timer starts
	benchTimeout = 5 * time.Minute // bounds one cell
)

// BenchmarkProduce compares rollsafe, franz-go's kgo and IBM/sarama
// producing the same fixture records (keyed, 100 B and 1 KB values) to the
// same broker in the same run: kfake with BlackholeProduce and the rollsafe
// simulator in sink mode, each in a child process, topic of 6 partitions.
// acks=all and idempotence for every client. One op is one record: b.N
// records are produced asynchronously, then flushed, all timed. Besides
// rec/s and MB/s it reports cpu-ns/rec, the CPU time of the client process
// per record (getrusage, every thread), and brk-cpu-ns/rec, the broker
// child's (Linux).
//
//	cd bench && go test -run '^$' -bench BenchmarkProduce -count 5 | tee new.txt
//	benchstat -col /client new.txt
func BenchmarkProduce(b *testing.B) {
	procs := brokerProcs{}
	defer procs.stop(b)
	forEachCell(func(spec brokerSpec, name string, codec compress.Codec, size int) {
		for _, pc := range peerClients {
			b.Run(fmt.Sprintf("broker=%s/codec=%s/size=%s/client=%s", name, codec, sizeName(size), pc.name),
				func(b *testing.B) { benchProduce(b, procs.get(b, spec), pc, codec, eventRing(size)) })
		}
	})
}

// brokerProcs are the broker children of a benchmark, one per spec,
// started when first needed.
type brokerProcs map[brokerSpec]*brokerProc

// get returns spec's broker child, starting it if needed.
func (ps brokerProcs) get(b *testing.B, spec brokerSpec) *brokerProc {
	if bp, ok := ps[spec]; ok {
		return bp
	}
	bp, err := startBrokerProc(spec)
	if err != nil {
		b.Fatal(err)
	}
	ps[spec] = bp
	return bp
}

// stop stops every broker child.
func (ps brokerProcs) stop(b *testing.B) {
	for _, bp := range ps {
		if err := bp.stop(); err != nil {
			b.Error(err)
		}
	}
}

// forEachCell calls cell for every cell of the produce benchmarks: kfake
// and sim with one broker, every codec, 100 B and 1 KB values; then gzip
// 1 KB to three brokers (named kfake3, sim3).
func forEachCell(cell func(spec brokerSpec, name string, codec compress.Codec, size int)) {
	for _, kind := range []string{"kfake", "sim"} {
		for _, codec := range compress.Codecs() {
			for _, size := range []int{fixture.Small, fixture.Large} {
				cell(brokerSpec{kind, 1}, kind, codec, size)
			}
		}
	}
	for _, kind := range []string{"kfake", "sim"} {
		cell(brokerSpec{kind, 3}, kind+"3", compress.Gzip, fixture.Large)
	}
}

// benchProduce times b.N records of ring through one client.
func benchProduce(b *testing.B, bp *brokerProc, pc peerClient, codec compress.Codec, ring []fixture.Event) {
	ctx, cancel := context.WithTimeout(context.Background(), benchTimeout)
	defer cancel()
	p, err := pc.open(ctx, bp.addrs, codec, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := p.close(); err != nil {
			b.Error(err)
		}
	}()
	// Warm up: connections, metadata, producer id, encoders.
	for i := range benchWarmup {
		p.produce(ctx, &ring[i%len(ring)])
	}
	if err := p.flush(ctx); err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	b.ReportAllocs()
	m := startProduceMeter(p, bp)
	b.ResetTimer()
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

// produceMeter is what a produce benchmark reads before its timed part:
// the process's CPU, the broker child's, and the client's batch counts.
type produceMeter struct {
	bp                *brokerProc
	cpu, sys, brk     time.Duration
	batches, requests int64
}

// startProduceMeter reads the counters before the timed part. p may be nil
// (a producer opened inside the timed part: its counts start at zero).
func startProduceMeter(p peerProducer, bp *brokerProc) produceMeter {
	m := produceMeter{bp: bp, cpu: selfCPU(), sys: sysCPU(), brk: procCPU(bp.pid())}
	if bc, ok := p.(batchCounter); ok {
		m.batches, m.requests = bc.batchesAcked(), bc.requestsSent()
	}
	return m
}

// report reports the timed part's figures per record: b.N records of ring
// produced by p, the timer stopped.
func (m produceMeter) report(b *testing.B, p peerProducer, ring []fixture.Event) {
	cpu1, sys1, brk1 := selfCPU(), sysCPU(), procCPU(m.bp.pid())
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(b.N)/sec, "rec/s")
	b.ReportMetric(float64(payloadBytes(ring, b.N))/sec/1e6, "MB/s")
	// CPU per record: the client process (every thread: caller, client
	// goroutines, GC), and the broker child's, from getrusage and
	// /proc/<pid>/stat (10 ms ticks, so only large b.N say much).
	b.ReportMetric(float64(cpu1-m.cpu)/float64(b.N), "cpu-ns/rec")
	b.ReportMetric(float64(sys1-m.sys)/float64(b.N), "sys-ns/rec")
	if m.brk >= 0 && brk1 >= 0 {
		b.ReportMetric(float64(brk1-m.brk)/float64(b.N), "brk-cpu-ns/rec")
	}
	// Records per acknowledged batch (clients with batch hooks): per-batch
	// costs, the client's and the broker's, fall as batches grow.
	if bc, ok := p.(batchCounter); ok {
		if n := bc.batchesAcked() - m.batches; n > 0 {
			b.ReportMetric(float64(b.N)/float64(n), "rec/batch")
		}
		if n := bc.requestsSent() - m.requests; n > 0 {
			b.ReportMetric(float64(b.N)/float64(n), "rec/req")
		}
	}
}
