package conformance

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rollsafe/rollsafe/client"
)

// transcript is a slog.Handler keeping the producer loop's trace (every
// input stepped into the idempotence machine, every Ready it gave back,
// with virtual times): in the deterministic world, the execution itself.
type transcript struct {
	mu    sync.Mutex
	lines []string
}

func newTranscript() *transcript { return &transcript{} }

func (tr *transcript) Enabled(_ context.Context, l slog.Level) bool { return l == client.LevelTrace }
func (tr *transcript) WithAttrs([]slog.Attr) slog.Handler           { return tr }
func (tr *transcript) WithGroup(string) slog.Handler                { return tr }

func (tr *transcript) Handle(_ context.Context, r slog.Record) error {
	if r.Level != client.LevelTrace {
		return nil
	}
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	tr.mu.Lock()
	tr.lines = append(tr.lines, b.String())
	tr.mu.Unlock()
	return nil
}

// Lines returns the transcript so far.
func (tr *transcript) Lines() []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return append([]string(nil), tr.lines...)
}

// Sum identifies the transcript: equal sums, equal executions.
func (tr *transcript) Sum() string {
	h := sha256.New()
	for _, l := range tr.Lines() {
		h.Write([]byte(l))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// save writes the transcript to a file and says where, for a failure
// report ("" if there is none).
func (tr *transcript) save(t *testing.T, seed int64) string {
	if tr == nil || len(tr.Lines()) == 0 {
		return ""
	}
	path := filepath.Join(os.TempDir(), fmt.Sprintf("rollsafe-chaos-%d.transcript", seed))
	if err := os.WriteFile(path, []byte(strings.Join(tr.Lines(), "\n")+"\n"), 0o644); err != nil {
		t.Logf("writing the transcript: %v", err)
		return ""
	}
	return fmt.Sprintf("transcript (%d lines, sum %s): %s\n", len(tr.Lines()), tr.Sum(), path)
}

// firstDiff returns the first line where two transcripts differ.
func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			before := strings.Join(a[max(0, i-6):i], "\n  ")
			return fmt.Sprintf("line %d, after:\n  %s\n  first:  %s\n  second: %s", i+1, before, a[i], b[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(a), len(b))
}

var chaosReplays = flag.Int("chaos.replays", 0, "TestChaosReplay replays seeds 1..N (0: seeds 1..32, every kind of schedule, and the regressions)")

// TestChaosReplay plays chaos schedules twice each in the deterministic
// world and requires the same transcript both times: one seed, one
// execution, bit for bit.
func TestChaosReplay(t *testing.T) {
	var seeds []int64
	for s := int64(1); s <= 32; s++ {
		seeds = append(seeds, s)
	}
	seeds = append(seeds, chaosRegressions...)
	if *chaosReplays > 0 {
		seeds = seeds[:0]
		for s := int64(1); s <= int64(*chaosReplays); s++ {
			seeds = append(seeds, s)
		}
	}
	if *chaosSeed != 0 {
		seeds = []int64{*chaosSeed}
	}
	for _, seed := range seeds {
		_, _, a, err := chaosRun(t, seed, true)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		_, _, b, err := chaosRun(t, seed, true)
		if err != nil {
			t.Fatalf("seed %d, replayed: %v", seed, err)
		}
		la, lb := a.Lines(), b.Lines()
		if len(la) < 10 {
			t.Fatalf("seed %d: a transcript of %d lines: the trace is not recorded", seed, len(la))
		}
		if a.Sum() != b.Sum() {
			t.Errorf("seed %d replayed differently (%d and %d lines), first difference at %s", seed, len(la), len(lb), firstDiff(la, lb))
		}
	}
}
