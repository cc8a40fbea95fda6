package report

import (
	"io"

	"github.com/routeguard/routeguard/internal/analysis"
)

// JSONSchemaVersion is the version of the json format's schema. It changes
// only when a field changes meaning or goes away; new fields may be added
// within a version. docs/analysis.md documents the schema.
const JSONSchemaVersion = 1

// JSONReport is the document the json format writes.
type JSONReport struct {
	SchemaVersion int           `json:"schemaVersion"`
	Findings      []JSONFinding `json:"findings"`
	Summary       Summary       `json:"summary"`
}

// JSONFinding is one finding in the json format.
type JSONFinding struct {
	Code     string             `json:"code"`
	Severity string             `json:"severity"`
	Message  string             `json:"message"`
	Object   analysis.ObjectRef `json:"object"`
	File     string             `json:"file"`
	Line     int                `json:"line"`
	Analyzer string             `json:"analyzer"`
	// Application is the Argo CD Application ("namespace/name") that
	// renders the object (argocd analyze); absent otherwise.
	Application string `json:"application,omitempty"`
	// Help is what the code means and how to fix it, the catalog's
	// description (as `routeguard codes` and SARIF's rules say it);
	// absent for codes not in the catalog (Istio's, plugins').
	Help string `json:"help,omitempty"`
}

type jsonWriter struct {
	w   io.Writer
	doc JSONReport
}

var _ = format(Format{Name: "json", Syntax: SyntaxJSON, New: newJSON,
	Doc: "routeguard's stable JSON schema (`schemaVersion: 1`), for scripts"})

func newJSON(w io.Writer, _ Options) Writer {
	return &jsonWriter{w: w, doc: JSONReport{SchemaVersion: JSONSchemaVersion, Findings: []JSONFinding{}}}
}

func (j *jsonWriter) Write(f analysis.Finding) error {
	j.doc.Findings = append(j.doc.Findings, JSONFinding{Code: f.Code, Severity: f.Severity.String(), Message: f.Message,
		Object: f.Object, File: f.Source.File, Line: f.Source.Line, Analyzer: f.Analyzer, Application: f.App, Help: help(f.Code)})
	j.doc.Summary.add(f)
	return nil
}

// help is the catalog's description of code: what it means and how to fix
// it ("" for a code the catalog does not hold).
func help(code string) string {
	if c, ok := analysis.LookupCode(code); ok {
		return c.Description
	}
	return ""
}

func (j *jsonWriter) Flush() error {
	return writeJSON(j.w, j.doc)
}
