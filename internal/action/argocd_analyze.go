package action

import (
	"context"
	"fmt"

	"github.com/routeguard/routeguard/internal/argocd"
	"github.com/routeguard/routeguard/internal/notice"
)

// ArgoCDAnalyze builds every Application and analyzes the Applications of
// each destination cluster together (routeguard argocd analyze).
type ArgoCDAnalyze struct {
	ArgoCD   ArgoCDOptions
	Analysis AnalysisOptions
	// Output is the report format; Color colours text.
	Output string
	Color  bool
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
	return res, nil
}
