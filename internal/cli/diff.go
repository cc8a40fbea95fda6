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
	"github.com/routeguard/routeguard/internal/codeowners"
	"github.com/routeguard/routeguard/internal/confine"
	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/routediff"
	"github.com/routeguard/routeguard/internal/routemap"
)

var diffFormats = []string{"text", "markdown", "json"}

// diffLong is what every diff command says about revisions, output and
// exit codes.
const diffLong = `Revisions are read from git objects (go-git; no git binary, no hooks, no
filters) into a private temporary directory under $TMPDIR. --head defaults
to the work tree as it is (uncommitted changes included); --base defaults to
the merge base of HEAD and the default branch (origin/HEAD, else
origin/main, origin/master, main, master), else HEAD.

Output: text, markdown (a pull request comment, under GitHub's 65536
character limit, with a Mermaid route map of the change) or json. --svg
also draws the route map of the change as SVG.

Changes that cross a team boundary come first, under "Shared routing": a
route that attaches to a Gateway another Application, Kustomization or app
path renders, and a change to a Gateway that others' routes use, each with
both owners (and their Argo CD projects) and the CODEOWNERS entries
(GitHub or GitLab syntax) of the files involved.

Exit codes: 0 no routing change, 1 routing changed or not fully compared (a
part holding routing was not built at head) (with --fail-on-new:
1 only when a finding introduced by the change reaches that severity;
with --fail-on-shared-change: 1 also when shared routing changed),
2 error.`

// diffFlags are the flags of every diff command: the revisions and the
// report.
type diffFlags struct {
	base, head, output, svg string
	failOnNew               analysis.FailOn
	failOnShared            bool
	codeowners              string
}

func (d *diffFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&d.base, "base", "", "base revision (default: the merge base of HEAD and the default branch, else HEAD)")
	fs.StringVar(&d.head, "head", "", "head revision (default: the work tree, uncommitted changes included)")
	fs.StringVarP(&d.output, "output", "o", "text", "report format: "+strings.Join(diffFormats, ", "))
	fs.StringVar(&d.svg, "svg", "", "also write the route map of the change as SVG to this file")
	fs.BoolVar(&d.failOnShared, "fail-on-shared-change", false, "exit 1 when the change touches shared routing (a route onto another owner's Gateway, or a change to a Gateway others' routes use), whatever --fail-on-new says, so CI can require that review")
	fs.StringVar(&d.codeowners, "codeowners", "", "syntax of the CODEOWNERS file: github or gitlab (default: the host its location and [sections] say)")
	fs.Var(&failOnFlag{&d.failOnNew}, "fail-on-new", "exit 1 only when a finding introduced by the change reaches this severity ("+strings.Join(analysis.FailOnNames, ", ")+"); routing changes alone then exit 0")
}

// run compares the revisions with opts (Analyze or Build set by the
// caller) and writes the report.
func (d *diffFlags) run(cmd *cobra.Command, env *Env, args []string, opts routediff.Options) error {
	if !slices.Contains(diffFormats, d.output) {
		return fail("--output must be %s, got %q", strings.Join(diffFormats, ", "), d.output)
	}
	if slices.Contains(args, "-") {
		return fail("diff reads revisions from git, not stdin; name app paths")
	}
	opts.Dir, opts.Base, opts.Head, opts.Paths = workDir(env), d.base, d.head, args
	switch d.codeowners {
	case "", string(codeowners.GitHub), string(codeowners.GitLab):
		opts.CodeOwners = codeowners.Syntax(d.codeowners)
	default:
		return fail("--codeowners must be github or gitlab, got %q", d.codeowners)
	}
	res, err := routediff.Run(cmd.Context(), opts)
	if err != nil {
		return fail("%v", err)
	}
	pipeline.WriteNotices(env.Stderr, res.Notices)
	var buf bytes.Buffer
	switch d.output {
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
	if d.svg != "" {
		var sb bytes.Buffer
		title := fmt.Sprintf("routeguard diff: %s → %s", res.Base.Name, res.Head.Name)
		if err := routemap.SVG(&sb, routemap.NewGraph(res.BaseMap, res.HeadMap).Changed(), title); err != nil {
			return fail("--svg: %v", err)
		}
		if err := os.WriteFile(d.svg, sb.Bytes(), 0o644); err != nil {
			return fail("--svg: %v", err)
		}
	}
	if err := writeStdout(env, buf.Bytes()); err != nil {
		return err
	}
	if d.failOnShared && res.SharedChanged() {
		return exitWith(ExitFindings)
	}
	return exitWith(diffExit(res, d.failOnNew))
}

// workDir is the working directory ("." when it cannot be told).
func workDir(env *Env) string {
	if env.Getwd != nil {
		if dir, err := env.Getwd(); err == nil {
			return dir
		}
	}
	return "."
}

func newDiffCommand(env *Env) *cobra.Command {
	var rf renderFlags
	var af analysisFlags
	var d diffFlags
	cmd := &cobra.Command{
		Use:   "diff [PATH...]",
		Short: "Compare the traffic routing of two revisions of a repository (pull request review)",
		Long: `Renders each PATH (default .) at two revisions like 'routeguard analyze' and
compares them at the routing level: route entries (parent, host, match ->
backends with weights) added, removed and changed; route attachments;
listeners, Ingress classes and Istio gateways; TLS hosts and certificates;
ReferenceGrants; findings introduced and fixed (matched by code and object);
other objects changed, counted by kind.

Each path is rendered once at head, tracing every file, directory and
symbolic link its render reads wherever it lies (Kustomize bases and
components, Helm values files and file:// dependencies, .routeguard.yaml).
A path for which all of them are the same at base is not rendered or
analyzed again. Whole Flux trees and Argo CD repositories: 'routeguard flux
diff' and 'routeguard argocd diff'.

` + diffLong,
		Example: "  routeguard diff --base origin/main apps/shop\n  routeguard diff --base main --head feature -o markdown --fail-on-new error .",
		RunE: func(cmd *cobra.Command, args []string) error {
			return d.run(cmd, env, args, routediff.Options{DefaultNamespace: rf.namespace, ConfigFile: af.config,
				Analyze: func(ctx context.Context, path, root string, analyze bool, trace *confine.Trace) (*pipeline.Outcome, error) {
					return diffAnalyze(ctx, env, &rf, &af, path, root, analyze, trace)
				}})
		},
	}
	rf.register(cmd.Flags())
	af.register(cmd)
	// The repository root is git's top level; the analysis threshold is
	// --fail-on-new's business here.
	_ = cmd.Flags().MarkHidden("repo-root")
	_ = cmd.Flags().MarkHidden("fail-on")
	d.register(cmd)
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
	if res.RoutingChanged() || !res.RoutingComparedFully() {
		return ExitFindings
	}
	return ExitOK
}

// diffAnalyze takes one app of one revision through the pipeline as
// analyze does, confined to that revision's root.
func diffAnalyze(ctx context.Context, env *Env, rf *renderFlags, af *analysisFlags, path, root string, analyze bool, trace *confine.Trace) (*pipeline.Outcome, error) {
	opts, err := rf.options(env, path)
	if err != nil {
		return nil, err
	}
	opts.RepoRoot, opts.Trace = root, trace
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
