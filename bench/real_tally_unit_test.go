//go:build linux

package bench

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/batching/fixture"
	"github.com/rollsafe/rollsafe/compress"
)

// TestTallyStall checks the stall measure the peer table reports: the
// longest gap between acknowledgements of one partition after the fault
// began, counting the stretch from the last one to the end (a partition
// that never resumed). A gap that ended before the fault (a slow warm-up)
// does not count, and one that straddles it counts from the fault.
func TestTallyStall(t *testing.T) {
	tl := newTally()
	t0 := time.Now()
	tl.acks[0] = []time.Time{t0.Add(time.Second), t0.Add(2 * time.Second), t0.Add(9 * time.Second)}
	tl.acks[1] = []time.Time{t0.Add(time.Second), t0.Add(3 * time.Second), t0.Add(8 * time.Second)}
	worst, part, resumed, at := tl.stall(2, t0, t0.Add(10*time.Second))
	if worst != 7*time.Second || part != 0 || !resumed || !at.Equal(t0.Add(2*time.Second)) {
		t.Fatalf("stall = %v on %d from %v (resumed %v), want 7s on 0 from 2s (resumed)", worst, part, at.Sub(t0), resumed)
	}
	worst, part, resumed, _ = tl.stall(2, t0, t0.Add(20*time.Second))
	if worst != 12*time.Second || part != 1 || resumed {
		t.Fatalf("stall = %v on %d (resumed %v), want 12s on 1, not resumed", worst, part, resumed)
	}
	// A 13 s warm-up gap before the fault at t0+15s, then
	// acknowledgements every second: the stall is 1 s, not 13 s.
	tl = newTally()
	tl.acks[0] = []time.Time{t0.Add(time.Second), t0.Add(14 * time.Second), t0.Add(15500 * time.Millisecond), t0.Add(16500 * time.Millisecond)}
	worst, _, _, at = tl.stall(1, t0.Add(15*time.Second), t0.Add(17*time.Second))
	if worst != time.Second || !at.Equal(t0.Add(15500*time.Millisecond)) {
		t.Fatalf("stall = %v from %v, want 1s from 15.5s (the warm-up gap before the fault does not count)", worst, at.Sub(t0))
	}
	// A gap straddling the fault counts from the fault.
	tl.acks[0] = []time.Time{t0.Add(time.Second), t0.Add(18 * time.Second)}
	worst, _, _, at = tl.stall(1, t0.Add(15*time.Second), t0.Add(18*time.Second))
	if worst != 3*time.Second || !at.Equal(t0.Add(15*time.Second)) {
		t.Fatalf("stall = %v from %v, want 3s from 15s", worst, at.Sub(t0))
	}
	// Every gap of 2 s or more, by start, counted the same way.
	tl.acks[1] = []time.Time{t0.Add(16 * time.Second)}
	gs := tl.gaps(2, t0.Add(15*time.Second), t0.Add(19*time.Second), 2*time.Second)
	if len(gs) != 2 || gs[0].part != 0 || gs[0].duration != 3*time.Second || !gs[0].from.Equal(t0.Add(15*time.Second)) ||
		gs[1].part != 1 || gs[1].duration != 3*time.Second || !gs[1].from.Equal(t0.Add(16*time.Second)) {
		t.Fatalf("gaps = %+v, want p0 3s from 15s, p1 3s from 16s", gs)
	}
}

// TestTallyFatal: librdkafka's fatal error, reported as an error event, a
// record error or a log line, marks the peer fatal; other errors do not.
func TestTallyFatal(t *testing.T) {
	tl := newTally()
	tl.fail("1", 0, "KafkaError{code=NOT_LEADER_OR_FOLLOWER}")
	tl.log("Disconnected")
	if tl.isFatal() {
		t.Fatal("a retriable error made the peer fatal")
	}
	tl.fail("2", 0, "KafkaError{code=_FATAL,val=-150,str=\"Fatal error: Local: Inconsistent state\"}")
	if !tl.isFatal() {
		t.Fatal("a _FATAL record error did not make the peer fatal")
	}
}

// TestKcatLines: kcat's delivery reports (verbosity 3) as kcat 1.7.1 prints them.
func TestKcatLines(t *testing.T) {
	m := kcatDelivered.FindStringSubmatch("% Message delivered to partition 2 (offset 41) on broker 2")
	if m == nil || m[1] != "2" || m[2] != "41" {
		t.Fatalf("delivered: %q", m)
	}
	m = kcatFailed.FindStringSubmatch("% Delivery failed for message: Local: Message timed out")
	if m == nil || m[1] != "Local: Message timed out" {
		t.Fatalf("failed: %q", m)
	}
}

// TestResultsTable: a fatal peer is marked and its first fatal line shown.
func TestResultsTable(t *testing.T) {
	tab := resultsTable([]peerResult{
		{scenario: "seed", peer: "rollsafe", stall: 1500 * time.Millisecond, resumed: true, produced: 100, acked: 100},
		{scenario: "seed", peer: "kcat", fatal: []string{"Fatal error: sequence desynchronization"}, stall: 30 * time.Second,
			produced: 100, acked: 40, failed: 60, failedInLog: 3},
	})
	for _, want := range []string{"| seed | rollsafe | no | 1.5 s | 0 | 0 |", "| seed | kcat | **yes** | 30.0 s (never resumed) | 0 | 60 (3) |",
		"- seed/kcat: Fatal error: sequence desynchronization"} {
		if !strings.Contains(tab, want) {
			t.Errorf("table lacks %q:\n%s", want, tab)
		}
	}
}

func TestParseThroughputCells(t *testing.T) {
	cells, err := parseThroughputCells("none:100B:3000000,gzip:1KB:5")
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 2 || cells[0].codec != compress.None || cells[0].size != fixture.Small || cells[0].count != 3_000_000 ||
		cells[1].codec != compress.Gzip || cells[1].size != fixture.Large || cells[1].count != 5 {
		t.Fatalf("%+v", cells)
	}
	for _, bad := range []string{"none:100B", "brotli:1KB:5", "none:2KB:5", "none:1KB:0", "none:1KB:x"} {
		if _, err := parseThroughputCells(bad); !errors.Is(err, errBadCell) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
