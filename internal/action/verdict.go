package action

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/report"
	"github.com/routeguard/routeguard/internal/version"
)

// Verdict is what the analysis of one run says: its findings and whether
// they fail the run. internal/cli turns it into the exit code.
type Verdict struct {
	Findings []analysis.Finding
	// FailOn is the effective threshold (of the last outcome added).
	FailOn analysis.FailOn
	// Failed: a finding reached FailOn.
	Failed bool
	// PluginFailed: a plugin failed and plugins.onError says fail; the
	// findings of every other analyzer are still there.
	PluginFailed bool
}

// add takes in one outcome of the pipeline.
func (v *Verdict) add(o *pipeline.Outcome) {
	v.Findings = append(v.Findings, o.Findings...)
	v.FailOn = o.FailOn
	v.Failed = v.Failed || o.Failed
	v.PluginFailed = v.PluginFailed || o.PluginFailed
}

// reportWriter is a report in format, buffered: nothing is printed before
// it is complete.
type reportWriter struct {
	report.Writer
	buf *bytes.Buffer
}

// newReport returns the writer of format (report.Formats()); color is for
// the text format on a terminal.
func newReport(format string, color bool) (*reportWriter, error) {
	buf := &bytes.Buffer{}
	w, err := report.New(format, buf, report.Options{Color: color && format == "text", Version: version.Get().Version})
	if err != nil {
		return nil, err
	}
	return &reportWriter{Writer: w, buf: buf}, nil
}

// all writes every finding and returns the report.
func (w *reportWriter) all(findings []analysis.Finding) ([]byte, error) {
	if err := report.WriteAll(w, findings); err != nil {
		return nil, fmt.Errorf("writing report: %w", err)
	}
	return w.buf.Bytes(), nil
}

// renderReports writes findings into every target of --report (each into
// its own buffer: nothing is written before all are complete); color is
// for a text report on standard output of a terminal. The caller writes
// the files (report.WriteFiles) and prints the one for standard output.
func renderReports(targets []report.Target, findings []analysis.Finding, color bool) ([]report.Rendered, error) {
	if len(targets) == 0 {
		return nil, nil
	}
	return report.RenderAll(targets, findings, report.Options{Color: color, Version: version.Get().Version})
}

// ManifestFormats are the output formats of actions that print manifests.
var ManifestFormats = []string{"yaml", "json"}

// checkManifestFormat says whether format is one of ManifestFormats.
func checkManifestFormat(format string) error {
	switch format {
	case "yaml", "json":
		return nil
	}
	return fmt.Errorf("--output must be %s, got %q", strings.Join(ManifestFormats, " or "), format)
}

// encodeManifests encodes objects in format ("yaml" or "json").
func encodeManifests(format string, objs []*manifest.Object) ([]byte, error) {
	var buf bytes.Buffer
	var err error
	switch format {
	case "json":
		err = manifest.WriteJSON(&buf, objs)
	case "yaml":
		err = manifest.WriteYAML(&buf, objs)
	default:
		err = checkManifestFormat(format)
	}
	return buf.Bytes(), err
}
