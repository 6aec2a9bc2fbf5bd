package otel_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/plugin/otel"
	"github.com/rollsafe/rollsafe/sim"
)

// sum returns the instrument's total (a counter's sum, or a histogram's
// count) over the data points whose attributes include attrs.
func sum(t *testing.T, rm metricdata.ResourceMetrics, name string, attrs ...attribute.KeyValue) float64 {
	t.Helper()
	total := 0.0
	match := func(set attribute.Set) bool {
		for _, kv := range attrs {
			if v, ok := set.Value(kv.Key); !ok || v != kv.Value {
				return false
			}
		}
		return true
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, dp := range d.DataPoints {
					if match(dp.Attributes) {
						total += float64(dp.Value)
					}
				}
			case metricdata.Sum[float64]:
				for _, dp := range d.DataPoints {
					if match(dp.Attributes) {
						total += dp.Value
					}
				}
			case metricdata.Histogram[float64]:
				for _, dp := range d.DataPoints {
					if match(dp.Attributes) {
						total += float64(dp.Count)
					}
				}
			}
		}
	}
	return total
}

// Records produced to the sim — acknowledged on partitions 0 and 1 (whose
// leader throttles), refused INVALID_RECORD on partition 2 — show in what
// a ManualReader collects exactly as the callbacks reported them.
func TestMetricsAfterProducing(t *testing.T) {
	c, err := sim.NewCluster(sim.Brokers(3), sim.Topic("t", 3, 3))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	m, err := otel.New(mp)
	if err != nil {
		t.Fatal(err)
	}
	p, err := client.NewProducer(client.Brokers(c.Addrs()...), client.WithHooks(m.Hooks()))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	throttled, _ := c.Leader("t", 1)
	if err := c.ThrottleProduce(throttled, 20*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := c.InjectError("t", 2, 87, 1); err != nil { // INVALID_RECORD
		t.Fatal(err)
	}
	var rs []*client.Record
	for i := range 40 {
		rs = append(rs, &client.Record{Topic: "t", Partition: int32(i % 2), HasPartition: true, Value: []byte("value")})
	}
	rs = append(rs, &client.Record{Topic: "t", Partition: 2, HasPartition: true, Value: []byte("refused")})
	acked, notWritten := 0, 0
	for _, r := range p.ProduceSync(ctx, rs...) {
		switch {
		case r.Err == nil:
			acked++
		case errors.Is(r.Err, client.ErrNotWritten):
			notWritten++
		default:
			t.Fatalf("unexpected outcome: %v", r.Err)
		}
	}
	if acked != 40 || notWritten != 1 {
		t.Fatalf("%d acknowledged, %d not written; want 40 and 1", acked, notWritten)
	}
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	check := func(name string, want float64, attrs ...attribute.KeyValue) {
		t.Helper()
		if got := sum(t, rm, name, attrs...); got != want {
			t.Errorf("%s%v = %v, want %v", name, attrs, got, want)
		}
	}
	topic := attribute.String("topic", "t")
	check("rollsafe.records.produced", 40, topic)
	check("rollsafe.records.failed", 1, topic, attribute.String("outcome", "not_written"))
	check("rollsafe.records.failed", 0, topic, attribute.String("outcome", "outcome_unknown"))
	batches := sum(t, rm, "rollsafe.batch.delivery.duration", topic)
	if batches < 3 {
		t.Errorf("%v batches delivered or failed, want at least 3", batches)
	}
	// 13 bytes per record (see plugin/prom's test) plus a 61-byte header
	// per batch.
	if got := sum(t, rm, "rollsafe.produced.bytes", topic); got < 40*13 || got > 40*13+61*batches {
		t.Errorf("produced bytes %v", got)
	}
	if sum(t, rm, "rollsafe.sent.bytes") <= 0 {
		t.Error("no bytes sent")
	}
	throttles := sum(t, rm, "rollsafe.throttles", attribute.Int("broker", int(throttled)))
	if throttles < 1 || throttles != sum(t, rm, "rollsafe.throttles") {
		t.Errorf("throttles: %v of broker %d, %v in all", throttles, throttled, sum(t, rm, "rollsafe.throttles"))
	}
	if d := sum(t, rm, "rollsafe.throttle.duration"); d < 0.02*throttles-1e-9 || d > 0.02*throttles+1e-9 {
		t.Errorf("throttle time %v for %v throttles of 20ms", d, throttles)
	}
	connects := sum(t, rm, "rollsafe.connects")
	if connects < 4 {
		t.Errorf("%v connects", connects)
	}
	check("rollsafe.disconnects", connects)
	check("rollsafe.connect.errors", 0)
	if sum(t, rm, "rollsafe.produce.request.duration") < 3 {
		t.Error("fewer produce requests timed than partitions written")
	}
	if err := mp.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
}
