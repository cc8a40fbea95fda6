package action

import (
	"bytes"
	"cmp"
	"context"
	"fmt"

	argocmp "github.com/routeguard/routeguard/internal/cmp"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/pipeline"
)

// CMPGenerate renders and analyzes the working directory as the Argo CD
// Application asks (its build environment: ARGOCD_APP_*, plugin env and
// parameters), routeguard's Config Management Plugin's generate.
type CMPGenerate struct{}

// CMPGenerateResult is the gate's verdict and, when it passes, the
// manifests.
type CMPGenerateResult struct {
	Verdict
	// Notices of the cluster view and of the analysis, in order.
	Notices []pipeline.Notice
	// Report is the findings as Argo CD shows them in the ComparisonError
	// (empty without findings).
	Report []byte
	// Manifests are the objects (and the report object the report
	// parameter asks for) as YAML, when neither a plugin nor a finding
	// failed the run.
	Manifests []byte
}

// Run generates the app in the working directory.
func (CMPGenerate) Run(ctx context.Context, env Env) (*CMPGenerateResult, error) {
	req, b, s, err := cmpRequest(env)
	if err != nil {
		return nil, err
	}
	req.Analyze = true
	viewNotices := clusterView(ctx, env, &req, b)
	out, err := pipeline.Run(ctx, req)
	if err != nil {
		return nil, err
	}
	res := &CMPGenerateResult{Notices: append(viewNotices, out.Notices...)}
	res.add(out)
	label := cmp.Or(b.SourcePath, ".")
	if out.Path != "" && out.Path != "." {
		label = out.Path
	}
	if len(out.Findings) > 0 {
		var r bytes.Buffer
		argocmp.WriteReport(&r, out.Findings, label, string(out.Tool), argocmp.ReportLimit)
		res.Report = r.Bytes()
	}
	if out.PluginFailed || out.Failed {
		return res, nil
	}
	objs := out.Set.Objects()
	if s.Report == argocmp.ReportConfigMap {
		rep, err := argocmp.ReportObject(b, label, string(out.Tool), out.Findings)
		if err != nil {
			return nil, fmt.Errorf("building the report object: %w", err)
		}
		objs = append(objs[:len(objs):len(objs)], rep)
	}
	var buf bytes.Buffer
	if err := manifest.WriteYAML(&buf, objs); err != nil {
		return nil, err
	}
	res.Manifests = buf.Bytes()
	return res, nil
}

// cmpRequest reads the Argo CD build environment into a pipeline request
// for the working directory, confined to the unpacked repository (see
// argocmp.Build.Request). It returns the build and settings too, for the
// report and the announcement, as far as they were read.
func cmpRequest(env Env) (pipeline.Request, *argocmp.Build, argocmp.Settings, error) {
	b, err := argocmp.FromEnv(env.Getenv, env.Environ)
	if err != nil {
		return pipeline.Request{}, nil, argocmp.Settings{}, err
	}
	s, err := b.Settings()
	if err != nil {
		return pipeline.Request{}, b, s, err
	}
	cwd, err := env.Getwd()
	if err != nil {
		return pipeline.Request{}, b, s, fmt.Errorf("working directory: %w", err)
	}
	host, err := pluginHost(env, "")
	if err != nil {
		return pipeline.Request{}, b, s, err
	}
	// KUBE_VERSION and KUBE_API_VERSIONS come from Argo CD.
	cluster, err := clusterOf(env, "", ClusterOptions{})
	if err != nil {
		return pipeline.Request{}, b, s, err
	}
	req := b.Request(s, cwd, host)
	req.Cluster = cluster
	return req, b, s, nil
}
