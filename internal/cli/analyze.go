package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/routeguard/routeguard/internal/action"
	"github.com/routeguard/routeguard/internal/notice"
	"github.com/routeguard/routeguard/internal/profile"
	"github.com/routeguard/routeguard/internal/report"
)

func newAnalyzeCommand(env *Env) *cobra.Command {
	a := &action.Analyze{Color: env.IsTerminal}
	var reports reportFlags
	cmd := &cobra.Command{
		Use:   "analyze [PATH...]",
		Short: "Render apps and report what would break their traffic routing",
		Long: `Renders each PATH like 'routeguard render' (or reads a YAML/JSON stream on
stdin with '-') and runs every analyzer. Settings come from .routeguard.yaml in
the app directory or the repository root (or --config).

Prints the report on stdout; exit 1 when a finding reaches the failing severity.`,
		Example: "  routeguard analyze apps/routing/gateways\n  routeguard render apps/shop | routeguard analyze -o sarif -",
		RunE: func(cmd *cobra.Command, args []string) error {
			targets, err := reports.targets("output", explicit(cmd, "output", a.Output))
			if err != nil {
				return err
			}
			a.Reports = targets
			res, err := a.Run(cmd.Context(), env.action(), args)
			if res != nil {
				notice.Write(env.Stderr, res.Notices)
			}
			if err != nil {
				return fail("%v", err)
			}
			stdout, err := writeReports(env, res.Reports, !res.PluginFailed)
			if err != nil {
				return err
			}
			if stdout == nil {
				stdout = res.Report
			}
			if err := writeStdout(env, stdout); err != nil {
				return err
			}
			return exitWith(verdictCode(res.Verdict))
		},
	}
	registerRender(cmd.Flags(), &a.Render)
	registerAnalysis(cmd, &a.Analysis)
	cmd.Flags().StringVarP(&a.Output, "output", "o", "text", "report format: "+strings.Join(report.Formats(), ", "))
	reports.register(cmd, "-o's report")
	registerCache(cmd.Flags(), &a.Cache, "$"+action.CacheDirEnv+", else routeguard/validation in the user cache directory; never inside the repository")
	cmd.Flags().StringVar(&a.Profile, "profile", "", "write a CPU and a heap profile of the run into this directory (cpu.pprof, heap.pprof, memstats.txt; default: $"+profile.Env+", else none)")
	return cmd
}
