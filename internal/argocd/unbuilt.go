package argocd

import (
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/routeguard/routeguard/internal/confine"
	"github.com/routeguard/routeguard/internal/notice"
	"github.com/routeguard/routeguard/internal/routing"
)

// maxRoutingScan bounds the files read for one unbuilt Application.
const maxRoutingScan = 2000

// Unbuilt lists the Applications that did not render, were skipped or
// rendered partly, and the ApplicationSets that could not be expanded,
// with what each holds of routing as far as this repository shows it.
func (r *Result) Unbuilt() []notice.Unbuilt {
	var out []notice.Unbuilt
	for _, a := range r.Apps {
		u := notice.Unbuilt{What: "Application " + a.App.Key(), Where: a.App.Source.String(), RoutingFiles: a.RoutingFiles,
			ChartNotFetched: a.Status() != "failed" && slices.ContainsFunc(a.Sources, func(s SourceResult) bool { return s.ChartNotFetched })}
		switch a.Status() {
		case "failed":
			u.Why = "does not render"
			if a.Err != nil {
				u.Why += ": " + a.Err.Error()
			}
		case "skipped":
			u.Why = "not rendered here: " + a.skipReasons()
		case "partial":
			u.Why, u.Partly = "rendered partly: "+a.skipReasons(), true
		default:
			continue
		}
		out = append(out, u)
	}
	for _, s := range r.AppSets {
		switch {
		case s.Err != nil:
			out = append(out, notice.Unbuilt{What: "ApplicationSet " + s.Key, Where: s.Object.Source.String(), Why: "does not expand: " + s.Err.Error()})
		case s.Skipped != "":
			out = append(out, notice.Unbuilt{What: "ApplicationSet " + s.Key, Where: s.Object.Source.String(), Why: "not expanded here: " + s.Skipped})
		}
	}
	return out
}

// skipReasons says why sources were skipped or left parts out.
func (a *AppResult) skipReasons() string {
	var parts []string
	for _, s := range a.Sources {
		switch {
		case s.Skipped != "":
			parts = append(parts, s.Skipped)
		case len(s.MissingCharts) > 0:
			parts = append(parts, fmt.Sprintf("Kustomize chart %s is not in the repository", s.MissingCharts[0].Name))
		case len(s.Remote) > 0:
			parts = append(parts, s.Remote[0].String())
		case s.MissingDependencies != nil:
			parts = append(parts, "chart dependencies "+dependencyNames(s.MissingDependencies)+" out of reach")
		}
	}
	return strings.Join(parts, "; ")
}

// routingFiles lists what an Application that did not render whole holds
// of routing in this repository: files with routing objects (or, in a
// chart, templates declaring them) under its sources' paths, and routing
// values of its Helm sources (app-template's route, ingress).
func (b *builder) routingFiles(a *AppResult) []string {
	var out []string
	for _, src := range a.App.Spec.AllSources() {
		if h := src.Helm; h != nil {
			if v := h.ValuesYAML(); len(v) > 0 {
				var values map[string]any
				if yaml.Unmarshal(v, &values) == nil {
					for _, k := range routing.ValuesRouting(values) {
						out = append(out, "helm values "+k)
					}
				}
			}
		}
		if src.Chart != "" || src.Path == "" || !b.repo.IsThis(src.RepoURL) {
			continue
		}
		dir, err := b.repo.resolve(strings.TrimPrefix(filepath.FromSlash(cleanPath(src.Path)), string(filepath.Separator)))
		if err != nil || !b.repo.cr.IsDir(dir) {
			continue
		}
		n := 0
		_ = b.repo.cr.Walk(dir, confine.WalkOptions{}, func(rel string, fi fs.FileInfo) error {
			if n >= maxRoutingScan {
				return confine.SkipDir
			}
			if fi.IsDir() {
				if rel != "." && strings.HasPrefix(path.Base(rel), ".") {
					return confine.SkipDir
				}
				return nil
			}
			if ext := path.Ext(rel); ext != ".yaml" && ext != ".yml" && ext != ".json" && ext != ".tpl" || !fi.Mode().IsRegular() {
				return nil
			}
			n++
			p := filepath.Join(dir, filepath.FromSlash(rel))
			if data, err := b.repo.read(p); err == nil && routing.Mentioned(data) {
				out = append(out, b.repo.rel(p))
			}
			return nil
		})
	}
	slices.Sort(out)
	return slices.Compact(out)
}
