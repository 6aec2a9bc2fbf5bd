package client_test

import (
	"context"
	"runtime"
	"runtime/debug"
	"syscall"
	"testing"
	"unsafe"

	"github.com/rollsafe/rollsafe/batching/fixture"
	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/sim"
)

// BenchmarkProduceCall guards the caller's side of Produce: one op is one
// keyed 100-byte record handed to Produce, to a 6-partition topic on a
// sink broker (the records made before the clock starts); the
// flush after the timed loop is not timed. The batches' encoding and
// sending run meanwhile on other goroutines and share the cores, so ns/op
// scatters; caller-cpu-ns/op is the CPU time of the calling goroutine's own
// thread (it is locked to it) per record, what a regression in looking a
// record's topic and partition up (one map read, no lock: partCache) and
// appending it to its open batch shows.
func BenchmarkProduceCall(b *testing.B) {
	c, err := sim.NewCluster(sim.Brokers(1), sim.Topic("t", 6, 1), sim.SinkMode(), sim.RecorderLimit(2))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	// A buffer larger than the run: Produce never waits for room, so the
	// op is the caller's work, not the pipeline's rate (run it with
	// -benchtime of at most 1000000x).
	p, err := client.NewProducer(client.Brokers(c.Addrs()...), client.MaxBuffered(1<<21, 1<<30))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	defer p.Close(ctx)
	evs := fixture.Events(fixture.Seed, 1<<16, fixture.Small)
	for i := range 2000 {
		ev := &evs[i%len(evs)]
		p.Produce(ctx, &client.Record{Topic: "t", Key: ev.Key, Value: ev.Value, Timestamp: ev.Timestamp}, nil)
	}
	if err := p.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	if b.N > 1<<20 {
		b.Fatalf("b.N %d: run with -benchtime of at most 1000000x", b.N)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// No collection during the loop: its marking would be charged to the
	// caller (assists) in proportion to the growing buffer.
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	// The records are made (and their memory faulted in) before the
	// clock starts: the op is Produce's own work.
	recs := make([]client.Record, b.N)
	for i := range recs {
		ev := &evs[i%len(evs)]
		recs[i] = client.Record{Topic: "t", Key: ev.Key, Value: ev.Value, Timestamp: ev.Timestamp}
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := threadCPU(b)
	for i := range recs {
		p.Produce(ctx, &recs[i], nil)
	}
	cpu := threadCPU(b) - cpu0
	b.StopTimer()
	b.ReportMetric(float64(cpu)/float64(b.N), "caller-cpu-ns/op")
	if err := p.Flush(ctx); err != nil {
		b.Fatal(err)
	}
}

// threadCPU returns the CPU time of the calling thread in nanoseconds.
func threadCPU(b *testing.B) int64 {
	const clockThreadCPUTime = 3 // CLOCK_THREAD_CPUTIME_ID
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		b.Fatalf("clock_gettime: %v", errno)
	}
	return ts.Nano()
}
