package action

import (
	"fmt"
	"os"
	"time"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/argocd/project"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/notice"
)

// projects reads the ProjectFiles' AppProjects.
func (o ArgoCDOptions) projects(maxBytes int64) ([]*project.Project, error) {
	var out []*project.Project
	for _, file := range o.ProjectFiles {
		ps, err := readProjectFile(file, maxBytes)
		if err != nil {
			return nil, fmt.Errorf("--project-file %s: %w", file, err)
		}
		out = append(out, ps...)
	}
	return out, nil
}

// readProjectFile reads the AppProjects of one file (the operator's: not
// confined to the repository).
func readProjectFile(file string, maxBytes int64) ([]*project.Project, error) {
	fi, err := os.Stat(file)
	if err != nil {
		return nil, err
	}
	if fi.Size() > maxBytes {
		return nil, fmt.Errorf("is %d bytes, more than --max-file-size", fi.Size())
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	objs, err := manifest.Decode(file, data)
	if err != nil {
		return nil, err
	}
	var out []*project.Project
	for _, o := range objs {
		if !project.IsProject(o) {
			continue
		}
		p, err := project.Decode(o, "--project-file")
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("holds no AppProject (apiVersion argoproj.io/v1alpha1, kind AppProject)")
	}
	return out, nil
}

// now returns Now, else the current time.
func (o ArgoCDOptions) now() (time.Time, error) {
	if o.Now == "" {
		return time.Now(), nil
	}
	t, err := time.Parse(time.RFC3339, o.Now)
	if err != nil {
		return time.Time{}, fmt.Errorf("--now %q: want RFC 3339, e.g. 2026-01-02T15:04:05Z", o.Now)
	}
	return t, nil
}

// projectNotices turns what the projects refuse into warnings for argocd
// build, which prints manifests and analyzes nothing.
func projectNotices(fs []analysis.Finding, notices []notice.Notice) []notice.Notice {
	for _, f := range fs {
		notices = append(notices, notice.Notice{Level: notice.Warning, Text: fmt.Sprintf("%s: %s %s: %s (argocd analyze reports it as an error)",
			f.Source, f.Code, f.Subject(), f.Message)})
	}
	return notices
}
