package idempotence

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// txnDiagramMark opens README's transaction diagram (the partition
// diagram, read by TestStateDiagram, comes first).
const txnDiagramMark = "```mermaid\nstateDiagram-v2\n    %% transaction states\n"

// TestTxnStateDiagram compares README's transaction diagram with the
// transaction table (txn_state.go), row for row, both ways.
func TestTxnStateDiagram(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	start := strings.Index(text, txnDiagramMark)
	if start < 0 {
		t.Fatal("README.md has no transaction diagram")
	}
	body := text[start+len(txnDiagramMark):]
	body = body[:strings.Index(body, "```")]
	line := regexp.MustCompile(`^\s*(\[\*\]|\w+)\s*-->\s*(\w+)\s*:\s*(\w+)\s*$`)
	var inDiagram []string
	for _, l := range strings.Split(body, "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		m := line.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("README.md transaction diagram: cannot read line %q (want From --> To : Event)", l)
		}
		if m[1] == "[*]" {
			if m[2] != TxnUninitialized.String() {
				t.Errorf("README.md: a transactional producer starts in %s, the diagram says %s", TxnUninitialized, m[2])
			}
			continue
		}
		inDiagram = append(inDiagram, m[1]+" --> "+m[2]+" : "+m[3])
	}
	var inTable []string
	for _, r := range txnTransitions {
		inTable = append(inTable, r.from.String()+" --> "+r.to.String()+" : "+r.ev.String())
	}
	for _, d := range inDiagram {
		if !slices.Contains(inTable, d) {
			t.Errorf("README.md shows %q, the table (txn_state.go) does not have it", d)
		}
	}
	for _, r := range inTable {
		if !slices.Contains(inDiagram, r) {
			t.Errorf("the table (txn_state.go) has %q, README.md's diagram does not show it", r)
		}
	}
}

// TestTxnTransitionTable checks the table's shape: every state reachable
// from Uninitialized, every state but Fatal left again, a reason on every
// row, and an illegal transition refused.
func TestTxnTransitionTable(t *testing.T) {
	reach := map[TxnState]bool{TxnUninitialized: true}
	for changed := true; changed; {
		changed = false
		for _, r := range txnTransitions {
			if reach[r.from] && !reach[r.to] {
				reach[r.to], changed = true, true
			}
		}
	}
	leaves := map[TxnState]bool{}
	for _, r := range txnTransitions {
		if r.why == "" {
			t.Errorf("%v on %v: no reason given", r.from, r.ev)
		}
		if r.from != r.to {
			leaves[r.from] = true
		}
	}
	for s := TxnState(0); s < numTxnStates; s++ {
		if !reach[s] {
			t.Errorf("%v cannot be reached", s)
		}
		if !leaves[s] && s != TxnFatal {
			t.Errorf("%v is never left", s)
		}
	}
	tx := &txn{state: TxnReady}
	func() {
		defer func() {
			if recover() == nil {
				t.Errorf("Ready on Commit (not in the table) did not panic under the check")
			}
		}()
		tx.on(tvCommit)
	}()
	checkTransitions = false
	defer func() { checkTransitions = true }()
	if tx.on(tvCommit) || tx.state != TxnReady {
		t.Errorf("an illegal transition moved the transaction to %v", tx.state)
	}
}
