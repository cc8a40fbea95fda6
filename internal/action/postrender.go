package action

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/routeguard/routeguard/internal/config"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/notice"
	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/render"
	"github.com/routeguard/routeguard/internal/report"
	"github.com/routeguard/routeguard/internal/substitute"
)

// Postrender is Helm's post-renderer (routeguard postrender): manifests on
// standard input are substituted with Flux's postBuild semantics,
// transformed and analyzed as a gate.
type Postrender struct {
	// Vars (name=value, winning) and VarsFiles are substitution variables.
	Vars, VarsFiles []string
	// Strict fails on variables that are not set and have no default.
	Strict bool
	// Weights override transforms.weights per service ("reviews: blue 90,
	// green 10"); SyncWaves adds Argo CD sync waves.
	Weights   string
	SyncWaves bool
	// Namespace of objects that name none (default: $HELM_NAMESPACE, else
	// "default").
	Namespace string
	// Analyze runs the analysis as a gate (false: only transform).
	Analyze bool
	// MaxFileMiB is the largest input to read, in MiB.
	MaxFileMiB int64
	Analysis   AnalysisOptions
	// Reports are reports of the findings to files (--report; standard
	// output carries only manifests).
	Reports []report.Target
}

// PostrenderResult is the gate's verdict and what goes on to Helm.
type PostrenderResult struct {
	Verdict
	Notices []notice.Notice
	// Report is the findings as text (empty without findings).
	Report []byte
	// Reports are the findings in each of Postrender.Reports.
	Reports []report.Rendered
	// Manifests are the objects to apply, as YAML.
	Manifests []byte
}

// Run reads the manifests from env.Stdin.
func (a *Postrender) Run(ctx context.Context, env Env) (*PostrenderResult, error) {
	if t, ok := report.StdoutTarget(a.Reports); ok {
		return nil, fmt.Errorf("--report %s: postrender prints only manifests on stdout; give the report a file (%s=FILE)", t, t.Format)
	}
	if len(a.Reports) > 0 && !a.Analyze {
		return nil, errors.New("--report needs the analysis; drop --analyze=false")
	}
	vars, err := parseVars(a.VarsFiles, a.Vars)
	if err != nil {
		return nil, err
	}
	o := pipeline.Overrides{SyncWaves: a.SyncWaves}
	if w, ok := vars[WeightsVariable]; ok && a.Weights == "" {
		// The same variable that states weights in a Flux Kustomization.
		if o.Weights, err = config.ParseWeights(w); err != nil {
			return nil, fmt.Errorf("variable %s: %v", WeightsVariable, err)
		}
	}
	if a.Weights != "" {
		if o.Weights, err = config.ParseWeights(a.Weights); err != nil {
			return nil, fmt.Errorf("--weights: %v", err)
		}
	}
	if a.MaxFileMiB <= 0 {
		return nil, fmt.Errorf("--max-file-size must be positive, got %d", a.MaxFileMiB)
	}
	set, data, err := readObjects(env.Stdin, "<stdin>", a.MaxFileMiB<<20)
	if err != nil {
		return nil, err
	}
	// Helm runs post-renderers in the working directory: its
	// .routeguard.yaml, else the git top level's.
	wd := env.workDir()
	root, err := render.FindRepoRoot(wd)
	if err != nil {
		return nil, err
	}
	ns := cmp.Or(a.Namespace, env.Getenv("HELM_NAMESPACE"), "default")
	an, err := a.Analysis.analysis(env, "", ns)
	if err != nil {
		return nil, err
	}
	an.ContextPaths = contextPaths(render.Options{MaxFileBytes: manifest.DefaultMaxFileBytes})
	if !a.Analyze {
		an = nil
	}
	ch := pipeline.Changes{Overrides: o}
	if len(vars) > 0 {
		ch.Substitution = &pipeline.Substitution{Variables: vars, Strict: a.Strict, Namespace: ns, Origin: "routeguard postrender --var/--vars-file"}
	}
	out, err := runObjects(ctx, pipeline.Input{Objects: set, AppDir: wd, RepoRoot: root, ConfigFile: a.Analysis.ConfigFile}, ch, an)
	if err != nil {
		var se *substitute.Error
		if errors.As(err, &se) {
			se.Line = substitute.VariableLine(data, se.Object.Source.Line, se.Variable())
		}
		return nil, err
	}
	res := &PostrenderResult{Notices: out.Notices}
	res.add(out)
	if len(out.Findings) > 0 {
		w, err := newReport("text", false)
		if err != nil {
			return nil, err
		}
		if res.Report, err = w.all(out.Findings); err != nil {
			return nil, err
		}
	}
	if res.Reports, err = renderReports(a.Reports, out.Findings, false); err != nil {
		return nil, err
	}
	if res.Manifests, err = encodeManifests("yaml", out.Set.Objects()); err != nil {
		return nil, err
	}
	return res, nil
}
