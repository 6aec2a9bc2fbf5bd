package scenario

import (
	"context"
	"strings"
	"testing"
	"time"
)

// RunPaced plays each step only when the caller's wait lets it, in order,
// after the previous step was applied; Current says when the fault ended;
// steps name Kafka error codes, not numbers.
func TestRunPacedAndCurrentClears(t *testing.T) {
	c := newCluster(t)
	s := Seed(SeedConfig{Topic: "t", Partition: 0, Down: time.Hour, Up: time.Hour, OutOfOrderOnReturn: true})
	if got := s.Steps[len(s.Steps)-1].What(); !strings.Contains(got, "OUT_OF_ORDER_SEQUENCE_NUMBER") || strings.Contains(got, "45") {
		t.Fatalf("inject step reads %q", got)
	}
	p := NewPlayer(c, s)
	var currents []string
	asked := 0
	err := p.RunPaced(context.Background(), func(_ context.Context, i int, _ Step) error {
		if i != asked {
			t.Fatalf("asked about step %d, want %d", i, asked)
		}
		if applied, _, _ := p.Played(); applied != i {
			t.Fatalf("step %d asked with %d applied", i, applied)
		}
		asked++
		currents = append(currents, p.Current())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if applied, skipped, first := p.Played(); applied != len(s.Steps) || skipped != 0 {
		t.Fatalf("played %d, skipped %d (%v)", applied, skipped, first)
	}
	// While the leader is down the fault shows; once it is back, it clears.
	if !strings.Contains(currents[1], "stopped broker") {
		t.Fatalf("Current while the broker is down: %q", currents[1])
	}
	if got := p.Current(); !strings.HasPrefix(got, "none") || !strings.Contains(got, "step 5/5") {
		t.Fatalf("Current after the scenario: %q", got)
	}
}
