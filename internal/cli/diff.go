package cli

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/routeguard/routeguard/internal/action"
	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/notice"
	"github.com/routeguard/routeguard/internal/profile"
	"github.com/routeguard/routeguard/internal/report"
	"github.com/routeguard/routeguard/internal/routediff"
	"github.com/routeguard/routeguard/internal/routemap"
	"github.com/routeguard/routeguard/internal/shard"
	"github.com/routeguard/routeguard/internal/version"
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

--diff=manifests reviews the manifests instead: for every app (Argo CD
Application, Flux Kustomization or HelmRelease, app path) whose rendered
objects changed, a unified diff per object (apiVersion, kind, namespace,
name), added and removed objects whole; --diff=both shows the routing
review and the manifest diff. The manifest diff leaves out the
helm.sh/chart and app.kubernetes.io/version labels, checksum/* annotations
(pod templates too), an Application's ignoreDifferences (jsonPointers; jq
expressions are not evaluated and a notice says so) and each
--ignore-pointer; every value of a Secret's data and stringData is
redacted as Argo CD redacts it (++++++++; a changed value gets more +).

Changes that cross a team boundary come first, under "Shared routing": a
route that attaches to a Gateway another Application, Kustomization or app
path renders, and a change to a Gateway that others' routes use, each with
both owners (and their Argo CD projects) and the CODEOWNERS entries
(GitHub or GitLab syntax) of the files involved.

Exit codes: 0 no routing change, 1 routing changed or not fully compared (a
part holding routing was not built at head; with --diff=manifests: a
manifest changed or a part was not built at head; with --diff=both:
either) (with --fail-on-new:
1 only when a finding introduced by the change reaches that severity;
with --fail-on-shared-change: 1 also when shared routing changed),
2 error.`

// diffReport is how every diff command prints the comparison and decides
// its exit code.
type diffReport struct {
	output, svg  string
	profile      string
	failOnNew    analysis.FailOn
	failOnShared bool
	reports      reportFlags
	progress     progressFlag
	revs         *action.DiffOptions
}

// register binds the revision and report flags of every diff command.
func (d *diffReport) register(cmd *cobra.Command, revs *action.DiffOptions) {
	fs := cmd.Flags()
	fs.StringVar(&revs.Base, "base", "", "base revision (default: the merge base of HEAD and the default branch, else HEAD)")
	fs.StringVar(&revs.Head, "head", "", "head revision (default: the work tree, uncommitted changes included)")
	d.registerOutput(cmd, revs)
	fs.StringVar(&revs.Review, "diff", string(routediff.ReviewRouting), "what to review: routing (the routing review), manifests (a unified diff of every changed object, by app) or both")
	fs.StringArrayVar(&revs.IgnorePointers, "ignore-pointer", nil, "with --diff=manifests|both, leave this JSON pointer out of the manifest diff: /metadata/labels/team, or KIND:/pointer for one kind (Deployment:/spec/replicas, Deployment.apps:/spec/replicas); repeatable")
	fs.StringVar(&revs.CodeOwners, "codeowners", "", "syntax of the CODEOWNERS file: github or gitlab (default: the host its location and [sections] say)")
}

// registerOutput binds the flags of how a review is printed and what its
// exit code is (every diff command, and report merge).
func (d *diffReport) registerOutput(cmd *cobra.Command, revs *action.DiffOptions) {
	fs := cmd.Flags()
	fs.StringVarP(&d.output, "output", "o", "text", "report format: "+strings.Join(diffFormats, ", "))
	fs.StringVar(&d.svg, "svg", "", "also write the route map of the change as SVG to this file")
	fs.BoolVar(&d.failOnShared, "fail-on-shared-change", false, "exit 1 when the change touches shared routing (a route onto another owner's Gateway, or a change to a Gateway others' routes use), whatever --fail-on-new says, so CI can require that review")
	fs.Var(&failOnFlag{&d.failOnNew}, "fail-on-new", "exit 1 only when a finding introduced by the change reaches this severity ("+strings.Join(analysis.FailOnNames, ", ")+"); routing changes alone then exit 0")
	d.reports.register(cmd, "the review (the findings of the head revision)")
	d.progress.register(cmd)
	fs.StringVar(&d.profile, "profile", "", "write a CPU and a heap profile of the run into this directory (cpu.pprof, heap.pprof, memstats.txt; default: $"+profile.Env+", else none)")
	d.revs = revs
}

// profiled runs fn with the run's profiles on (--profile, else
// $ROUTEGUARD_PROFILE).
func (d *diffReport) profiled(env *Env, fn func() error) error {
	stop, err := action.StartProfile(env.action(), d.profile)
	if err != nil {
		return err
	}
	defer stop()
	return fn()
}

// run checks the output format, compares with diff and writes the report.
func (d *diffReport) run(cmd *cobra.Command, env *Env, diff func() (*routediff.Result, error)) error {
	if !slices.Contains(diffFormats, d.output) {
		return fail("--output must be %s, got %q", strings.Join(diffFormats, ", "), d.output)
	}
	targets, err := d.reports.targets("output", explicit(cmd, "output", d.output))
	if err != nil {
		return err
	}
	// The reports hold every finding of head, not only of the paths the
	// change touches.
	d.revs.AllHeadFindings = len(targets) > 0
	meter, err := d.progress.meter(env, strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" "))
	if err != nil {
		return err
	}
	if meter.On() {
		d.revs.Progress = &diffProgress{m: meter}
	}
	res, err := diff()
	if err != nil {
		meter.Clear()
		return fail("%v", err)
	}
	sum := report.Summarize(res.Intro)
	meter.Findings("findings introduced", sum.Errors, sum.Warnings, sum.Infos)
	meter.Finish()
	rendered, err := report.RenderAll(targets, res.HeadFindings, report.Options{Color: env.IsTerminal, Version: version.Get().Version})
	if err != nil {
		return fail("%v", err)
	}
	notice.Write(env.Stderr, res.Notices)
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
	stdout, err := writeReports(env, rendered, true)
	if err != nil {
		return err
	}
	if stdout == nil {
		stdout = buf.Bytes()
	}
	if err := writeStdout(env, stdout); err != nil {
		return err
	}
	return exitWith(d.exitCode(res))
}

// exitCode is a diff's exit code: shared routing changed (with
// --fail-on-shared-change), routing changed, or with --fail-on-new an
// introduced finding at or above that severity.
func (d *diffReport) exitCode(res *routediff.Result) int {
	if d.failOnShared && res.SharedChanged() {
		return ExitFindings
	}
	if d.failOnNew != analysis.FailOnUnset {
		var worst analysis.Severity
		for _, f := range res.Intro {
			worst = max(worst, f.Severity)
		}
		if d.failOnNew.Fails(worst) {
			return ExitFindings
		}
		return ExitOK
	}
	if res.Changed() || !res.ComparedFully() {
		return ExitFindings
	}
	return ExitOK
}

func newDiffCommand(env *Env) *cobra.Command {
	a := &action.Diff{}
	var d diffReport
	var sh shardFlags
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

--shard I/N --shard-out FILE takes through the pipeline, at both
revisions, only the paths of shard I of N (a stable hash of each path
relative to the repository root: adding a path moves no other) and
writes their outcomes to FILE; 'routeguard report merge' assembles the N
files into the review without rendering anything, the same as without
--shard (a CI matrix: docs/diff.md, "Shards").

` + diffLong,
		Example: "  routeguard diff --base origin/main apps/shop\n  routeguard diff --base main --head feature -o markdown --fail-on-new error .\n  routeguard diff --base origin/main --shard 2/4 --shard-out shard-2.json apps/*",
		RunE: func(cmd *cobra.Command, args []string) error {
			return d.profiled(env, func() error {
				if sh.spec != "" || sh.out != "" {
					return sh.run(cmd, env, "app path(s)", func(spec shard.Spec) (*action.ShardFile, error) {
						return a.RunShard(cmd.Context(), env.action(), spec, args)
					})
				}
				return d.run(cmd, env, func() (*routediff.Result, error) { return a.Run(cmd.Context(), env.action(), args) })
			})
		},
	}
	sh.register(cmd, "app paths")
	registerRender(cmd.Flags(), &a.Render)
	registerAnalysis(cmd, &a.Analysis)
	// The repository root is git's top level; the analysis threshold is
	// --fail-on-new's business here.
	_ = cmd.Flags().MarkHidden("repo-root")
	_ = cmd.Flags().MarkHidden("fail-on")
	d.register(cmd, &a.DiffOptions)
	return cmd
}

func newFluxDiffCommand(env *Env) *cobra.Command {
	a := &action.FluxDiff{}
	var d diffReport
	var sh shardFlags
	cmd := &cobra.Command{
		Use:   "diff [PATH]",
		Short: "Compare the traffic routing of the Flux tree at two revisions (pull request review)",
		Long: `Builds the whole tree under PATH (default .; a cluster directory, as
'routeguard flux build --all' builds it: every Kustomization and HelmRelease,
postBuild substitution with Flux's code) at two revisions, analyzes each, and
compares them as 'routeguard diff' compares apps: route entries, attachments,
listeners, TLS hosts, ReferenceGrants, findings introduced and fixed, other
objects by kind. Both revisions are built in full, unless --changed-from
or --changed-files: then head is built with a trace of what each
Kustomization's and HelmRelease's build reads of the checkout (spec.path,
Kustomize bases and components, charts in Git and their values files)
and of the cluster (its sources, substituteFrom and valuesFrom ConfigMaps
and Secrets), and base builds only those whose object, or anything their
build read, differs, and those that depend on them (dependsOn); the others
take head's objects (the review is the same, the analysis runs at both
revisions). A symbolic link or .sourceignore changed: everything is built,
with a notice. The header counts the Kustomizations and HelmReleases
built, unaffected and not buildable.

--shard I/N --shard-out FILE builds both revisions of the tree but
renders only the HelmReleases and Kustomizations of shard I of N (a
stable hash of each one's kind, namespace and name: adding one moves no
other), and of the others only the Kustomizations that may apply Flux
objects (a file under spec.path mentions fluxcd or ../), which discover
the tree; it writes every build of its own to FILE, without analyzing.
'routeguard report merge' builds the tree again from the N files, taking
each node from its shard when the shard built it from the same object
and cluster inputs (else building it), and prints the review, the same
as without --shard (docs/diff.md, "Shards").

` + diffLong,
		Example: "  routeguard flux diff --base origin/main clusters/production\n  routeguard flux diff --base origin/main --shard 2/4 --shard-out shard-2.json clusters/production",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return d.profiled(env, func() error {
				if sh.spec != "" || sh.out != "" {
					return sh.run(cmd, env, "Kustomization(s), HelmRelease(s) and ResourceSet(s)", func(spec shard.Spec) (*action.ShardFile, error) {
						return a.RunShard(cmd.Context(), env.action(), spec, args)
					})
				}
				return d.run(cmd, env, func() (*routediff.Result, error) { return a.Run(cmd.Context(), env.action(), args) })
			})
		},
	}
	sh.register(cmd, "Kustomizations and HelmReleases")
	registerFluxTree(cmd, &a.Tree)
	registerAnalysis(cmd, &a.Analysis)
	_ = cmd.Flags().MarkHidden("fail-on")
	d.register(cmd, &a.DiffOptions)
	registerChanged(cmd, &a.Changed)
	return cmd
}

func newArgoCDDiffCommand(env *Env) *cobra.Command {
	a := &action.ArgoCDDiff{}
	var d diffReport
	var sh shardFlags
	cmd := &cobra.Command{
		Use:   "diff [PATH...]",
		Short: "Compare the traffic routing of every Application at two revisions (pull request review)",
		Long: `Builds every Application and ApplicationSet under PATH (default .) at two
revisions as 'routeguard argocd analyze' does, analyzes each cluster, and
compares them as 'routeguard diff' compares apps: route entries,
attachments, listeners, TLS hosts, ReferenceGrants, findings introduced and
fixed, other objects by kind. The objects of all destination clusters go
into one route map. Both revisions are built in full, unless
--changed-from or --changed-files: then head is built with a trace of
what each Application's render reads (Kustomize bases and components,
Helm charts and values files in Git, $ref sources, generators' files),
and base renders only the Applications whose definition, or anything
their render read, differs; the others take head's objects (the review is
the same, cluster analysis runs at both revisions). The header counts the
Applications built, unaffected and not buildable.

--shard I/N --shard-out FILE builds, at both revisions, only the
Applications of shard I of N (a stable hash of each Application's
namespace and name: adding an app moves no other) and writes what they
rendered to FILE, without analyzing; 'routeguard report merge' joins
the N files into the review, the same as without --shard (a CI matrix:
docs/diff.md, "Shards").

` + diffLong,
		Example: "  routeguard argocd diff --base origin/main argocd/\n  routeguard argocd diff --base origin/main --shard 2/4 --shard-out shard-2.json argocd/",
		RunE: func(cmd *cobra.Command, args []string) error {
			return d.profiled(env, func() error {
				if sh.spec != "" || sh.out != "" {
					return sh.run(cmd, env, "Application(s)", func(spec shard.Spec) (*action.ShardFile, error) {
						return a.RunShard(cmd.Context(), env.action(), spec, args)
					})
				}
				return d.run(cmd, env, func() (*routediff.Result, error) { return a.Run(cmd.Context(), env.action(), args) })
			})
		},
	}
	sh.register(cmd, "Applications")
	registerArgoCD(cmd, &a.ArgoCD)
	registerAnalysis(cmd, &a.Analysis)
	_ = cmd.Flags().MarkHidden("repo-root")
	_ = cmd.Flags().MarkHidden("fail-on")
	d.register(cmd, &a.DiffOptions)
	registerChanged(cmd, &a.Changed)
	return cmd
}

// registerChanged adds --changed-from and --changed-files (argocd diff,
// flux diff).
func registerChanged(cmd *cobra.Command, c *action.ChangedOptions) {
	fs := cmd.Flags()
	fs.StringVar(&c.From, "changed-from", "", "build at base only what the change since REF can affect (REF is the base: --base defaults to it); the review is the same as a full one")
	fs.StringVar(&c.Files, "changed-files", "", "build at base only what the changed paths listed in FILE (- for stdin; one path per line from the repository root, as git diff --name-only prints them) can affect; paths that differ between the revisions and are not listed are taken too")
}
