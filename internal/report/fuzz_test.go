package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
)

// FuzzWriters: findings carrying any text (names and messages come from
// repositories) are written by every format (All, the list -o, --report and
// the docs read) as well-formed output of its Syntax: JSON that parses, XML
// that parses, text without raw control characters, workflow commands one
// line each; and no format writes a raw escape or NUL.
func FuzzWriters(f *testing.F) {
	f.Add("web", "shop", "apps/route.yaml", "backendRef names Service shop/web", 3)
	f.Add("a\x1b[2J", "\r", "dir/\xff.yaml", "<]]>&\"'\u2028", 0)
	f.Fuzz(func(t *testing.T, name, ns, file, msg string, line int) {
		fs := []analysis.Finding{{Code: "RG1101", Severity: analysis.SeverityError, Message: msg,
			Object: analysis.ObjectRef{Kind: "HTTPRoute", Namespace: ns, Name: name},
			Source: manifest.Source{File: file, Line: line}, Analyzer: "fuzz"}}
		for _, fm := range All() {
			format := fm.Name
			var buf bytes.Buffer
			w, err := New(format, &buf, Options{Version: "fuzz"})
			if err != nil {
				t.Fatal(err)
			}
			if err := WriteAll(w, fs); err != nil {
				t.Fatalf("%s: %v", format, err)
			}
			out := buf.Bytes()
			if bytes.ContainsAny(out, "\x1b\x00") {
				t.Fatalf("%s: a raw escape or NUL: %q", format, out)
			}
			switch fm.Syntax {
			case SyntaxJSON:
				if !json.Valid(out) {
					t.Fatalf("%s: not valid JSON: %q", format, out)
				}
			case SyntaxXML:
				d := xml.NewDecoder(bytes.NewReader(out))
				for {
					if _, err := d.Token(); err == io.EOF {
						break
					} else if err != nil {
						t.Fatalf("%s: not well-formed XML (%v): %q", format, err, out)
					}
				}
			case SyntaxWorkflowCommands:
				// One command per finding: nothing the repository wrote
				// starts a line of its own.
				lines := bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n"))
				if len(lines) != 1 || !bytes.HasPrefix(lines[0], []byte("::error ")) || bytes.ContainsAny(out, "\x1b\r\x00") {
					t.Fatalf("%s: %q", format, out)
				}
			case SyntaxText:
				if bytes.ContainsAny(out, "\x1b\r\x00") {
					t.Fatalf("%s: raw control characters: %q", format, out)
				}
				for _, l := range strings.Split(string(out), "\n") {
					if strings.HasPrefix(strings.TrimSpace(l), "::") || strings.Contains(l, "##[") {
						t.Fatalf("%s: line %q is a workflow command", format, l)
					}
				}
			case SyntaxMarkdown:
				if len(out) > MaxMarkdown || bytes.ContainsAny(out, "<>@`\x1b\r") && !onlyOurMarkup(out) {
					t.Fatalf("%s: %d bytes or raw markup: %q", format, len(out), out)
				}
			default:
				t.Fatalf("%s: syntax %q has no check here", format, fm.Syntax)
			}
		}
	})
}

// onlyOurMarkup reports whether the markup characters of a markdown report
// are all its own (the hints in backticks).
func onlyOurMarkup(out []byte) bool {
	s := strings.ReplaceAll(string(out), "`-o json`", "")
	s = strings.ReplaceAll(s, "`-o sarif`", "")
	return !strings.ContainsAny(s, "<>@`\x1b\r")
}
