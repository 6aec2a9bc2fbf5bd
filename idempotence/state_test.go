package idempotence

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Every transition the package's tests make is checked against the table:
// the rule tests, the exhaustive search and the random walks panic on one
// it lacks.
func init() { checkTransitions = true }

// TestStateDiagram compares the state diagram in README.md (a mermaid
// stateDiagram: "From --> To : Event") with the transition table, row for
// row, both ways.
func TestStateDiagram(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	start := strings.Index(text, "```mermaid\nstateDiagram-v2\n")
	if start < 0 {
		t.Fatal("README.md has no mermaid stateDiagram-v2 block")
	}
	body := text[start:]
	body = body[strings.Index(body, "\n")+1:]
	body = body[:strings.Index(body, "```")]
	line := regexp.MustCompile(`^\s*(\[\*\]|\w+)\s*-->\s*(\w+)\s*:\s*(\w+)\s*$`)
	var inDiagram []string
	for _, l := range strings.Split(body, "\n") {
		if strings.TrimSpace(l) == "" || strings.HasPrefix(strings.TrimSpace(l), "stateDiagram") {
			continue
		}
		m := line.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("README.md state diagram: cannot read line %q (want From --> To : Event)", l)
		}
		if m[1] == "[*]" {
			if m[2] != psSending.String() {
				t.Errorf("README.md: a partition starts in %s, the diagram says %s", psSending, m[2])
			}
			continue
		}
		inDiagram = append(inDiagram, m[1]+" --> "+m[2]+" : "+m[3])
	}
	var inTable []string
	for _, r := range transitions {
		inTable = append(inTable, r.from.String()+" --> "+r.to.String()+" : "+r.ev.String())
	}
	for _, d := range inDiagram {
		if !slices.Contains(inTable, d) {
			t.Errorf("README.md shows %q, the table (state.go) does not have it", d)
		}
	}
	for _, r := range inTable {
		if !slices.Contains(inDiagram, r) {
			t.Errorf("the table (state.go) has %q, README.md's diagram does not show it", r)
		}
	}
	if len(inDiagram) != len(inTable) {
		t.Errorf("README.md shows %d transitions, the table has %d", len(inDiagram), len(inTable))
	}
}

// TestTransitionTable checks the table's shape: every state reachable from
// Sending, every state left again, a reason on every row, and the illegal
// transition refused (a panic under the tests' check, nothing otherwise).
func TestTransitionTable(t *testing.T) {
	reach := map[pstate]bool{psSending: true}
	for changed := true; changed; {
		changed = false
		for _, r := range transitions {
			if reach[r.from] && !reach[r.to] {
				reach[r.to], changed = true, true
			}
		}
	}
	leaves := map[pstate]bool{}
	for _, r := range transitions {
		if r.why == "" {
			t.Errorf("%v on %v: no reason given", r.from, r.ev)
		}
		if r.from != r.to {
			leaves[r.from] = true
		}
	}
	for s := pstate(0); s < numStates; s++ {
		if !reach[s] {
			t.Errorf("%v cannot be reached from %v", s, psSending)
		}
		if !leaves[s] {
			t.Errorf("%v is never left", s)
		}
	}
	p := newPartition(tp0, 0)
	p.state = psReading
	func() {
		defer func() {
			if recover() == nil {
				t.Errorf("Reading on LeaderMoved (not in the table) did not panic under the check")
			}
		}()
		p.on(evLeaderMoved)
	}()
	checkTransitions = false
	defer func() { checkTransitions = true }()
	p.on(evLeaderMoved)
	if p.state != psReading {
		t.Errorf("an illegal transition moved the partition to %v", p.state)
	}
}
