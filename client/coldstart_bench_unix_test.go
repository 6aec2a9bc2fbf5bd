//go:build unix

package client_test

import (
	"context"
	"flag"
	"syscall"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/compress"
	"github.com/rollsafe/rollsafe/sim"
)

// coldRecords is how many records one op of BenchmarkColdStart produces.
var coldRecords = flag.Int("coldstart.records", 200_000, "records per op of BenchmarkColdStart")

// BenchmarkColdStart compares a producer fed right after NewProducer (cold:
// the topic's metadata is not known when the first records arrive) with
// one whose topic is known (warm: one ProduceSync first, not timed). One op
// is a fresh producer producing -coldstart.records records (200,000) of
// 100 B (no key, the topic named on each record), uncompressed and gzip, to
// a 6-partition topic on an in-process sink broker, then Flush; Close is
// not timed. rec/s is the records per second of wall time; cpu-ns/rec is
// the process's CPU time (every goroutine, the in-process broker's
// included) per record, so the broker's share, the same in both, narrows
// the difference. Compare cold with warm within one run, old with new
// across runs (benchstat).
func BenchmarkColdStart(b *testing.B) {
	c, err := sim.NewCluster(sim.Brokers(1), sim.Topic("t", 6, 1), sim.SinkMode(), sim.RecorderLimit(2))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	value := make([]byte, 100)
	for i := range value {
		value[i] = byte('a' + i%26)
	}
	recs := make([]client.Record, *coldRecords)
	// One run first, not measured: the process's heap grows to its size
	// once, not in whichever case runs first.
	coldStartRun(b, c, recs, value, compress.None, true)
	for _, codec := range []compress.Codec{compress.None, compress.Gzip} {
		for _, warm := range []bool{false, true} {
			name := codec.String() + "/cold"
			if warm {
				name = codec.String() + "/warm"
			}
			b.Run(name, func(b *testing.B) {
				var wall, cpu time.Duration
				for range b.N {
					w, c := coldStartRun(b, c, recs, value, codec, warm)
					wall += w
					cpu += c
				}
				n := float64(b.N * *coldRecords)
				b.ReportMetric(n/wall.Seconds(), "rec/s")
				b.ReportMetric(float64(cpu.Nanoseconds())/n, "cpu-ns/rec")
			})
		}
	}
}

// coldStartRun is one op of BenchmarkColdStart: it returns the wall and
// process CPU time from the first Produce to Flush's return.
func coldStartRun(b *testing.B, c *sim.Cluster, recs []client.Record, value []byte, codec compress.Codec, warm bool) (wall, cpu time.Duration) {
	b.StopTimer()
	ctx := context.Background()
	p, err := client.NewProducer(client.Brokers(c.Addrs()...), client.Compression(codec, compress.DefaultLevel))
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := p.Close(ctx); err != nil {
			b.Fatal(err)
		}
	}()
	if warm {
		if err := p.ProduceSync(ctx, &client.Record{Topic: "t", Value: value}).FirstErr(); err != nil {
			b.Fatal(err)
		}
	}
	for i := range recs {
		recs[i] = client.Record{Topic: "t", Value: value}
	}
	b.StartTimer()
	start, cpu0 := time.Now(), processCPU(b)
	for i := range recs {
		p.Produce(ctx, &recs[i], nil)
	}
	if err := p.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	wall, cpu = time.Since(start), processCPU(b)-cpu0
	b.StopTimer()
	return wall, cpu
}

// processCPU is the CPU time (user and system, every thread) the process
// has used so far.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
