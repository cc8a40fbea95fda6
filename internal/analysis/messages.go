package analysis

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/routeguard/routeguard/internal/manifest"
)

// Template is the message of a catalog code: a short fmt format (at most
// MaxMessageChars characters) and the typed arguments its verbs take, in
// order. A finding says what is wrong with which names and values; why it
// matters and how to fix it are the code's Description, which the
// catalog, SARIF's rules and `routeguard codes` carry.
type Template struct {
	Format string
	Args   []Arg
}

// Arg is one argument of a template: its name (what it holds) and its
// type.
type Arg struct {
	Name string
	Type ArgType
}

// ArgType is the Go type an argument must have.
type ArgType string

// Argument types.
const (
	// Text is a string (a name, a value, a phrase).
	Text ArgType = "string"
	// Number is an int.
	Number ArgType = "int"
)

// MaxMessageChars bounds a template's format, and any message literal in
// the source (a test holds them to it).
const MaxMessageChars = 200

func text(names ...string) []Arg {
	out := make([]Arg, len(names))
	for i, n := range names {
		out[i] = Arg{Name: n, Type: Text}
	}
	return out
}

// Messages returns the message template of every code that has one.
func Messages() map[string]Template {
	out := make(map[string]Template, len(templates))
	for k, v := range templates {
		out[k] = v
	}
	return out
}

// Message is the message of a finding with code, its template filled with
// args. An argument missing, left over or of the wrong type shows in the
// text (fmt's %!s(MISSING), %!(EXTRA ...), and "%!(want int: name)"), which
// the analyzers' fixture tests refuse.
func Message(code string, args ...any) string {
	t, ok := templates[code]
	if !ok {
		return fmt.Sprintf("%%!(no message template for %s)", code)
	}
	var bad []string
	for i, a := range t.Args {
		if i >= len(args) {
			break
		}
		if k := reflect.TypeOf(args[i]); k == nil || k.String() != string(a.Type) {
			bad = append(bad, fmt.Sprintf("%%!(want %s: %s)", a.Type, a.Name))
		}
	}
	msg := fmt.Sprintf(t.Format, args...)
	if len(bad) > 0 {
		msg += " " + strings.Join(bad, " ")
	}
	return msg
}

// ReportCode reports a finding with code about o, at o's source, its
// message the code's template filled with args.
func (c *Context) ReportCode(o *manifest.Object, code string, args ...any) {
	c.Report(Finding{Code: code, Object: c.Ref(o), Source: o.Source}.Fill(args...))
}

// Fill returns f with its message made from its code's template filled
// with args (Message), and args kept in Args (a copy, never nil, so that
// a template without arguments still counts as one).
func (f Finding) Fill(args ...any) Finding {
	f.Message = Message(f.Code, args...)
	f.Args = append(make([]any, 0, len(args)), args...)
	return f
}
