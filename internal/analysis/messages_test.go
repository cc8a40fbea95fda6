package analysis

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// Every template belongs to a live code, fits MaxMessageChars and takes
// as many arguments as it names.
func TestTemplates(t *testing.T) {
	for code, tpl := range Messages() {
		c, ok := LookupCode(code)
		if !ok || c.Retired {
			t.Errorf("%s: a template for a code the catalog does not hold live", code)
		}
		if n := utf8.RuneCountInString(tpl.Format); n > MaxMessageChars || strings.Contains(tpl.Format, "\n") {
			t.Errorf("%s: template of %d characters (at most %d, one line)", code, n, MaxMessageChars)
		}
		verbs := strings.Count(tpl.Format, "%") - 2*strings.Count(tpl.Format, "%%")
		if verbs != len(tpl.Args) {
			t.Errorf("%s: %d verbs in %q, %d arguments named", code, verbs, tpl.Format, len(tpl.Args))
		}
		for _, a := range tpl.Args {
			if a.Name == "" || (a.Type != Text && a.Type != Number) {
				t.Errorf("%s: argument %+v has no name or an unknown type", code, a)
			}
		}
	}
}

// Message fills the template and shows what does not fit: a missing, an
// extra or a mistyped argument, a code without a template.
func TestMessage(t *testing.T) {
	code := CodeIngressNoClass
	if got := Message(code, "ingressclass.kubernetes.io/is-default-class"); !strings.Contains(got, `is marked ingressclass.kubernetes.io/is-default-class: "true"`) || strings.Contains(got, "%!") {
		t.Errorf("filled: %s", got)
	}
	for name, got := range map[string]string{
		"missing":  Message(code),
		"extra":    Message(code, "a", "b"),
		"mistyped": Message(code, 3),
		"unknown":  Message(CodeRouteNoParents),
	} {
		if !strings.Contains(got, "%!") {
			t.Errorf("%s: %q does not show the mistake", name, got)
		}
	}
}

// No message literal in the source is longer than MaxMessageChars: the
// format of a Reportf, of a Finding's Message, or of what is assigned to
// one. What a finding means and how to fix it is its code's Description.
func TestNoLongMessageLiterals(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "testdata", ".git", "compat", "release", "e2e", "node_modules", "bin", "dist":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		checked++
		long := func(n ast.Node, e ast.Expr) {
			if s, ok := formatLiteral(e); ok && utf8.RuneCountInString(s) > MaxMessageChars {
				t.Errorf("%s: a message literal of %d characters (at most %d; the explanation belongs in the code's Description)",
					fset.Position(n.Pos()), utf8.RuneCountInString(s), MaxMessageChars)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.CallExpr:
				if sel, ok := x.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Reportf" && len(x.Args) >= 3 {
					long(x, x.Args[2])
				}
			case *ast.KeyValueExpr:
				if k, ok := x.Key.(*ast.Ident); ok && k.Name == "Message" {
					long(x, x.Value)
				}
			case *ast.AssignStmt:
				for i, l := range x.Lhs {
					if sel, ok := l.(*ast.SelectorExpr); ok && sel.Sel.Name == "Message" && i < len(x.Rhs) {
						long(x, x.Rhs[i])
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 300 {
		t.Fatalf("read only %d Go files under %s", checked, root)
	}
}

// formatLiteral is the text of a string literal (or a sum of them), or of
// the format of a fmt.Sprintf or fmt.Errorf call.
func formatLiteral(e ast.Expr) (string, bool) {
	switch x := e.(type) {
	case *ast.BasicLit:
		if x.Kind == token.STRING {
			s, err := strconv.Unquote(x.Value)
			return s, err == nil
		}
	case *ast.BinaryExpr:
		if x.Op == token.ADD {
			a, ok1 := formatLiteral(x.X)
			b, ok2 := formatLiteral(x.Y)
			return a + b, ok1 || ok2
		}
	case *ast.ParenExpr:
		return formatLiteral(x.X)
	case *ast.CallExpr:
		if sel, ok := x.Fun.(*ast.SelectorExpr); ok && (sel.Sel.Name == "Sprintf" || sel.Sel.Name == "Errorf") && len(x.Args) > 0 {
			return formatLiteral(x.Args[0])
		}
	}
	return "", false
}
