package docscheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// root is the repository's root, two directories up from this package.
func root(t *testing.T) string {
	t.Helper()
	r, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(r, "go.mod")); err != nil {
		t.Fatalf("repository root not found at %s: %v", r, err)
	}
	return r
}

// docFile is one markdown file whose commands run from dir.
type docFile struct {
	path string // relative to the root, for messages
	dir  string // absolute: where its commands run
	text string
}

// docFiles returns README.md, docs/*.md, idempotence/README.md and
// bench/README.md. Their commands run from the root, bench/README.md's
// from bench/.
func docFiles(t *testing.T) []docFile {
	t.Helper()
	r := root(t)
	paths := []string{"README.md", filepath.Join("idempotence", "README.md"), filepath.Join("bench", "README.md")}
	docs, err := filepath.Glob(filepath.Join(r, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		paths = append(paths, strings.TrimPrefix(d, r+string(filepath.Separator)))
	}
	var out []docFile
	for _, p := range paths {
		b, err := os.ReadFile(filepath.Join(r, p))
		if err != nil {
			t.Fatal(err)
		}
		dir := r
		if p == filepath.Join("bench", "README.md") {
			dir = filepath.Join(r, "bench")
		}
		out = append(out, docFile{path: p, dir: dir, text: string(b)})
	}
	return out
}

// block is a fenced code block: its info string and its lines, with the
// line number of its first line in the file.
type block struct {
	lang  string
	line  int
	lines []string
}

// blocks returns the fenced code blocks of a markdown text.
func blocks(text string) []block {
	var out []block
	var cur *block
	for i, l := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(l)
		if strings.HasPrefix(trimmed, "```") {
			if cur == nil {
				cur = &block{lang: strings.TrimSpace(strings.TrimPrefix(trimmed, "```")), line: i + 2}
				continue
			}
			out = append(out, *cur)
			cur = nil
			continue
		}
		if cur != nil {
			cur.lines = append(cur.lines, l)
		}
	}
	return out
}
