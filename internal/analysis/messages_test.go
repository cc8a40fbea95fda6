package analysis

import (
	"fmt"
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

// Every template belongs to a live code, and is one a finding can show:
// its verbs take its arguments in number and kind, it fits
// MaxMessageChars on one line. Message writes a mismatch into the text
// (fmt's %!), which a code no fixture reaches would show to users; this
// test holds every catalog template, reached or not.
func TestTemplates(t *testing.T) {
	n := 0
	for _, c := range Catalog() {
		if c.Message.Format == "" {
			continue
		}
		n++
		if c.Retired {
			t.Errorf("%s: a template for a retired code", c.ID)
		}
		for _, p := range templateProblems(c.Message) {
			t.Errorf("%s: %s", c.ID, p)
		}
	}
	if n != len(Messages()) {
		t.Errorf("Messages() holds %d templates, the catalog %d", len(Messages()), n)
	}
}

// Every live code has a template but these, whose findings still carry
// messages written where they are reported (a build's own error text, the
// API server's validation message). A code given a template leaves the
// list; a new code comes with a template.
var withoutTemplate = []string{
	CodeRendersNothing, CodeAppNotRendered, CodeFluxBuildFailed, CodeHelmReleaseFailed,
	CodeDependsOnMissing, CodeNotBuilt, CodeResourceSetFailed, CodeSchemaViolation,
	CodeRuleViolation, CodeVersionDeprecated, CodeFieldUnknown, CodeBuiltinInvalid,
	CodeExperimentalChannel,
}

func TestTemplateCoverage(t *testing.T) {
	without := map[string]bool{}
	for _, id := range withoutTemplate {
		without[id] = true
	}
	for _, c := range Catalog() {
		has := c.Message.Format != ""
		switch {
		case c.Retired:
		case has && without[c.ID]:
			t.Errorf("%s has a template: take it off withoutTemplate", c.ID)
		case !has && !without[c.ID]:
			t.Errorf("%s (%s) has no message template", c.ID, c.Title)
		}
	}
}

// The check refuses each kind of wrong template, and takes right ones.
func TestTemplateProblems(t *testing.T) {
	for name, tpl := range map[string]Template{
		"too few args":  {"%s names %s", text("a")},
		"too many args": {"%s names", text("a", "b")},
		"int for %s":    {"%s has %s", []Arg{{"a", Text}, {"n", Number}}},
		"string for %d": {"%s has %d", text("a", "n")},
		"string for %q": {"%q", []Arg{{"n", Number}}},
		"too long":      {strings.Repeat("x", MaxMessageChars+1), nil},
		"two lines":     {"a\nb", nil},
		"trailing %":    {"100%", nil},
		"star width":    {"%*d", []Arg{{"w", Number}, {"n", Number}}},
		"indexed arg":   {"%[1]s", text("a")},
		"unknown verb":  {"%z", text("a")},
		"no name":       {"%s", text("")},
		"unknown type":  {"%v", []Arg{{"a", "float64"}}},
	} {
		if len(templateProblems(tpl)) == 0 {
			t.Errorf("%s: %q %v passes", name, tpl.Format, tpl.Args)
		}
	}
	for _, tpl := range []Template{
		{"%s has %d value(s), 100%% %q; %v %v", []Arg{{"a", Text}, {"n", Number}, {"b", Text}, {"c", Text}, {"m", Number}}},
		{strings.Repeat("x", MaxMessageChars), nil},
		{"%-8s|%5d|%.3s", []Arg{{"a", Text}, {"n", Number}, {"b", Text}}},
	} {
		if p := templateProblems(tpl); len(p) > 0 {
			t.Errorf("%q: %v", tpl.Format, p)
		}
	}
}

// templateProblems says what is wrong with tpl: a verb for no argument or
// of the wrong kind (Text takes %s, %q, %v; Number %d, %v), an argument
// for no verb, a verb routeguard's templates do not use (width or
// precision from an argument, explicit indexes), a name missing, a format
// too long or on more than one line. As a second guard it fills the
// template with a value of each argument's type and refuses any %! fmt
// writes.
func templateProblems(tpl Template) []string {
	var out []string
	if n := utf8.RuneCountInString(tpl.Format); n > MaxMessageChars {
		out = append(out, fmt.Sprintf("format of %d characters (at most %d)", n, MaxMessageChars))
	}
	if strings.ContainsAny(tpl.Format, "\n\r") {
		out = append(out, "format on more than one line")
	}
	verbs, err := formatVerbs(tpl.Format)
	if err != nil {
		out = append(out, err.Error())
	}
	if len(verbs) != len(tpl.Args) {
		out = append(out, fmt.Sprintf("%d verbs in %q, %d arguments", len(verbs), tpl.Format, len(tpl.Args)))
	}
	sample := make([]any, len(tpl.Args))
	for i, a := range tpl.Args {
		if a.Name == "" {
			out = append(out, fmt.Sprintf("argument %d has no name", i+1))
		}
		var ok string
		switch a.Type {
		case Text:
			ok, sample[i] = "sqv", "x"
		case Number:
			ok, sample[i] = "dv", 1
		default:
			out = append(out, fmt.Sprintf("argument %s has type %q (not Text or Number)", a.Name, a.Type))
			continue
		}
		if i < len(verbs) && !strings.ContainsRune(ok, verbs[i]) {
			out = append(out, fmt.Sprintf("verb %%%c for %s argument %s", verbs[i], a.Type, a.Name))
		}
	}
	if s := fmt.Sprintf(tpl.Format, sample...); strings.Contains(s, "%!") {
		out = append(out, fmt.Sprintf("fmt cannot fill it: %s", s))
	}
	return out
}

// formatVerbs lists the verbs of a fmt format in order (%% is none).
func formatVerbs(format string) ([]rune, error) {
	var verbs []rune
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		for i < len(format) && strings.IndexByte("+-# 0123456789.", format[i]) >= 0 {
			i++
		}
		if i >= len(format) {
			return verbs, fmt.Errorf("%q ends in a verb without a letter", format)
		}
		switch r := rune(format[i]); {
		case r == '%':
		case r == '*' || r == '[':
			return verbs, fmt.Errorf("%q takes a width, precision or index from its arguments", format)
		case strings.ContainsRune("sqvd", r):
			verbs = append(verbs, r)
		default:
			return verbs, fmt.Errorf("%q uses verb %%%c (templates use %%s, %%q, %%v, %%d)", format, r)
		}
	}
	return verbs, nil
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
// format of a Finding's Message, or of what is assigned to
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

// No finding's Message is set from Message(...) in the source: a finding
// made from its code's template is made with ReportCode or Finding.Fill,
// which keep the arguments (Finding.Args) that the report fingerprints
// hash; a Message call there would drop them, and rewording the template
// would reopen the finding's alerts.
func TestFindingsKeepTheirArguments(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	checked := 0
	isMessageCall := func(e ast.Expr) bool {
		c, ok := e.(*ast.CallExpr)
		if !ok {
			return false
		}
		switch f := c.Fun.(type) {
		case *ast.Ident:
			return f.Name == "Message"
		case *ast.SelectorExpr:
			x, ok := f.X.(*ast.Ident)
			return ok && x.Name == "analysis" && f.Sel.Name == "Message"
		}
		return false
	}
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
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.FuncDecl:
				return x.Name.Name != "Fill" || x.Recv == nil // Fill is where it belongs
			case *ast.KeyValueExpr:
				if k, ok := x.Key.(*ast.Ident); ok && k.Name == "Message" && isMessageCall(x.Value) {
					t.Errorf("%s: Message: Message(...) drops the arguments; use Finding{...}.Fill(args...)", fset.Position(x.Pos()))
				}
			case *ast.AssignStmt:
				for i, l := range x.Lhs {
					if sel, ok := l.(*ast.SelectorExpr); ok && sel.Sel.Name == "Message" && i < len(x.Rhs) && isMessageCall(x.Rhs[i]) {
						t.Errorf("%s: .Message = Message(...) drops the arguments; use f = f.Fill(args...)", fset.Position(x.Pos()))
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
