package argocd

import (
	"context"
	"fmt"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/argocd/appset"
	"github.com/routeguard/routeguard/internal/argocd/project"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/notice"
)

// AppContext is the cluster view of one Application, for `cmp generate`:
// what the other Applications of its destination cluster render (objects
// that resolve its references, never reported on) and where objects may
// exist that they could not render.
type AppContext struct {
	App        *Application // the Application as the repository declares it
	Cluster    string       // its destination cluster's server
	Objects    *manifest.Set
	Unrendered []analysis.UnrenderedScope
	Notices    []notice.Notice
	// Projects are the AppProjects of the build (and Options.Projects).
	Projects *project.Index
	clusters []appset.Cluster
}

// AppKey turns ARGOCD_APP_NAME (the Application's name, or
// "namespace_name" for an Application outside Argo CD's own namespace, as
// Argo CD's instance names are) into the key Build uses.
func AppKey(appName, appNamespace string) string {
	if ns, name, ok := strings.Cut(appName, "_"); ok {
		return ns + "/" + name // "_" cannot appear in a Kubernetes name
	}
	return appNamespace + "/" + appName
}

// ContextFor builds the repository (opts) without the Application key
// names, and returns what the other Applications of its destination
// cluster render. An Application the repository does not declare has no
// cluster view: (nil, nil) — the caller says so and goes on without it.
// The build stops with ctx (cmp generate's deadline).
func ContextFor(ctx context.Context, opts Options, key string) (*AppContext, error) {
	opts.Skip = key
	res, err := Build(ctx, opts)
	if err != nil {
		return nil, err
	}
	if res.Self == nil {
		return nil, nil
	}
	out := &AppContext{App: res.Self, Cluster: res.SelfCluster, Objects: manifest.NewSet(), Notices: res.Notices,
		Projects: res.Projects, clusters: res.clusters}
	for _, a := range res.Apps {
		for _, s := range a.Sources {
			if s.Skipped != "" {
				out.Notices = append(out.Notices, notice.Notice{Level: notice.Note, Text: fmt.Sprintf(
					"cluster view: Application %s: source %d skipped: %s", a.App.Key(), s.Index+1, s.Skipped)})
			}
		}
	}
	for _, c := range res.Clusters() {
		if c.Server != res.SelfCluster {
			continue
		}
		out.Objects = c.Set
		out.Unrendered = c.Unrendered
		out.Notices = append(out.Notices, c.Notices...)
		for _, a := range c.Apps {
			if a.Err != nil && len(a.Unrendered) == 0 {
				// Its objects may exist in the cluster: cannot check, not missing.
				ns := a.App.Spec.Destination.Namespace
				if ns == "" {
					ns = "*"
				}
				out.Unrendered = append(out.Unrendered, analysis.UnrenderedScope{Namespace: ns,
					Reason: fmt.Sprintf("Application %s does not render: %v", a.App.Key(), a.Err)})
			}
		}
	}
	return out, nil
}
