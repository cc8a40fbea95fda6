package argocdcmp

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/report"
)

// Labels and annotations of the report object.
const (
	ReportNamePrefix      = "routeguard-report"
	AnnotationSummary     = "routeguard.io/summary"
	AnnotationErrors      = "routeguard.io/errors"
	AnnotationWarnings    = "routeguard.io/warnings"
	AnnotationInfos       = "routeguard.io/infos"
	reportObjectFileLabel = "routeguard report"
)

// ReportObjectLimit is how many findings the report object lists.
const ReportObjectLimit = 1000

var dnsUnsafe = regexp.MustCompile(`[^a-z0-9-]+`)

// ReportName is the report ConfigMap's name for an app:
// routeguard-report-<app>, so two apps syncing into one namespace never
// share (and fight over) one report.
func ReportName(appName string) string {
	n := strings.Trim(dnsUnsafe.ReplaceAllString(strings.ToLower(appName), "-"), "-")
	if n == "" {
		return ReportNamePrefix
	}
	name := ReportNamePrefix + "-" + n
	if len(name) > 253 {
		name = strings.TrimRight(name[:253], "-")
	}
	return name
}

// ReportObject builds the opt-in report ConfigMap rendered into the app on
// success, so that warnings (which do not fail the generation) show up in
// the app's resource tree. Its content depends only on the findings, never
// on the revision or the time, so it changes the app's sync status only
// when the findings change.
func ReportObject(b *Build, appPath, tool string, fs []analysis.Finding) (*manifest.Object, error) {
	s := report.Summarize(fs)
	all := ordered(fs)
	for _, f := range fs {
		if f.Severity != analysis.SeverityError && f.Severity != analysis.SeverityWarning {
			all = append(all, f)
		}
	}
	// A ConfigMap holds at most 1 MiB: list at most ReportObjectLimit
	// findings (each line is short; messages are one sentence or two).
	var lines strings.Builder
	for i, f := range all {
		if i == ReportObjectLimit {
			fmt.Fprintf(&lines, "... and %d more\n", len(all)-i)
			break
		}
		lines.WriteString(FindingLine(f) + "\n")
	}
	summary := fmt.Sprintf("%s in %s (%s)", summaryLine(s), appPath, tool)
	md := map[string]any{
		"name": ReportName(b.AppName),
		"labels": map[string]any{
			"app.kubernetes.io/name":       ReportNamePrefix,
			"app.kubernetes.io/managed-by": "routeguard",
		},
		"annotations": map[string]any{
			AnnotationSummary:  summary,
			AnnotationErrors:   fmt.Sprint(s.Errors),
			AnnotationWarnings: fmt.Sprint(s.Warnings),
			AnnotationInfos:    fmt.Sprint(s.Infos),
		},
	}
	if b.AppNamespace != "" {
		md["namespace"] = b.AppNamespace
	}
	body := map[string]any{
		"apiVersion": "v1",
		"kind":       "ConfigMap",
		"metadata":   md,
		"data": map[string]any{
			"summary":  summary,
			"findings": lines.String(),
		},
	}
	return manifest.FromBody(body, manifest.Source{File: reportObjectFileLabel})
}
