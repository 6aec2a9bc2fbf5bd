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
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			ff, ok := flagFuncs[sel.Sel.Name]
			if !ok || len(call.Args) <= ff.arg {
				return true
			}
			var name string
			switch a := call.Args[ff.arg].(type) {
			case *ast.BasicLit:
				if a.Kind != token.STRING {
					return true
				}
				name, _ = strconv.Unquote(a.Value)
			case *ast.Ident:
				name = consts[a.Name]
			}
			if name == "" {
				return true
			}
			p.testFlags[name] = ff.isBool
			if !isTest[i] {
				p.flags[name] = ff.isBool
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
