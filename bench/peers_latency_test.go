package bench

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/rollsafe/rollsafe/batching/fixture"
	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/compress"
)

var latencyRate = flag.Int("latency.rate", 10_000, "BenchmarkLatency's offered load, records per second")

// BenchmarkLatency measures produce-to-ack latency (from the Produce call
// to the record's callback) at a fixed offered load: 1 KB fixture records,
// gzip, acks=all, idempotent, to a kfake child, paced at -latency.rate
// records per second (default 10,000; the 50,000 saturates a loaded
// 2-core machine, and then the figure is queueing, not latency). One op is
// one record; it reports p50-ms, p99-ms and max-ms over the b.N records and
// the rate achieved.
//
//	go test -run '^$' -bench BenchmarkLatency -benchtime 50000x -latency.rate 10000
func BenchmarkLatency(b *testing.B) {
	ring := eventRing(fixture.Large)
	bp, err := startBrokerProc(brokerSpec{"kfake", 1})
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := bp.stop(); err != nil {
			b.Error(err)
		}
	}()
	for _, name := range []string{"rollsafe", "kgo"} {
		b.Run(fmt.Sprintf("codec=gzip/size=1KB/rate=%d/client=%s", *latencyRate, name), func(b *testing.B) {
			ctx, cancel := context.WithTimeout(context.Background(), benchTimeout)
			defer cancel()
			lat := make([]time.Duration, b.N)
			var wg sync.WaitGroup
			var produce func(i int, ev *fixture.Event, done func())
			var flush func() error
			if name == "rollsafe" {
				rp, err := newRollsafe(bp.addrs, compress.Gzip, nil)
				if err != nil {
					b.Fatal(err)
				}
				defer rp.close()
				produce = func(_ int, ev *fixture.Event, done func()) {
					rp.p.Produce(ctx, &client.Record{Topic: peersTopic, Key: ev.Key, Value: ev.Value, Timestamp: ev.Timestamp},
						func(_ *client.Record, err error) {
							if err != nil {
								b.Error(err)
							}
							done()
						})
				}
				flush = func() error { return rp.p.Flush(ctx) }
			} else {
				kp, err := newKgo(bp.addrs, compress.Gzip, nil)
				if err != nil {
					b.Fatal(err)
				}
				defer kp.close()
				produce = func(_ int, ev *fixture.Event, done func()) {
					kp.cl.Produce(ctx, &kgo.Record{Key: ev.Key, Value: ev.Value, Timestamp: ev.Timestamp},
						func(_ *kgo.Record, err error) {
							if err != nil {
								b.Error(err)
							}
							done()
						})
				}
				flush = func() error { return kp.cl.Flush(ctx) }
			}
			for i := range benchWarmup {
				wg.Add(1)
				produce(i, &ring[i%len(ring)], wg.Done)
			}
			if err := flush(); err != nil {
				b.Fatal(err)
			}
			wg.Wait()
			interval := time.Second / time.Duration(*latencyRate)
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; {
				// Catch up with the schedule, then sleep: the offered load
				// stays the rate however coarse the sleeps are.
				due := min(int(time.Since(start)/interval)+1, b.N)
				for ; i < due; i++ {
					idx, t0 := i, time.Now()
					wg.Add(1)
					produce(idx, &ring[idx%len(ring)], func() { lat[idx] = time.Since(t0); wg.Done() })
				}
				time.Sleep(time.Millisecond)
			}
			wg.Wait()
			elapsed := time.Since(start)
			b.StopTimer()
			slices.Sort(lat)
			ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
			b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
			b.ReportMetric(ms(lat[len(lat)*99/100]), "p99-ms")
			b.ReportMetric(ms(lat[len(lat)-1]), "max-ms")
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "rec/s")
			b.ReportMetric(0, "ns/op")
		})
	}
}
