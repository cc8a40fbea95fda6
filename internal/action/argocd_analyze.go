package action

import (
	"context"
	"fmt"

	"github.com/routeguard/routeguard/internal/argocd"
	"github.com/routeguard/routeguard/internal/notice"
	"github.com/routeguard/routeguard/internal/report"
)

// ArgoCDAnalyze builds every Application and analyzes the Applications of
// each destination cluster together (routeguard argocd analyze).
type ArgoCDAnalyze struct {
	ArgoCD   ArgoCDOptions
	Analysis AnalysisOptions
	// Output is the report format; Color colours text.
	Output string
	Color  bool
	// Reports are more reports of the same findings (--report).
	Reports []report.Target
}

// ArgoCDAnalyzeResult is the analysis of every cluster.
type ArgoCDAnalyzeResult struct {
	Verdict
	Build    *argocd.Result
	Outcomes []ClusterOutcome
	// Notices of the build, what it skipped and each cluster's analysis.
	Notices []notice.Notice
	// Summary says what was built and checked.
	Summary string
	Report  []byte
	// Reports are the findings in each of ArgoCDAnalyze.Reports.
	Reports []report.Rendered
}

// Run builds from paths (none: ".") and analyzes each cluster.
func (a *ArgoCDAnalyze) Run(ctx context.Context, env Env, paths []string) (*ArgoCDAnalyzeResult, error) {
	w, err := newReport(a.Output, a.Color)
	if err != nil {
		return nil, fmt.Errorf("--output: %w", err)
	}
	b, err := a.ArgoCD.build(ctx, env, paths)
	if err != nil {
		return nil, err
	}
	outcomes, err := a.ArgoCD.analyze(ctx, env, b, a.Analysis)
	if err != nil {
		return nil, err
	}
	res := &ArgoCDAnalyzeResult{Build: b, Outcomes: outcomes, Notices: buildNotices(b)}
	for _, o := range outcomes {
		res.Notices = append(res.Notices, o.Notices...)
		res.add(o.Outcome)
	}
	res.Summary = summary(b, outcomes)
	if res.Report, err = w.all(res.Findings); err != nil {
		return res, err
	}
	if res.Reports, err = renderReports(a.Reports, res.Findings, a.Color); err != nil {
		return res, err
	}
	return res, nil
}
