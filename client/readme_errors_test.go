package client_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Every exported Err variable of package client has a row in the README's
// error table saying whether the record may be in the log.
func TestReadmeErrorTableCoversEveryError(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	require.NoError(t, err)
	var names []string
	for _, pkg := range pkgs {
		for _, f := range pkg.Files {
			for _, d := range f.Decls {
				gd, ok := d.(*ast.GenDecl)
				if !ok || gd.Tok != token.VAR {
					continue
				}
				for _, spec := range gd.Specs {
					for _, n := range spec.(*ast.ValueSpec).Names {
						if strings.HasPrefix(n.Name, "Err") && n.IsExported() {
							names = append(names, n.Name)
						}
					}
				}
			}
		}
	}
	require.NotEmpty(t, names)
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	for _, name := range names {
		row := regexp.MustCompile("(?m)^\\| [^\\n]*`" + name + "`[^\\n]*\\|[^\\n]*\\| [^|\\n]+ \\|$")
		require.Regexp(t, row, string(readme), "README's error table has a row for %s with the may-be-in-the-log column", name)
	}
}
