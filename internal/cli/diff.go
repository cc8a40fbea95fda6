package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/routediff"
	"github.com/routeguard/routeguard/internal/routemap"
)

var diffFormats = []string{"text", "markdown", "json"}

func newDiffCommand(env *Env) *cobra.Command {
	var rf renderFlags
	var af analysisFlags
	var base, head, output, svg string
	var failOnNew analysis.FailOn
	cmd := &cobra.Command{
		Use:   "diff [PATH...]",
		Short: "Compare the traffic routing of two revisions of a repository (pull request review)",
		Long: `Renders each PATH (default .) at two revisions like 'routeguard analyze' and
compares them at the routing level: route entries (parent, host, match ->
backends with weights) added, removed and changed; route attachments;
listeners, Ingress classes and Istio gateways; TLS hosts and certificates;
ReferenceGrants; findings introduced and fixed (matched by code and object);
other objects changed, counted by kind.

Revisions are read from git objects (go-git; no git binary, no hooks, no
filters) into a private temporary directory under $TMPDIR. --head defaults
to the work tree as it is (uncommitted changes included); --base defaults to
the merge base of HEAD and the default branch (origin/HEAD, else
origin/main, origin/master, main, master), else HEAD.

Output: text, markdown (a pull request comment, under GitHub's 65536
character limit, with a Mermaid route map of the change) or json. --svg
also draws the route map of the change as SVG.

Exit codes: 0 no routing change, 1 routing changed (with --fail-on-new:
1 only when a finding introduced by the change reaches that severity),
2 error.`,
		Example: "  routeguard diff --base origin/main apps/shop\n  routeguard diff --base main --head feature -o markdown --fail-on-new error .",
		RunE: func(cmd *cobra.Command, args []string) error {
			if !slices.Contains(diffFormats, output) {
				return fail("--output must be %s, got %q", strings.Join(diffFormats, ", "), output)
			}
			if slices.Contains(args, "-") {
				return fail("diff reads revisions from git, not stdin; name app paths")
			}
			wd := "."
			if env.Getwd != nil {
				if d, err := env.Getwd(); err == nil {
					wd = d
				}
			}
			res, err := routediff.Run(cmd.Context(), routediff.Options{
				Dir: wd, Base: base, Head: head, Paths: args, DefaultNamespace: rf.namespace, ConfigFile: af.config,
				Analyze: func(ctx context.Context, path, root string, analyze bool) (*pipeline.Outcome, error) {
					return diffAnalyze(ctx, env, &rf, &af, path, root, analyze)
				},
			})
			if err != nil {
				return fail("%v", err)
			}
			pipeline.WriteNotices(env.Stderr, res.Notices)
			var buf bytes.Buffer
			switch output {
			case "json":
				err = res.WriteJSON(&buf)
			case "markdown":
				err = res.WriteMarkdown(&buf)
			default:
				err = res.WriteText(&buf)
			}
			if err != nil {
				return fail("writing report: %v", err)
			}
			if svg != "" {
				var sb bytes.Buffer
				title := fmt.Sprintf("routeguard diff: %s → %s", res.Base.Name, res.Head.Name)
				if err := routemap.SVG(&sb, routemap.NewGraph(res.BaseMap, res.HeadMap).Changed(), title); err != nil {
					return fail("--svg: %v", err)
				}
				if err := os.WriteFile(svg, sb.Bytes(), 0o644); err != nil {
					return fail("--svg: %v", err)
				}
			}
			if err := writeStdout(env, buf.Bytes()); err != nil {
				return err
			}
			return exitWith(diffExit(res, failOnNew))
		},
	}
	rf.register(cmd.Flags())
	af.register(cmd)
	// The repository root is git's top level; the analysis threshold is
	// --fail-on-new's business here.
	_ = cmd.Flags().MarkHidden("repo-root")
	_ = cmd.Flags().MarkHidden("fail-on")
	cmd.Flags().StringVar(&base, "base", "", "base revision (default: the merge base of HEAD and the default branch, else HEAD)")
	cmd.Flags().StringVar(&head, "head", "", "head revision (default: the work tree, uncommitted changes included)")
	cmd.Flags().StringVarP(&output, "output", "o", "text", "report format: "+strings.Join(diffFormats, ", "))
	cmd.Flags().StringVar(&svg, "svg", "", "also write the route map of the change as SVG to this file")
	cmd.Flags().Var(&failOnFlag{&failOnNew}, "fail-on-new", "exit 1 only when a finding introduced by the change reaches this severity ("+strings.Join(analysis.FailOnNames, ", ")+"); routing changes alone then exit 0")
	return cmd
}

// diffExit is diff's exit code: routing changed, or with --fail-on-new an
// introduced finding at or above that severity.
func diffExit(res *routediff.Result, failOnNew analysis.FailOn) int {
	if failOnNew != analysis.FailOnUnset {
		var worst analysis.Severity
		for _, f := range res.Intro {
			worst = max(worst, f.Severity)
		}
		if failOnNew.Fails(worst) {
			return ExitFindings
		}
		return ExitOK
	}
	if res.RoutingChanged() {
		return ExitFindings
	}
	return ExitOK
}

// diffAnalyze takes one app of one revision through the pipeline as
// analyze does, confined to that revision's root.
func diffAnalyze(ctx context.Context, env *Env, rf *renderFlags, af *analysisFlags, path, root string, analyze bool) (*pipeline.Outcome, error) {
	opts, err := rf.options(env, path)
	if err != nil {
		return nil, err
	}
	opts.RepoRoot = root
	host, err := pluginHost(env, af.plugins)
	if err != nil {
		return nil, err
	}
	cluster, err := clusterOf(env, rf.kubeVersion, af.cluster)
	if err != nil {
		return nil, err
	}
	cluster.SubstitutedOnApply = true
	return pipeline.Run(ctx, pipeline.Request{Render: &opts, Cluster: cluster, ConfigFile: af.config,
		Analyze: analyze, DefaultNamespace: opts.Helm.Namespace, Plugins: host})
}
