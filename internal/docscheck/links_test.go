package docscheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	mdLink    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	mdHeading = regexp.MustCompile(`(?m)^#{1,6} (.+)$`)
	slugDrop  = regexp.MustCompile(`[^\p{L}\p{N} _-]`)
)

// notYetWritten are documents linked before they exist (written
// elsewhere); a link to one is not an error while it is missing.
var notYetWritten = map[string]bool{filepath.Join("docs", "confluent.md"): true}

// TestDocumentedLinks: every relative link of the documentation resolves
// to a file, and a link to a heading of a markdown file names one it has.
func TestDocumentedLinks(t *testing.T) {
	r := root(t)
	for _, f := range docFiles(t) {
		text := stripCode(f.text)
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			file := filepath.Join(r, f.path)
			if path != "" {
				file = filepath.Join(filepath.Dir(filepath.Join(r, f.path)), path)
			}
			rel, _ := filepath.Rel(r, file)
			b, err := os.ReadFile(file)
			if err != nil {
				if st, serr := os.Stat(file); serr == nil && st.IsDir() {
					continue
				}
				if !notYetWritten[rel] {
					t.Errorf("%s: link %s: %v", f.path, target, err)
				}
				continue
			}
			if anchor != "" && strings.HasSuffix(file, ".md") && !hasAnchor(string(b), anchor) {
				t.Errorf("%s: link %s: %s has no heading #%s", f.path, target, rel, anchor)
			}
		}
	}
}

// stripCode removes fenced code blocks, whose brackets are not links.
func stripCode(text string) string {
	var out []string
	in := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			in = !in
			continue
		}
		if !in {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// hasAnchor says whether a markdown text has a heading whose GitHub
// anchor is anchor.
func hasAnchor(text, anchor string) bool {
	for _, m := range mdHeading.FindAllStringSubmatch(stripCode(text), -1) {
		h := strings.ToLower(strings.TrimSpace(m[1]))
		h = strings.ReplaceAll(h, "`", "")
		h = slugDrop.ReplaceAllString(h, "")
		h = strings.ReplaceAll(h, " ", "-")
		if h == anchor {
			return true
		}
	}
	return false
}
