package docscheck

import (
	"strings"
	"unicode"
)

// word is a word of a shell line, or an operator (&&, ||, ;, |, (, )).
type word struct {
	text string
	op   bool
}

// shellLines joins a block's lines into logical command lines: a line
// ending in a backslash continues on the next, and so does a synopsis
// line continued by an indented "[-flag ...]". Prompts ("$ ") and
// comments are removed.
func shellLines(lines []string) []string {
	var out []string
	cont := false
	for _, l := range lines {
		l = strings.TrimPrefix(strings.TrimLeft(l, " \t"), "$ ")
		raw := l
		l = stripComment(l)
		switch {
		case cont && len(out) > 0:
			out[len(out)-1] += " " + strings.TrimSpace(strings.TrimSuffix(l, "\\"))
		case strings.HasPrefix(raw, "[") && len(out) > 0:
			out[len(out)-1] += " " + l
		default:
			out = append(out, strings.TrimSuffix(l, "\\"))
		}
		cont = strings.HasSuffix(strings.TrimSpace(l), "\\")
	}
	return out
}

// stripComment cuts a " # comment" outside quotes.
func stripComment(l string) string {
	var quote rune
	for i, r := range l {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '#' && (i == 0 || l[i-1] == ' ' || l[i-1] == '\t'):
			return strings.TrimRight(l[:i], " \t")
		}
	}
	return l
}

// tokenize splits a line as a shell would, enough for the documentation's
// commands: quotes group, $(...) is one word, and &&, ||, ;, (, ) are
// operators; | is one only after a blank (a synopsis's "a|b" is a word).
func tokenize(l string) []word {
	var out []word
	var buf strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			out = append(out, word{text: buf.String()})
			buf.Reset()
			inWord = false
		}
	}
	rs := []rune(l)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\'' || r == '"':
			inWord = true
			j := i + 1
			for j < len(rs) && rs[j] != r {
				buf.WriteRune(rs[j])
				j++
			}
			i = j
		case r == '$' && i+1 < len(rs) && rs[i+1] == '(':
			inWord = true
			depth := 0
			j := i + 1
			for ; j < len(rs); j++ {
				if rs[j] == '(' {
					depth++
				} else if rs[j] == ')' {
					depth--
					if depth == 0 {
						break
					}
				}
			}
			buf.WriteString("$(…)")
			i = j
		case unicode.IsSpace(r):
			flush()
		case r == '&' && i+1 < len(rs) && rs[i+1] == '&', r == '|' && i+1 < len(rs) && rs[i+1] == '|':
			flush()
			out = append(out, word{text: string(rs[i : i+2]), op: true})
			i++
		case r == ';' || r == '(' || r == ')':
			if r == '(' && inWord { // a word such as min(3,brokers)
				buf.WriteRune(r)
				continue
			}
			if r == ')' && inWord && strings.Contains(buf.String(), "(") {
				buf.WriteRune(r)
				continue
			}
			flush()
			out = append(out, word{text: string(r), op: true})
		case r == '|' && !inWord:
			out = append(out, word{text: "|", op: true})
		default:
			inWord = true
			buf.WriteRune(r)
		}
	}
	flush()
	return out
}

// flagName returns the name of a flag word ("-records", "--help",
// "[-seed", "-faults.runs=16") or "" for a word that is not a flag.
func flagName(w string) string {
	w = strings.TrimLeft(w, "[")
	if !strings.HasPrefix(w, "-") || w == "-" || w == "--" {
		return ""
	}
	w = strings.TrimLeft(w, "-")
	if w == "" || unicode.IsDigit(rune(w[0])) {
		return "" // a negative number, a value
	}
	if i := strings.IndexAny(w, "=]"); i >= 0 {
		w = w[:i]
	}
	return strings.TrimSuffix(w, "...")
}

// hasValue says whether a flag word carries its value ("-x=1").
func hasValue(w string) bool { return strings.Contains(w, "=") }
