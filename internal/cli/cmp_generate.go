package cli

import (
	"bytes"
	"context"

	"github.com/spf13/cobra"

	"github.com/routeguard/routeguard/internal/action"
	"github.com/routeguard/routeguard/internal/notice"
	"github.com/routeguard/routeguard/internal/profile"
)

func newCMPGenerateCommand(env *Env) *cobra.Command {
	var g action.CMPGenerate
	cmd := &cobra.Command{
		Use:   "generate",
		Short: "Render and analyze the app; print the manifests, or fail with a report Argo CD shows as the app's ComparisonError",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			return runBuffered(ctx, env, "cmp generate", func() cmpOutcome { return cmpGenerate(ctx, env, g) })
		},
	}
	registerCache(cmd.Flags(), &g.Cache, "$"+action.CacheDirEnv+" (the sidecar's emptyDir), else none; never inside the repository")
	cmd.Flags().StringVar(&g.Profile, "profile", "", "write a CPU and a heap profile of the generation into this directory (cpu.pprof, heap.pprof, memstats.txt; default: $"+profile.Env+", else none)")
	return cmd
}

// cmpGenerate prints only manifests; on findings at the failing severity
// it prints only the report on stderr (Argo CD shows it as the
// ComparisonError), before the notices.
func cmpGenerate(ctx context.Context, env *Env, g action.CMPGenerate) cmpOutcome {
	res, err := g.Run(ctx, env.action())
	if err != nil {
		return cmpFail(ExitError, "%v", err)
	}
	var notes bytes.Buffer // plugin notes and failures, for stderr
	notice.Write(&notes, res.Notices)
	if res.PluginFailed {
		// A plugin failed and plugins.onError says fail: no manifests.
		return cmpOutcome{stderr: notes.Bytes(), code: ExitError}
	}
	if res.Failed {
		return cmpOutcome{stderr: append(res.Report, notes.Bytes()...), code: ExitFindings}
	}
	// The report is logged by argocd-cmp-server; the report object shows
	// it in the UI.
	return cmpOutcome{stdout: res.Manifests, stderr: append(notes.Bytes(), res.Report...), code: ExitOK}
}
