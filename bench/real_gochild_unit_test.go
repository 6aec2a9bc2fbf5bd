package bench

import (
	"errors"
	"slices"
	"testing"

	"github.com/rollsafe/rollsafe/batching/fixture"
	"github.com/rollsafe/rollsafe/compress"
)

// TestGoThroughputSpec: what the table passes to a Go client's child
// process reads back the same, and malformed specs are refused.
func TestGoThroughputSpec(t *testing.T) {
	want := goThroughputSpec{client: "rollsafe-1conn", addrs: []string{"127.0.0.1:9092", "127.0.0.1:9093"},
		cell: throughputCell{codec: compress.Gzip, size: fixture.Large, count: 200_000}}
	got, err := parseGoThroughputSpec(want.String())
	if err != nil {
		t.Fatal(err)
	}
	if got.client != want.client || !slices.Equal(got.addrs, want.addrs) || got.cell.codec != want.cell.codec ||
		got.cell.size != want.cell.size || got.cell.count != want.cell.count {
		t.Fatalf("parse(%q) = %+v, want %+v", want.String(), got, want)
	}
	for _, bad := range []string{"", "rollsafe", "rollsafe||gzip|1024|10", "rollsafe|a:1|brotli|1024|10",
		"rollsafe|a:1|gzip|77|10", "rollsafe|a:1|gzip|1024|0", "rollsafe|a:1|gzip|1024|x|y"} {
		if _, err := parseGoThroughputSpec(bad); !errors.Is(err, errBadGoChild) {
			t.Errorf("parse(%q): %v, want errBadGoChild", bad, err)
		}
	}
}

// TestThroughputRunFigures: the per-run figures the table derives.
func TestThroughputRunFigures(t *testing.T) {
	cell := throughputCell{codec: compress.None, size: fixture.Large, count: 80_000}
	r := throughputRun{elapsed: 200e6, cpu: 100e6, sys: 20e6, brokerCPU: 200e6, batches: 80, requests: 20}
	if got := r.recPerSec(cell); got != 400_000 {
		t.Errorf("recPerSec = %v", got)
	}
	if got := r.cpuPer100k(cell); got != 0.125 {
		t.Errorf("cpuPer100k = %v", got)
	}
	// The broker's CPU is over warm-up and timed records: 200 ms over 100k.
	if got := r.brokerPer100k(cell); got != 0.2 {
		t.Errorf("brokerPer100k = %v", got)
	}
	if got := r.cores(cell); got < 1.299 || got > 1.301 { // 400k/s × (1.25 + 2) µs
		t.Errorf("cores = %v, want 1.3", got)
	}
	if r.perBatch(cell) != 1000 || r.perRequest(cell) != 4000 {
		t.Errorf("perBatch, perRequest = %v, %v", r.perBatch(cell), r.perRequest(cell))
	}
	r.brokerCPU = -1
	if r.brokerPer100k(cell) != -1 || r.cores(cell) != -1 {
		t.Errorf("unmeasured broker: %v, %v", r.brokerPer100k(cell), r.cores(cell))
	}
}
