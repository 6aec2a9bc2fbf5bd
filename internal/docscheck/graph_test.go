package docscheck

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/rollsafe/rollsafe"

var mermaidNode = regexp.MustCompile(`(\w+)(?:\["([^"]+)"\])?`)

// TestArchitectureGraph: the mermaid graph of docs/architecture.md has
// exactly the imports between the root module's packages that their
// non-test Go files have.
func TestArchitectureGraph(t *testing.T) {
	r := root(t)
	b, err := os.ReadFile(filepath.Join(r, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	graphs := 0
	for _, bl := range blocks(string(b)) {
		if bl.lang != "mermaid" || len(bl.lines) == 0 || !strings.HasPrefix(strings.TrimSpace(bl.lines[0]), "graph") {
			continue
		}
		graphs++
		labels := map[string]string{}
		type edge struct{ from, to string }
		var edges []edge
		for _, l := range bl.lines[1:] {
			from, to, ok := strings.Cut(strings.TrimSpace(l), "-->")
			if !ok {
				continue
			}
			fm := mermaidNode.FindStringSubmatch(strings.TrimSpace(from))
			tm := mermaidNode.FindStringSubmatch(strings.TrimSpace(to))
			for _, m := range [][]string{fm, tm} {
				if m[2] != "" {
					labels[m[1]] = m[2]
				}
			}
			edges = append(edges, edge{fm[1], tm[1]})
		}
		label := func(id string) string {
			if l, ok := labels[id]; ok {
				return l
			}
			return id
		}
		for _, e := range edges {
			documented = append(documented, label(e.from)+" -> "+label(e.to))
		}
	}
	if graphs != 1 {
		t.Fatalf("docs/architecture.md has %d mermaid graphs, want the package graph alone", graphs)
	}
	dirs, err := expand(r, "./...")
	if err != nil {
		t.Fatal(err)
	}
	var actual []string
	for _, d := range dirs {
		p, err := loadPkg(d)
		if err != nil {
			t.Fatal(err)
		}
		if !p.hasGo {
			continue
		}
		from, _ := filepath.Rel(r, d)
		for _, im := range p.imports {
			if to, ok := strings.CutPrefix(im, module+"/"); ok && !slices.Contains(actual, filepath.ToSlash(from)+" -> "+to) {
				actual = append(actual, filepath.ToSlash(from)+" -> "+to)
			}
		}
	}
	slices.Sort(documented)
	slices.Sort(actual)
	for _, e := range actual {
		if !slices.Contains(documented, e) {
			t.Errorf("docs/architecture.md's graph lacks the import %s", e)
		}
	}
	for _, e := range documented {
		if !slices.Contains(actual, e) {
			t.Errorf("docs/architecture.md's graph shows %s, which no Go file imports", e)
		}
	}
}
