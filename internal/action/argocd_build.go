package action

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/routeguard/routeguard/internal/argocd"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/notice"
	"github.com/routeguard/routeguard/internal/printable"
)

// ArgoCDBuild renders every Application of a repository as Argo CD would
// (routeguard argocd build).
type ArgoCDBuild struct {
	ArgoCD ArgoCDOptions
	// Output is yaml (a comment before each Application's objects) or json.
	Output string
}

// ArgoCDBuildResult is the build.
type ArgoCDBuildResult struct {
	Build *argocd.Result
	// Notices of the build and what it skipped (set also when an
	// Application does not render).
	Notices []notice.Notice
	// ProjectNotices say what the Applications' AppProjects refuse (set
	// once every Application rendered).
	ProjectNotices []notice.Notice
	// Summary says what was built.
	Summary   string
	Manifests []byte
}

// Run builds the Applications found from paths (none: ".").
func (a *ArgoCDBuild) Run(ctx context.Context, env Env, paths []string) (*ArgoCDBuildResult, error) {
	if a.Output != "yaml" && a.Output != "json" {
		return nil, fmt.Errorf("--output must be yaml or json, got %q", a.Output)
	}
	b, err := a.ArgoCD.build(ctx, env, paths)
	if err != nil {
		return nil, err
	}
	res := &ArgoCDBuildResult{Build: b, Notices: buildNotices(b)}
	var failed []string
	for _, app := range b.Apps {
		if app.Err != nil {
			failed = append(failed, fmt.Sprintf("%s: Application %s does not render: %v", app.App.Source, app.App.Key(), app.Err))
		}
	}
	for _, s := range b.AppSets {
		if s.Err != nil {
			failed = append(failed, fmt.Sprintf("%s: ApplicationSet %s: %v", s.Object.Source, s.Key, s.Err))
		}
	}
	if len(failed) > 0 {
		return res, errors.New(strings.Join(failed, "\nrouteguard: "))
	}
	now, err := a.ArgoCD.now()
	if err != nil {
		return res, err
	}
	res.ProjectNotices = projectNotices(argocd.CheckProjects(b, now))
	res.Summary = summary(b, nil)
	if res.Manifests, err = encodeArgoCDBuild(a.Output, b); err != nil {
		return res, err
	}
	return res, nil
}

// argocdApp is one Application in build's JSON output.
type argocdApp struct {
	Application string            `json:"application"`
	Cluster     string            `json:"cluster"`
	Origin      string            `json:"origin,omitempty"`
	Sources     []argocdSource    `json:"sources"`
	Objects     []json.RawMessage `json:"objects"`
}

type argocdSource struct {
	Tool    string `json:"tool,omitempty"`
	Where   string `json:"where,omitempty"`
	Objects int    `json:"objects"`
	Skipped string `json:"skipped,omitempty"`
}

func encodeArgoCDBuild(format string, res *argocd.Result) ([]byte, error) {
	var buf bytes.Buffer
	if format == "yaml" {
		for _, a := range res.Apps {
			fmt.Fprintf(&buf, "# Application %s (cluster %s)\n", printable.Line(a.App.Key()), printable.Line(a.Cluster))
			if a.Set == nil || a.Set.Len() == 0 {
				continue
			}
			if err := manifest.WriteYAML(&buf, a.Set.Objects()); err != nil {
				return nil, err
			}
		}
		return buf.Bytes(), nil
	}
	apps := []argocdApp{}
	for _, a := range res.Apps {
		ja := argocdApp{Application: a.App.Key(), Cluster: a.Cluster, Origin: a.App.Origin, Sources: []argocdSource{}, Objects: []json.RawMessage{}}
		for _, s := range a.Sources {
			ja.Sources = append(ja.Sources, argocdSource{Tool: s.Tool, Where: s.Where, Objects: s.Objects, Skipped: s.Skipped})
		}
		if a.Set != nil {
			for _, o := range a.Set.Objects() {
				data, err := json.Marshal(o.Body)
				if err != nil {
					return nil, err
				}
				ja.Objects = append(ja.Objects, data)
			}
		}
		apps = append(apps, ja)
	}
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(apps); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
