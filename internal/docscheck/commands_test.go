package docscheck

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// goTestFlags are the go command's and the testing package's flags a
// documented `go test` may use; true: the flag takes a value.
var goTestFlags = map[string]bool{
	"run": true, "bench": true, "benchtime": true, "count": true, "timeout": true, "skip": true,
	"cpu": true, "parallel": true, "cpuprofile": true, "memprofile": true, "blockprofile": true,
	"mutexprofile": true, "coverprofile": true, "covermode": true, "coverpkg": true, "o": true,
	"exec": true, "tags": true, "ldflags": true, "gcflags": true, "p": true, "trace": true,
	"outputdir": true, "fuzz": true, "fuzztime": true, "fuzzminimizetime": true, "shuffle": true,
	"list": true, "vet": true, "mod": true, "modfile": true, "overlay": true, "C": true,
	"memprofilerate": true, "blockprofilerate": true, "mutexprofilefraction": true,
	"v": false, "race": false, "short": false, "failfast": false, "benchmem": false, "cover": false,
	"json": false, "x": false, "n": false, "work": false, "a": false, "trimpath": false, "c": false,
	"fullpath": false, "msan": false, "asan": false,
}

// commands is the check: every documented command running a package of
// the repository names one that exists and uses only flags and test
// names it defines.
func TestDocumentedCommands(t *testing.T) {
	r := root(t)
	checked := 0
	for _, f := range docFiles(t) {
		for _, b := range blocks(f.text) {
			switch b.lang {
			case "", "sh", "bash", "shell", "console":
			default:
				continue
			}
			dirs := []string{f.dir} // a stack: ( ... ) is a subshell
			for i, l := range shellLines(b.lines) {
				where := fmt.Sprintf("%s, block at line %d, command %d: %s", f.path, b.line, i+1, strings.TrimSpace(l))
				var cmd []string
				run := func() {
					if len(cmd) > 0 {
						if c := checkCommand(r, &dirs, cmd); c != "" {
							t.Errorf("%s\n\t%s", where, c)
						}
						if isChecked(cmd) {
							checked++
						}
					}
					cmd = nil
				}
				for _, tk := range tokenize(l) {
					if !tk.op {
						cmd = append(cmd, tk.text)
						continue
					}
					run()
					switch tk.text {
					case "(":
						dirs = append(dirs, dirs[len(dirs)-1])
					case ")":
						if len(dirs) > 1 {
							dirs = dirs[:len(dirs)-1]
						}
					}
				}
				run()
				dirs = dirs[:1] // an unclosed subshell ends with its line; a cd persists
			}
		}
	}
	// Commands quoted inline in the prose, `go test ./x -run Y` and the
	// like, are held to the same rules.
	for _, f := range docFiles(t) {
		for _, m := range inlineCode.FindAllStringSubmatch(stripCode(f.text), -1) {
			l := strings.Join(strings.Fields(m[1]), " ")
			var words []string
			for _, tk := range tokenize(l) {
				if !tk.op {
					words = append(words, tk.text)
				}
			}
			if !isChecked(words) && !strings.HasPrefix(l, "cd ") || strings.Contains(l, "…") {
				continue // not a command, or one with a placeholder ("go run ./…")
			}
			dirs := []string{f.dir}
			var cmd []string
			for _, tk := range tokenize(l) {
				if !tk.op {
					cmd = append(cmd, tk.text)
					continue
				}
				if c := checkCommand(r, &dirs, cmd); c != "" {
					t.Errorf("%s, inline: %s\n\t%s", f.path, l, c)
				}
				cmd = nil
			}
			if c := checkCommand(r, &dirs, cmd); c != "" {
				t.Errorf("%s, inline: %s\n\t%s", f.path, l, c)
			}
			checked++
		}
	}
	if checked < 20 {
		t.Fatalf("only %d documented commands checked: the block parser lost them", checked)
	}
	t.Logf("%d documented commands checked", checked)
}

// isChecked says whether a command is one the check looks into.
func isChecked(cmd []string) bool {
	cmd = skipEnv(cmd)
	if len(cmd) == 0 {
		return false
	}
	switch cmd[0] {
	case "rollsafe", "kafkacluster":
		return true
	case "go":
		return len(cmd) > 1 && (cmd[1] == "run" || cmd[1] == "test")
	}
	return false
}

var (
	envAssign  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)
	inlineCode = regexp.MustCompile("`([^`]+)`")
)

func skipEnv(cmd []string) []string {
	for len(cmd) > 0 && envAssign.MatchString(cmd[0]) {
		cmd = cmd[1:]
	}
	return cmd
}

// checkCommand checks one simple command run in (*dirs)[top]; a cd
// changes that directory. It returns what is wrong, or "".
func checkCommand(root string, dirs *[]string, cmd []string) string {
	dir := (*dirs)[len(*dirs)-1]
	cmd = skipEnv(cmd)
	if len(cmd) == 0 {
		return ""
	}
	switch {
	case cmd[0] == "cd" && len(cmd) > 1:
		d := filepath.Join(dir, cmd[1])
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return fmt.Sprintf("cd %s: no such directory", cmd[1])
		}
		(*dirs)[len(*dirs)-1] = d
		return ""
	case strings.HasSuffix(cmd[0], ".sh") && strings.Contains(cmd[0], "/"):
		if _, err := os.Stat(filepath.Join(dir, cmd[0])); err != nil {
			return fmt.Sprintf("%s: no such script", cmd[0])
		}
		return ""
	case cmd[0] == "rollsafe":
		return checkRun(filepath.Join(root, "cmd", "rollsafe"), cmd[1:])
	case cmd[0] == "kafkacluster":
		return checkRun(filepath.Join(root, "kafkatest", "cmd", "kafkacluster"), cmd[1:])
	case cmd[0] == "go" && len(cmd) > 2 && cmd[1] == "run":
		args := cmd[2:]
		for len(args) > 0 && flagName(args[0]) != "" { // go run's own flags (-race)
			args = args[1:]
		}
		if len(args) == 0 {
			return "go run without a package"
		}
		if !strings.HasPrefix(args[0], ".") {
			return "" // a module path: not ours to check
		}
		d := filepath.Join(dir, args[0])
		return checkRun(d, args[1:])
	case cmd[0] == "go" && len(cmd) > 1 && cmd[1] == "test":
		return checkTest(dir, cmd[2:])
	}
	return ""
}

// checkRun checks a command package's arguments: it exists, is a
// command, and defines every flag used.
func checkRun(dir string, args []string) string {
	p, err := loadPkg(dir)
	if err != nil || !p.hasGo {
		return fmt.Sprintf("package %s does not exist", dir)
	}
	if p.name != "main" {
		return fmt.Sprintf("package %s is not a command", dir)
	}
	// A command with subcommands (rollsafe demo, rollsafe sim): the
	// subcommand's flags, after it.
	defined, what := p.flags, filepath.Base(dir)
	if len(args) > 0 && flagName(args[0]) == "" {
		if sub, ok := p.subFlags[args[0]]; ok {
			defined, what, args = sub, what+" "+args[0], args[1:]
		}
	}
	var bad []string
	for _, a := range args {
		if a == "-args" {
			break
		}
		n := flagName(a)
		if n == "" || n == "h" || n == "help" {
			continue
		}
		if _, ok := defined[n]; !ok {
			bad = append(bad, "-"+n)
		}
	}
	if len(bad) > 0 {
		return fmt.Sprintf("%s has no flag %s", what, strings.Join(bad, ", "))
	}
	return ""
}

// checkTest checks a go test command: its packages exist, every flag is
// go test's or one its packages' tests define, and every -run, -skip and
// -bench pattern names a function of them.
func checkTest(dir string, args []string) string {
	var patterns, flagsUsed []string
	var run, skip, bench []string
	afterArgs := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-args" {
			afterArgs = true
			continue
		}
		if strings.HasPrefix(a, "$(") {
			patterns = append(patterns, "$")
			continue
		}
		n := flagName(a)
		if n == "" {
			// A package, or the value of a package's flag given as
			// "-flag value" (a package named by import path is not ours).
			if !afterArgs && strings.HasPrefix(a, ".") {
				patterns = append(patterns, a)
			}
			continue
		}
		n = strings.TrimPrefix(n, "test.")
		value := ""
		takes, known := goTestFlags[n]
		if afterArgs {
			known = false
		}
		if !known {
			flagsUsed = append(flagsUsed, a)
			continue // package flags: their values are checked below
		}
		if takes && !hasValue(a) && i+1 < len(args) {
			i++
			value = args[i]
		} else if hasValue(a) {
			value = a[strings.Index(a, "=")+1:]
		}
		switch n {
		case "run":
			run = append(run, value)
		case "skip":
			skip = append(skip, value)
		case "bench":
			bench = append(bench, value)
		}
	}
	if slices.Contains(patterns, "$") {
		patterns = []string{"./..."} // $(go list ./... | ...): some of the module's packages
	}
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	var pkgs []*pkgInfo
	for _, pat := range patterns {
		ds, err := expand(dir, pat)
		if err != nil || len(ds) == 0 {
			return fmt.Sprintf("no package %s in %s", pat, dir)
		}
		for _, d := range ds {
			p, err := loadPkg(d)
			if err != nil {
				return err.Error()
			}
			pkgs = append(pkgs, p)
		}
	}
	var bad []string
	for _, a := range flagsUsed {
		n := strings.TrimPrefix(flagName(a), "test.")
		found := n == "h" || n == "help"
		for _, p := range pkgs {
			if _, ok := p.testFlags[n]; ok {
				found = true
			}
		}
		if !found {
			bad = append(bad, "-"+n)
		}
	}
	if len(bad) > 0 {
		return fmt.Sprintf("no test flag %s in the packages %v", strings.Join(bad, ", "), patterns)
	}
	var tests, benches []string
	for _, p := range pkgs {
		tests = append(tests, p.tests...)
		benches = append(benches, p.benches...)
	}
	for _, pat := range append(run, skip...) {
		if msg := matchAll(pat, tests); msg != "" {
			return msg
		}
	}
	for _, pat := range bench {
		if msg := matchAll(pat, benches); msg != "" {
			return msg
		}
	}
	return ""
}

// matchAll checks that each top-level alternative of a -run pattern's
// first element (as the testing package splits it at "/") matches at
// least one function name. "^$" (run nothing) is allowed.
func matchAll(pattern string, names []string) string {
	first := splitTop(pattern, '/')[0]
	for _, alt := range splitTop(first, '|') {
		if alt == "^$" || alt == "" || alt == "." {
			continue
		}
		re, err := regexp.Compile(alt)
		if err != nil {
			return fmt.Sprintf("pattern %q: %v", pattern, err)
		}
		if !slices.ContainsFunc(names, re.MatchString) {
			return fmt.Sprintf("pattern %q: %q matches no function of the packages", pattern, alt)
		}
	}
	return ""
}

// splitTop splits s at sep outside parentheses and brackets.
func splitTop(s string, sep byte) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case sep:
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}
