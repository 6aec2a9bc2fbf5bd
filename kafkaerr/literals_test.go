package kafkaerr

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// No production file of the module outside this package decides by a
// broker code's number: every code is named from the table. The check is
// syntactic and aimed at how codes travel here — as kafkaerr.Code and as
// int16 fields and variables whose name ends in "code" (kmsg's ErrorCode,
// KafkaError.Code, a local code). An integer literal other than 0 is a
// code number when it is
//
//   - compared (==, !=, <, <=, >, >=) with such a name, or a case of a
//     switch on one;
//   - assigned to one, or given as a composite literal's field named
//     ...Code;
//   - the value of a constant or variable whose name starts or ends with
//     "code" (not "codec") or whose type is kafkaerr.Code, or converted to
//     kafkaerr.Code;
//   - the value, between -1 and the table's last code, of a constant or
//     variable whose type is named ...Code or whose name starts with
//     "err" (an integer named err is a code: Go's errors are not numbers).
//
// 0 is allowed: comparing with NONE asks whether the broker failed, not
// what a failure means. Test files are exempt (they pin numbers on
// purpose), as is the bench module (its own go.mod).
func TestNoCodeNumbersOutsideTable(t *testing.T) {
	var found []string
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != ".." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "kafkaerr" || name == "bench") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		found = append(found, codeLiterals(fset, f)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("broker code by number (name it from package kafkaerr): %s", f)
	}
}

// The check finds each kind of code number it is meant to find, and
// passes what it is meant to pass.
func TestCodeLiteralCheckFindsNumbers(t *testing.T) {
	src := `package p
const codeAuth int16 = 58
const codecGzip = 1
const (
	errNotLeader int16 = 6
	ErrLocal ErrorCode = -199
	ErrBroker ErrorCode = 7
	errBufferSize = 1 << 20
)
var x kafkaerr.Code = 3
func f(ke *KafkaError, part Part, code int16) {
	if ke.Code == 29 {}
	if int16(part.ErrorCode) != -1 {}
	switch ke.Code {
	case 30, 31:
	}
	code = 53
	_ = Response{Code: 45}
	_ = kafkaerr.Code(6)
	if part.ErrorCode != 0 || part.Partition == 3 || len(x) == 2 || codec == 4 {}
	_ = Step{N: 1, Partition: 2}
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := codeLiterals(fset, f)
	var lits []string
	for _, g := range got {
		lits = append(lits, g[strings.LastIndex(g, " ")+1:])
	}
	want := "58 6 7 3 29 -1 30 31 53 45 6"
	if strings.Join(lits, " ") != want {
		t.Fatalf("found %q, want the literals %s", got, want)
	}
}

// codeLiterals lists the code numbers in f as "file:line: literal".
func codeLiterals(fset *token.FileSet, f *ast.File) []string {
	var out []string
	reportIf := func(e ast.Expr, keep func(string) bool) {
		if lit, ok := intLiteral(e); ok && keep(lit) {
			out = append(out, fmt.Sprintf("%s: %s", fset.Position(e.Pos()), lit))
		}
	}
	report := func(e ast.Expr) { reportIf(e, func(string) bool { return true }) }
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			switch n.Op {
			case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
				if codeLike(n.X) {
					report(n.Y)
				} else if codeLike(n.Y) {
					report(n.X)
				}
			}
		case *ast.SwitchStmt:
			if n.Tag != nil && codeLike(n.Tag) {
				for _, s := range n.Body.List {
					for _, e := range s.(*ast.CaseClause).List {
						report(e)
					}
				}
			}
		case *ast.AssignStmt:
			if len(n.Lhs) == len(n.Rhs) {
				for i, l := range n.Lhs {
					if codeLike(l) {
						report(n.Rhs[i])
					}
				}
			}
		case *ast.KeyValueExpr:
			if k, ok := n.Key.(*ast.Ident); ok && endsInCode(k.Name) {
				report(n.Value)
			}
		case *ast.ValueSpec:
			typed := isKafkaerrCode(n.Type)
			codeType := typeEndsInCode(n.Type)
			for i, name := range n.Names {
				if i >= len(n.Values) {
					continue
				}
				if typed || namesCode(name.Name) {
					report(n.Values[i])
				} else if codeType || strings.HasPrefix(strings.ToLower(name.Name), "err") {
					reportIf(n.Values[i], inCodeSpace)
				}
			}
		case *ast.CallExpr:
			if isKafkaerrCode(n.Fun) && len(n.Args) == 1 {
				report(n.Args[0])
			}
		}
		return true
	})
	return out
}

// codeLike reports a name ending in "code" (ErrorCode, Code, code), seen
// through parentheses and conversions.
func codeLike(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return codeLike(e.X)
	case *ast.CallExpr:
		return len(e.Args) == 1 && codeLike(e.Args[0])
	case *ast.Ident:
		return endsInCode(e.Name)
	case *ast.SelectorExpr:
		return endsInCode(e.Sel.Name)
	}
	return false
}

func endsInCode(name string) bool { return strings.HasSuffix(strings.ToLower(name), "code") }

// namesCode reports a constant or variable named for a code: ending in
// "code" or starting with it (codeSaslAuthenticationFailed), a codec aside.
func namesCode(name string) bool {
	l := strings.ToLower(name)
	return endsInCode(l) || strings.HasPrefix(l, "code") && !strings.HasPrefix(l, "codec")
}

// typeEndsInCode reports a type expression named ...Code (ErrorCode).
func typeEndsInCode(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return strings.HasSuffix(e.Name, "Code")
	case *ast.SelectorExpr:
		return strings.HasSuffix(e.Sel.Name, "Code")
	}
	return false
}

// inCodeSpace reports a literal among Kafka's codes (-1 up to the last in
// the table): a ...Code-typed or err-named constant outside it is another
// numbering (librdkafka's local codes, -199 to -137).
func inCodeSpace(lit string) bool {
	v, err := strconv.ParseInt(lit, 0, 64)
	return err == nil && v >= minCode && v < int64(minCode+len(table))
}

// isKafkaerrCode reports the type expression kafkaerr.Code.
func isKafkaerrCode(e ast.Expr) bool {
	s, ok := e.(*ast.SelectorExpr)
	if !ok || s.Sel.Name != "Code" {
		return false
	}
	x, ok := s.X.(*ast.Ident)
	return ok && x.Name == "kafkaerr"
}

// intLiteral returns a non-zero integer literal (possibly negated or
// converted) as written.
func intLiteral(e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return intLiteral(e.X)
	case *ast.UnaryExpr:
		if e.Op == token.SUB {
			if s, ok := intLiteral(e.X); ok {
				return "-" + s, true
			}
		}
	case *ast.CallExpr:
		if len(e.Args) == 1 {
			return intLiteral(e.Args[0])
		}
	case *ast.BasicLit:
		if e.Kind == token.INT && strings.Trim(e.Value, "0") != "" {
			return e.Value, true
		}
	}
	return "", false
}
