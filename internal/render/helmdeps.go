package render

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/Masterminds/semver/v3"
	chartv2 "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	yaml "sigs.k8s.io/yaml"
)

// ChartDependency is a dependency of a chart (Chart.yaml `dependencies:`)
// that is not vendored under charts/ and comes from a chart repository.
type ChartDependency struct {
	Name string
	// Version is the locked version when the chart has a Chart.lock (as
	// `helm dependency build` uses it), else Chart.yaml's constraint.
	Version    string
	Repository string // https://... or oci://...
}

func (d ChartDependency) String() string {
	return fmt.Sprintf("%s %s from %s", d.Name, d.Version, d.Repository)
}

// DependencyFetcher fetches chart dependencies from chart repositories (a
// chart cache shared by the commands that render Helm charts).
type DependencyFetcher interface {
	// FetchDependency returns the path of the dependency's chart (a
	// directory or a packaged .tgz) outside the repository, or an error
	// saying why it cannot (offline and not cached, not found, ...).
	FetchDependency(ctx context.Context, dep ChartDependency) (string, error)
}

// MissingDependenciesError says which dependencies of a chart could not be
// built, and why. Callers that can go on without the chart (Argo CD apps)
// report it as a notice rather than an error.
type MissingDependenciesError struct {
	Chart   string // the chart directory, relative to the repository
	Missing []ChartDependency
	Reasons []string // one per missing dependency
}

func (e *MissingDependenciesError) Error() string {
	parts := make([]string, len(e.Missing))
	for i, d := range e.Missing {
		parts[i] = d.String() + ": " + e.Reasons[i]
	}
	return fmt.Sprintf("%s: chart dependencies not vendored under charts/ and not available: %s", e.Chart, strings.Join(parts, "; "))
}

// buildDependencies adds the dependencies of ch that are missing under
// charts/ the way `helm dependency build` would have put them there:
// file:// charts from the repository, others through fetch.
func buildDependencies(ctx context.Context, r *root, chartDir string, ch *chartv2.Chart, fetch DependencyFetcher) error {
	present := map[string]bool{}
	for _, d := range ch.Dependencies() {
		present[d.Name()] = true
	}
	locked, err := chartLock(r, chartDir, ch.Metadata.Dependencies)
	if err != nil {
		return err
	}
	missing := &MissingDependenciesError{Chart: r.rel(chartDir)}
	for _, dep := range ch.Metadata.Dependencies {
		if dep == nil || present[dep.Name] {
			continue
		}
		present[dep.Name] = true
		if local, ok := strings.CutPrefix(dep.Repository, "file://"); ok {
			sub, err := loadLocalDependency(r, chartDir, local, dep)
			if err != nil {
				return err
			}
			ch.AddDependency(sub)
			continue
		}
		cd := ChartDependency{Name: dep.Name, Version: dep.Version, Repository: dep.Repository}
		if l, ok := locked[dep.Name]; ok && l.Version != "" {
			cd.Version = l.Version
		}
		reason := ""
		switch {
		case dep.Repository == "":
			reason = "it names no repository"
		case strings.HasPrefix(dep.Repository, "@"), strings.HasPrefix(dep.Repository, "alias:"):
			reason = "it names a repository by its name in Helm's repository configuration, which routeguard does not read; give the repository URL"
		case !strings.HasPrefix(dep.Repository, "https://") && !strings.HasPrefix(dep.Repository, "http://") && !strings.HasPrefix(dep.Repository, "oci://"):
			reason = "its repository is neither https://, oci:// nor file://"
		case fetch == nil:
			reason = "chart repositories cannot be reached (allow the network, or warm the chart cache)"
		}
		if reason == "" {
			r.trace.Opaque("chart dependency " + cd.Name + " comes from a chart repository")
			p, err := fetch.FetchDependency(ctx, cd)
			if err == nil {
				sub, lerr := loader.Load(p)
				switch {
				case lerr != nil:
					err = fmt.Errorf("loading the fetched chart: %w", lerr)
				case sub.Name() != dep.Name:
					err = fmt.Errorf("the fetched chart is named %q", sub.Name())
				default:
					ch.AddDependency(sub)
					continue
				}
			}
			if ctxErr := ctx.Err(); ctxErr != nil {
				return ctxErr
			}
			reason = err.Error()
		}
		missing.Missing = append(missing.Missing, cd)
		missing.Reasons = append(missing.Reasons, reason)
	}
	if len(missing.Missing) > 0 {
		return missing
	}
	return nil
}

// loadLocalDependency loads a file:// dependency from the repository,
// checking its name and version constraint as Helm does.
func loadLocalDependency(r *root, chartDir, local string, dep *chartv2.Dependency) (*chartv2.Chart, error) {
	p := local
	if !filepath.IsAbs(p) {
		p = filepath.Join(chartDir, filepath.FromSlash(local))
	}
	if _, err := r.resolve(p); err != nil {
		return nil, fmt.Errorf("%s: dependency %s (file://%s): %w", r.rel(chartDir), dep.Name, local, err)
	}
	// Read through the confined root, as the chart itself is.
	loaded, err := loadChart(r, p, r.maxFileBytes())
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: dependency %s: file://%s does not exist; fix the repository path in Chart.yaml", r.rel(chartDir), dep.Name, local)
		}
		return nil, fmt.Errorf("%s: dependency %s (file://%s): cannot load the chart: %w", r.rel(chartDir), dep.Name, local, err)
	}
	sub, ok := loaded.(*chartv2.Chart)
	if !ok {
		return nil, fmt.Errorf("%s: dependency %s (file://%s): unsupported chart type %T", r.rel(chartDir), dep.Name, local, loaded)
	}
	if sub.Name() != dep.Name {
		return nil, fmt.Errorf("%s: dependency %s: file://%s holds chart %q; the dependency's name must be the chart's name", r.rel(chartDir), dep.Name, local, sub.Name())
	}
	if dep.Version != "" {
		c, cerr := semver.NewConstraint(dep.Version)
		v, verr := semver.NewVersion(sub.Metadata.Version)
		if cerr == nil && verr == nil && !c.Check(v) {
			return nil, fmt.Errorf("%s: dependency %s: file://%s is version %s, which does not satisfy %q", r.rel(chartDir), dep.Name, local, sub.Metadata.Version, dep.Version)
		}
	}
	return sub, nil
}

// chartLock reads Chart.lock's dependency versions, if the chart has one.
// As `helm dependency build`, it refuses a lock whose digest is not that of
// Chart.yaml's dependencies and the lock's (Helm's resolver.HashReq).
func chartLock(r *root, chartDir string, req []*chartv2.Dependency) (map[string]*chartv2.Dependency, error) {
	data, err := r.readFile(filepath.Join(chartDir, "Chart.lock"), 1<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var lock chartv2.Lock
	if err := yaml.Unmarshal(data, &lock); err != nil {
		return nil, fmt.Errorf("%s/Chart.lock: %w", r.rel(chartDir), err)
	}
	if sum, err := lockDigest(req, lock.Dependencies); err != nil || sum != lock.Digest {
		return nil, fmt.Errorf("%s/Chart.lock: the lock file is out of sync with the dependencies in Chart.yaml (helm dependency build refuses it, and so does Argo CD); run `helm dependency update` and commit Chart.lock", r.rel(chartDir))
	}
	out := map[string]*chartv2.Dependency{}
	for _, d := range lock.Dependencies {
		if d != nil {
			out[d.Name] = d
		}
	}
	return out, nil
}

// lockDigest is Helm's resolver.HashReq: the sha256 of the JSON of
// Chart.yaml's dependencies and the lock's.
func lockDigest(req, lock []*chartv2.Dependency) (string, error) {
	data, err := json.Marshal([2][]*chartv2.Dependency{req, lock})
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// NoFetch is a DependencyFetcher that fetches nothing and says why: for a
// front door that has no chart cache (routeguard analyze), so that the
// reason a dependency is missing names what would fetch it.
type NoFetch string

// FetchDependency implements DependencyFetcher.
func (n NoFetch) FetchDependency(context.Context, ChartDependency) (string, error) {
	return "", errors.New(string(n))
}
