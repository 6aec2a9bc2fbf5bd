//go:build linux

package bench

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client/readback"
)

// peerResult is one peer's scenario judged by reading the log back: only
// an acknowledgement's partition and offset come from the peer, and the
// read back checks them.
type peerResult struct {
	scenario, peer string
	fatal          []string
	stall          time.Duration
	stallPart      int32
	stallAt        time.Duration // when the longest stall began, from the start of the load
	gaps           string        // every stall of 2 s or more: partition, length, start
	resumed        bool          // every partition acknowledged records in the last 5 s of the load
	produced       int
	acked          int
	failed         int // failed back to the application
	failedInLog    int // of those (and of those with no outcome), found in the log anyway
	noOutcome      int // never reported
	lost           int // acknowledged, not in the log
	duplicates     int
	reordered      int
	wrongOffset    int
	firstErr       string
	notes          []string
	load           time.Duration // how long the load ran
	measuredHeal   bool          // the scenario marked when the cluster healed
	afterHeal      time.Duration // the longest stall after it
}

func (r *realRun) result(sc, peer string, log map[int32][]readback.Record) peerResult {
	res := peerResult{scenario: sc, peer: peer, notes: r.notes, produced: len(r.produced), load: r.ended.Sub(r.began)}
	var at time.Time
	res.stall, res.stallPart, res.resumed, at = r.tl.stall(realParts, r.from, r.ended)
	res.stallAt = at.Sub(r.began)
	if !r.healed.IsZero() {
		res.measuredHeal = true
		res.afterHeal, _, _, _ = r.tl.stall(realParts, r.healed, r.ended)
	}
	var gs []string
	for _, g := range r.tl.gaps(realParts, r.from, r.ended, 2*time.Second) {
		gs = append(gs, fmt.Sprintf("p%d %.1fs@%.1fs", g.part, g.duration.Seconds(), g.from.Sub(r.began).Seconds()))
	}
	res.gaps = strings.Join(gs, ", ")
	r.tl.mu.Lock()
	res.fatal = append([]string(nil), r.tl.fatals...)
	produced := make([]readback.Produced, len(r.produced))
	for i, pr := range r.produced {
		o, ok := r.tl.results[pr.ID]
		switch {
		case !ok:
			res.noOutcome++
		case o.acked:
			pr.Acked, pr.Partition, pr.Offset = true, o.partition, o.offset
		default:
			res.failed++
			if res.firstErr == "" {
				res.firstErr = o.reason
			}
		}
		produced[i] = pr
	}
	logs := append([]string(nil), r.tl.logs...)
	r.tl.mu.Unlock()
	rep := readback.Check(log, produced, func(rec readback.Record) string { return valueID(rec.Value) })
	res.acked, res.lost, res.duplicates, res.reordered, res.wrongOffset = rep.Acked, rep.Lost, rep.Duplicates, rep.Reordered, rep.WrongOffset
	inLog := map[string]bool{}
	for _, recs := range log {
		for _, rec := range recs {
			inLog[valueID(rec.Value)] = true
		}
	}
	for _, pr := range produced {
		if !pr.Acked && inLog[pr.ID] {
			res.failedInLog++
		}
	}
	if len(rep.Problems) > 0 {
		r.t.Logf("%s/%s read back: %v\n  %s", sc, peer, rep, strings.Join(rep.Problems, "\n  "))
	}
	if len(logs) > 0 && (len(res.fatal) > 0 || !rep.OK() || res.failed > 0 || res.noOutcome > 0) {
		if len(logs) > 60 {
			logs = append(logs[:30:30], append([]string{"..."}, logs[len(logs)-30:]...)...)
		}
		r.t.Logf("%s/%s peer log:\n  %s", sc, peer, strings.Join(logs, "\n  "))
	}
	return res
}

func (res peerResult) line() string {
	return fmt.Sprintf("%s/%s: produced %d in %v (%.0f/s), acked %d, failed %d (%d of them in the log), no outcome %d; lost %d, duplicates %d, reordered %d, wrong offset %d; longest stall %v (partition %d, from %.1fs, resumed %v); stalls of 2 s or more [%s]; fatal %q; first error %q",
		res.scenario, res.peer, res.produced, res.load.Round(time.Second), float64(res.produced)/max(res.load.Seconds(), 1e-3), res.acked, res.failed, res.failedInLog, res.noOutcome,
		res.lost, res.duplicates, res.reordered, res.wrongOffset, res.stall.Round(time.Millisecond), res.stallPart, res.stallAt.Seconds(), res.resumed, res.gaps, res.fatal, res.firstErr)
}

// judge fails t where the result shows a broken harness or a broken
// rollsafe: in the clean scenario every peer must deliver every record
// exactly once (else the plumbing, not the peer, is wrong), and rollsafe
// must do so in every scenario. Other peers' results under faults are the
// measurement, reported, not asserted.
func (res peerResult) judge(t *testing.T) {
	t.Helper()
	if res.produced == 0 {
		t.Fatal("no record was produced")
	}
	perfect := len(res.fatal) == 0 && res.resumed && res.acked == res.produced && res.failed == 0 && res.noOutcome == 0 &&
		res.lost == 0 && res.duplicates == 0 && res.reordered == 0 && res.wrongOffset == 0
	if perfect {
		return
	}
	switch {
	case res.scenario == "clean":
		t.Errorf("clean scenario, %s: %s", res.peer, res.line())
	case res.peer == "rollsafe":
		t.Errorf("rollsafe must lose, duplicate, reorder and fail nothing and never stop: %s", res.line())
	}
}

// resultsTable renders the results as docs/peers.md's markdown table.
func resultsTable(results []peerResult) string {
	var b strings.Builder
	b.WriteString("| scenario | peer | fatal? | longest stall | duplicates | failed back to the app (of which in the log) | no outcome | lost | reordered | records |\n")
	b.WriteString("|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range results {
		fatal := "no"
		if len(r.fatal) > 0 {
			fatal = "**yes**"
		}
		stall := fmt.Sprintf("%.1f s", r.stall.Seconds())
		if !r.resumed {
			stall += " (never resumed)"
		}
		failed := fmt.Sprint(r.failed)
		if r.failedInLog > 0 {
			failed += fmt.Sprintf(" (%d)", r.failedInLog)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d | %s | %d | %d | %d | %d |\n", r.scenario, r.peer, fatal, stall,
			r.duplicates, failed, r.noOutcome, r.lost, r.reordered+r.wrongOffset, r.produced)
	}
	var fatals []string
	for _, r := range results {
		if len(r.fatal) > 0 {
			fatals = append(fatals, fmt.Sprintf("- %s/%s: %s", r.scenario, r.peer, r.fatal[0]))
		}
	}
	if len(fatals) > 0 {
		b.WriteString("\nFatal errors, as the peers logged them:\n\n" + strings.Join(fatals, "\n") + "\n")
	}
	return b.String()
}
