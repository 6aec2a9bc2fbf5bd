package docscheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// pkgInfo is what the check needs of one package directory, from its
// source alone (nothing is built): the flags it defines (with test files:
// the flags its test binary takes), the test, benchmark and example
// functions, whether it is a command, and what its non-test files import.
type pkgInfo struct {
	name      string          // package name of the non-test files
	flags     map[string]bool // flag name -> is a bool flag (non-test files)
	testFlags map[string]bool // the same, test files included
	tests     []string        // Test*, Example*, Fuzz* functions
	benches   []string        // Benchmark* functions
	imports   []string        // import paths of the non-test files
	hasGo     bool
	// subFlags: for a command whose subcommands each parse a FlagSet
	// (flag.NewFlagSet("demo", ...)), the flags of each subcommand: those
	// defined in the function creating the set and in the package's
	// functions it calls, transitively.
	subFlags map[string]map[string]bool
}

var (
	pkgMu    sync.Mutex
	pkgCache = map[string]*pkgInfo{}
)

// flagFuncs maps the flag package's defining functions (and FlagSet's
// methods) to the index of the name argument and whether they define a
// bool flag.
var flagFuncs = map[string]struct {
	arg    int
	isBool bool
}{
	"String": {0, false}, "Int": {0, false}, "Int64": {0, false}, "Uint": {0, false}, "Uint64": {0, false},
	"Float64": {0, false}, "Duration": {0, false}, "Func": {0, false}, "Bool": {0, true}, "BoolFunc": {0, true},
	"StringVar": {1, false}, "IntVar": {1, false}, "Int64Var": {1, false}, "UintVar": {1, false},
	"Uint64Var": {1, false}, "Float64Var": {1, false}, "DurationVar": {1, false}, "Var": {1, false},
	"TextVar": {1, false}, "BoolVar": {1, true},
}

// loadPkg parses the .go files of dir (not its subdirectories).
func loadPkg(dir string) (*pkgInfo, error) {
	pkgMu.Lock()
	defer pkgMu.Unlock()
	if p, ok := pkgCache[dir]; ok {
		return p, nil
	}
	p := &pkgInfo{flags: map[string]bool{}, testFlags: map[string]bool{}}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	var isTest []bool
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
		isTest = append(isTest, strings.HasSuffix(e.Name(), "_test.go"))
	}
	consts := map[string]string{}
	for _, f := range files {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if i < len(vs.Values) {
						if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
							if v, err := strconv.Unquote(lit.Value); err == nil {
								consts[n.Name] = v
							}
						}
					}
				}
			}
		}
	}
	funcs := map[string]*funcFlags{} // non-test functions and methods, by name
	for i, f := range files {
		if isTest[i] {
			continue
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				funcs[fd.Name.Name] = scanFunc(fd, consts)
			}
		}
	}
	p.subFlags = map[string]map[string]bool{}
	for _, ff := range funcs {
		for _, set := range ff.sets {
			flags := map[string]bool{}
			seen := map[*funcFlags]bool{}
			var walk func(*funcFlags)
			walk = func(g *funcFlags) {
				if seen[g] {
					return
				}
				seen[g] = true
				for n, b := range g.defs {
					flags[n] = b
				}
				for _, c := range g.calls {
					if h, ok := funcs[c]; ok {
						walk(h)
					}
				}
			}
			walk(ff)
			p.subFlags[set] = flags
		}
	}
	for i, f := range files {
		if !isTest[i] {
			p.hasGo = true
			p.name = f.Name.Name
			for _, im := range f.Imports {
				path, _ := strconv.Unquote(im.Path.Value)
				p.imports = append(p.imports, path)
			}
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && isTest[i] {
				n := fd.Name.Name
				switch {
				case strings.HasPrefix(n, "Benchmark"):
					p.benches = append(p.benches, n)
				case strings.HasPrefix(n, "Test") && n != "TestMain", strings.HasPrefix(n, "Example"), strings.HasPrefix(n, "Fuzz"):
					p.tests = append(p.tests, n)
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if name, isBool, ok := flagDef(call, consts); ok {
					p.testFlags[name] = isBool
					if !isTest[i] {
						p.flags[name] = isBool
					}
				}
			}
			return true
		})
	}
	pkgCache[dir] = p
	return p, nil
}

// expand resolves a package pattern ("./x", "./x/...", ".") relative to
// dir to package directories. A "..." pattern stops at nested modules
// and testdata, as the go command does.
func expand(dir, pattern string) ([]string, error) {
	if !strings.HasSuffix(pattern, "...") {
		d := filepath.Join(dir, pattern)
		st, err := os.Stat(d)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			return nil, os.ErrNotExist
		}
		return []string{d}, nil
	}
	base := filepath.Join(dir, strings.TrimSuffix(strings.TrimSuffix(pattern, "..."), "/"))
	if _, err := os.Stat(base); err != nil {
		return nil, err
	}
	var out []string
	err := filepath.WalkDir(base, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != base {
			if name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		if m, _ := filepath.Glob(filepath.Join(path, "*.go")); len(m) > 0 {
			out = append(out, path)
		}
		return nil
	})
	return out, err
}

// flagDef returns the flag a call defines (fs.Int("records", ...),
// flag.StringVar(&v, "topic", ...)), if it defines one.
func flagDef(call *ast.CallExpr, consts map[string]string) (name string, isBool, ok bool) {
	sel, isSel := call.Fun.(*ast.SelectorExpr)
	if !isSel {
		return "", false, false
	}
	ff, known := flagFuncs[sel.Sel.Name]
	if !known || len(call.Args) <= ff.arg {
		return "", false, false
	}
	switch a := call.Args[ff.arg].(type) {
	case *ast.BasicLit:
		if a.Kind == token.STRING {
			name, _ = strconv.Unquote(a.Value)
		}
	case *ast.Ident:
		name = consts[a.Name]
	}
	return name, ff.isBool, name != ""
}

// funcFlags is what one function defines and calls.
type funcFlags struct {
	defs  map[string]bool // flags it defines
	calls []string        // names of the functions and methods it calls
	sets  []string        // the subcommands whose FlagSet it creates
}

// scanFunc collects a function's flag definitions, calls and FlagSets.
func scanFunc(fd *ast.FuncDecl, consts map[string]string) *funcFlags {
	ff := &funcFlags{defs: map[string]bool{}}
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if name, isBool, ok := flagDef(call, consts); ok {
			ff.defs[name] = isBool
		}
		switch fn := call.Fun.(type) {
		case *ast.Ident:
			ff.calls = append(ff.calls, fn.Name)
		case *ast.SelectorExpr:
			ff.calls = append(ff.calls, fn.Sel.Name)
			if fn.Sel.Name == "NewFlagSet" && len(call.Args) > 0 {
				if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					set, _ := strconv.Unquote(lit.Value)
					words := strings.Fields(set)
					if len(words) > 0 {
						ff.sets = append(ff.sets, words[len(words)-1])
					}
				}
			}
		}
		return true
	})
	return ff
}
