package cli

import (
	"bytes"
	"cmp"
	"context"

	"github.com/spf13/cobra"

	argocmp "github.com/routeguard/routeguard/internal/cmp"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/pipeline"
)

func newCMPGenerateCommand(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "generate",
		Short: "Render and analyze the app; print the manifests, or fail with a report Argo CD shows as the app's ComparisonError",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			return runBuffered(ctx, env, "cmp generate", func() cmpOutcome { return cmpGenerate(ctx, env) })
		},
	}
}

// cmpGenerate renders, substitutes, transforms and analyzes the working
// directory as the Application asks, and prints only manifests; on findings
// at the failing severity it prints only the report on stderr (Argo CD
// shows it as the ComparisonError).
func cmpGenerate(ctx context.Context, env *Env) cmpOutcome {
	req, b, s, err := cmpRequest(env)
	if err != nil {
		return cmpFail(ExitError, "%v", err)
	}
	req.Analyze = true
	viewNotices := argocdClusterView(ctx, env, &req, b) // argocd_cmp.go
	out, err := pipeline.Run(ctx, req)
	if err != nil {
		return cmpFail(ExitError, "%v", err)
	}
	out.Notices = append(viewNotices, out.Notices...)
	label := cmp.Or(b.SourcePath, ".")
	if out.Path != "" && out.Path != "." {
		label = out.Path
	}
	var notes bytes.Buffer // plugin notes and failures, for stderr
	pipeline.WriteNotices(&notes, out.Notices)
	if out.PluginFailed {
		// A plugin failed and plugins.onError says fail: no manifests.
		return cmpOutcome{stderr: notes.Bytes(), code: ExitError}
	}
	var stderr bytes.Buffer
	if out.Failed {
		// The report comes first: Argo CD shows stderr as the ComparisonError.
		argocmp.WriteReport(&stderr, out.Findings, label, string(out.Tool), argocmp.ReportLimit)
		stderr.Write(notes.Bytes())
		return cmpOutcome{stderr: stderr.Bytes(), code: ExitFindings}
	}
	stderr.Write(notes.Bytes())
	objs := out.Set.Objects()
	if s.Report == argocmp.ReportConfigMap {
		rep, err := argocmp.ReportObject(b, label, string(out.Tool), out.Findings)
		if err != nil {
			return cmpFail(ExitError, "building the report object: %v", err)
		}
		objs = append(objs[:len(objs):len(objs)], rep)
	}
	if len(out.Findings) > 0 {
		// Logged by argocd-cmp-server; the report object shows it in the UI.
		argocmp.WriteReport(&stderr, out.Findings, label, string(out.Tool), argocmp.ReportLimit)
	}
	var buf bytes.Buffer
	if err := manifest.WriteYAML(&buf, objs); err != nil {
		return cmpFail(ExitError, "%v", err)
	}
	return cmpOutcome{stdout: buf.Bytes(), stderr: stderr.Bytes(), code: ExitOK}
}
