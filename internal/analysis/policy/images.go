package policy

import (
	"context"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// Images finds containers whose image is :latest or has neither a tag nor
// a digest, so what runs can change without a change in Git.
type Images struct{}

// podSpecPaths says where each workload kind keeps its pod spec.
var podSpecPaths = []struct {
	gk   manifest.GroupKind
	path []string
}{
	{manifest.GroupKind{Kind: "Pod"}, []string{"spec"}},
	{manifest.GroupKind{Group: "apps", Kind: "DaemonSet"}, []string{"spec", "template", "spec"}},
	{manifest.GroupKind{Group: "apps", Kind: "Deployment"}, []string{"spec", "template", "spec"}},
	{manifest.GroupKind{Group: "apps", Kind: "ReplicaSet"}, []string{"spec", "template", "spec"}},
	{manifest.GroupKind{Group: "apps", Kind: "StatefulSet"}, []string{"spec", "template", "spec"}},
	{manifest.GroupKind{Group: "batch", Kind: "Job"}, []string{"spec", "template", "spec"}},
	{manifest.GroupKind{Group: "batch", Kind: "CronJob"}, []string{"spec", "jobTemplate", "spec", "template", "spec"}},
}

// Metadata implements analysis.Analyzer.
func (Images) Metadata() analysis.Metadata {
	var in []manifest.GroupKind
	for _, p := range podSpecPaths {
		in = append(in, p.gk)
	}
	return analysis.Metadata{
		Name:        "policy.Images",
		Description: "Finds container images tagged :latest or without a tag or digest.",
		Doc:         "Containers (init, ephemeral too) of Pods, Deployments, StatefulSets, DaemonSets, ReplicaSets, Jobs, CronJobs on `:latest` or with neither tag nor digest.",
		Inputs:      in,
	}
}

// Analyze implements analysis.Analyzer.
func (Images) Analyze(ctx context.Context, c *analysis.Context) error {
	for _, p := range podSpecPaths {
		for _, o := range c.Objects().ByKind(p.gk.Group, p.gk.Kind) {
			if err := ctx.Err(); err != nil {
				return err
			}
			spec := field.Map(o.Body, p.path...)
			for _, list := range []string{"initContainers", "containers", "ephemeralContainers"} {
				for _, ctr := range field.Maps(spec, list) {
					img := field.String(ctr, "image")
					if img == "" {
						continue
					}
					if problem := mutable(img); problem != "" {
						c.ReportCode(o, analysis.CodeMutableImage, field.String(ctr, "name"), img, problem)
					}
				}
			}
		}
	}
	return nil
}

// mutable says why an image reference is mutable ("" when it is pinned).
func mutable(img string) string {
	if strings.Contains(img, "@") {
		return ""
	}
	last := img[strings.LastIndexByte(img, '/')+1:]
	i := strings.LastIndexByte(last, ':')
	if i < 0 {
		return "has no tag (it means :latest)"
	}
	if last[i+1:] == "latest" {
		return "uses the tag :latest"
	}
	return ""
}
