package scenario

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Schedule is a named list of steps, ordered by At.
type Schedule struct {
	Name  string
	Seed  int64 // the seed Random was given; 0 for named scenarios
	Steps []Step
}

// String prints the schedule, one step per line, so that it can be read
// in a test failure and rebuilt from its seed.
func (s Schedule) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "schedule %q seed=%d (%d steps)\n", s.Name, s.Seed, len(s.Steps))
	for i, st := range s.Steps {
		fmt.Fprintf(&b, "  %2d %s\n", i, st)
	}
	return b.String()
}

// Span is the offset of the last step.
func (s Schedule) Span() time.Duration {
	if len(s.Steps) == 0 {
		return 0
	}
	return s.Steps[len(s.Steps)-1].At
}

// sortSteps orders steps by At, keeping the order of equal times.
func sortSteps(steps []Step) {
	slices.SortStableFunc(steps, func(a, b Step) int {
		switch {
		case a.At < b.At:
			return -1
		case a.At > b.At:
			return 1
		}
		return 0
	})
}
