package prom_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/plugin/prom"
	"github.com/rollsafe/rollsafe/sim"
)

// value returns the metric's value (a counter's, or a histogram's sample
// count) whose labels include labels, summed over the others.
func value(t *testing.T, mfs []*dto.MetricFamily, name string, labels map[string]string) float64 {
	t.Helper()
	sum := 0.0
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	metrics:
		for _, m := range mf.GetMetric() {
			have := map[string]string{}
			for _, lp := range m.GetLabel() {
				have[lp.GetName()] = lp.GetValue()
			}
			for k, v := range labels {
				if have[k] != v {
					continue metrics
				}
			}
			switch {
			case m.GetCounter() != nil:
				sum += m.GetCounter().GetValue()
			case m.GetHistogram() != nil:
				sum += float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return sum
}

// Records produced to the sim — acknowledged on partitions 0 and 1 (whose
// leader throttles), refused INVALID_RECORD on partition 2 — show in the
// registry's metrics exactly as the callbacks reported them.
func TestMetricsAfterProducing(t *testing.T) {
	c, err := sim.NewCluster(sim.Brokers(3), sim.Topic("t", 3, 3))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	m := prom.New("rs")
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(m)
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
	bad := []*client.Record{
		{Topic: "t", Partition: 2, HasPartition: true, Value: []byte("refused")},
		{Topic: "t", Partition: 2, HasPartition: true, Value: []byte("refused")},
	}
	results := p.ProduceSync(ctx, append(rs, bad...)...)
	acked, notWritten := 0, 0
	for _, r := range results {
		switch {
		case r.Err == nil:
			acked++
		case errors.Is(r.Err, client.ErrNotWritten):
			notWritten++
		default:
			t.Fatalf("unexpected outcome: %v", r.Err)
		}
	}
	if acked != 40 || notWritten != 2 {
		t.Fatalf("%d acknowledged, %d not written; want 40 and 2", acked, notWritten)
	}
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}

	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, labels map[string]string, want float64) {
		t.Helper()
		if got := value(t, mfs, name, labels); got != want {
			t.Errorf("%s%v = %v, want %v", name, labels, got, want)
		}
	}
	check("rs_records_produced_total", map[string]string{"topic": "t"}, 40)
	check("rs_records_failed_total", map[string]string{"topic": "t", "outcome": "not_written"}, 2)
	check("rs_records_failed_total", map[string]string{"topic": "t", "outcome": "outcome_unknown"}, 0)
	// 40 records of a 5-byte value, no key, no headers: 13 bytes each
	// encoded (one byte each for the length, attributes, timestamp and
	// offset deltas, key and value lengths and header count, then the
	// value), plus the 61-byte header of each batch.
	batches := value(t, mfs, "rs_batch_delivery_duration_seconds", map[string]string{"topic": "t"})
	if batches < 3 {
		t.Errorf("%v batches delivered or failed, want at least 3", batches)
	}
	if got, min := value(t, mfs, "rs_produced_bytes_total", map[string]string{"topic": "t"}), 40.0*13; got < min || got > min+61*batches {
		t.Errorf("produced bytes %v, want %v plus the batch headers", got, min)
	}
	if value(t, mfs, "rs_sent_bytes_total", nil) <= 0 {
		t.Error("no bytes sent")
	}
	if n := value(t, mfs, "rs_throttles_total", map[string]string{"broker": strconv.Itoa(int(throttled))}); n < 1 {
		t.Errorf("throttles of broker %d: %v", throttled, n)
	}
	if s, n := value(t, mfs, "rs_throttle_seconds_total", nil), value(t, mfs, "rs_throttles_total", nil); s < 0.02*n-1e-9 || s > 0.02*n+1e-9 {
		t.Errorf("throttle seconds %v for %v throttles of 20ms", s, value(t, mfs, "rs_throttles_total", nil))
	}
	connects := value(t, mfs, "rs_connects_total", nil)
	if connects < 4 { // a metadata connection and one to each broker
		t.Errorf("%v connects", connects)
	}
	check("rs_disconnects_total", nil, connects) // all closed by Close
	check("rs_connect_errors_total", nil, 0)
	if value(t, mfs, "rs_produce_request_duration_seconds", nil) < 3 {
		t.Error("fewer produce requests timed than partitions written")
	}
}
