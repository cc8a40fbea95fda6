package charts

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// Ref names a chart in a chart repository or registry.
type Ref struct {
	// RepoURL is a Helm chart repository (https:// or http://, serving
	// index.yaml) or an OCI registry path (oci://host/path).
	RepoURL string
	// Name is the chart's name in the repository. For oci:// it is appended
	// to RepoURL as a path segment (Helm's convention for OCI repositories
	// and dependencies); "" when RepoURL names the chart itself (a Flux
	// OCIRepository's URL).
	Name string
	// Version is an exact version or a semver constraint; "" or "*" selects
	// the newest version that is not a prerelease.
	Version string
	// Tag (oci only) is an exact tag, used when Version and Digest are
	// empty (a Flux OCIRepository's spec.ref.tag; "latest" when all three
	// are empty for an OCIRepository-style RepoURL).
	Tag string
	// Digest (oci only) pins the manifest: "sha256:<hex>". It wins over
	// Version and Tag (spec.ref.digest).
	Digest string
	// Insecure (oci only) talks plain HTTP to the registry (a source's
	// spec.insecure); only a loopback registry is reached so
	// (plaintext.go), as is only a loopback http:// repository.
	Insecure bool
}

// String renders the reference as users write it.
func (r Ref) String() string {
	s := r.RepoURL
	if r.Name != "" {
		s = strings.TrimSuffix(s, "/") + "/" + r.Name
	}
	switch {
	case r.Digest != "":
		return s + "@" + r.Digest
	case r.Version != "":
		return s + " version " + r.Version
	case r.Tag != "":
		return s + ":" + r.Tag
	}
	return s
}

// Chart is a chart archive the cache holds.
type Chart struct {
	Path    string // the chart archive (.tgz)
	Version string // the version the reference resolved to ("" for a non-semver OCI tag)
	// Digest is the archive's sha256 (chart repositories) or the OCI
	// manifest digest (registries).
	Digest string
}

// ErrNotCached is returned offline for a chart the cache does not hold.
var ErrNotCached = errors.New("not in the chart cache")

// Cache fetches charts and keeps them in Dir. The zero value is unusable:
// set Dir, or call Temporary. A Cache is safe for concurrent use; charts
// fetched once per process are not fetched again, and files are written
// atomically, so concurrent processes may share Dir.
type Cache struct {
	// Dir holds the charts, one directory per repository:
	// https/<host>/<path>/index.yaml and <name>-<version>.tgz;
	// oci/<host>/<path>/<name>/tags.json, tag-<tag>.json, sha256-<hex>.tgz.
	Dir string
	// Offline reads only what Dir holds and never opens a connection.
	Offline bool

	mu    sync.Mutex
	memos map[string]*memoEntry
}

type memoEntry struct {
	once sync.Once
	v    any
	err  error
}

// Temporary returns a cache in a new temporary directory and a function
// that removes it.
func Temporary() (*Cache, func(), error) {
	d, err := os.MkdirTemp("", "routeguard-charts-")
	if err != nil {
		return nil, nil, err
	}
	return &Cache{Dir: d}, func() { os.RemoveAll(d) }, nil
}

// Fetch returns the archive of the chart ref names, from the cache or (when
// not Offline) from its repository, storing it in the cache.
func (c *Cache) Fetch(ctx context.Context, ref Ref) (*Chart, error) {
	if c == nil || c.Dir == "" {
		return nil, fmt.Errorf("chart %s: no chart cache configured", ref)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	key := fmt.Sprintf("chart %q %q %q %q %q %v", ref.RepoURL, ref.Name, ref.Version, ref.Tag, ref.Digest, ref.Insecure)
	v, err := c.memo(key, func() (any, error) { return c.fetch(ctx, ref) })
	if err != nil {
		return nil, err
	}
	return v.(*Chart), nil
}

func (c *Cache) fetch(ctx context.Context, ref Ref) (*Chart, error) {
	u, err := url.Parse(ref.RepoURL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("chart repository URL %q: must be https://, http:// or oci:// with a host", ref.RepoURL)
	}
	switch u.Scheme {
	case "https", "http":
		if ref.Name == "" {
			return nil, fmt.Errorf("chart repository %s: no chart name", ref.RepoURL)
		}
		if ref.Digest != "" || ref.Tag != "" {
			return nil, fmt.Errorf("chart %s: a digest or tag needs an oci:// repository", ref)
		}
		return c.fetchIndexed(ctx, u, ref)
	case "oci":
		return c.fetchOCI(ctx, u, ref)
	}
	return nil, fmt.Errorf("chart repository URL %q: scheme %q is not supported (https, http, oci)", ref.RepoURL, u.Scheme)
}

var safeSegment = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// dirFor maps a URL (and extra path segments) to a directory under Dir:
// <scheme>/<host>/<path segments>. Segments that are not plain names (or
// could climb out: "..") are replaced by a hash, so no URL leads outside Dir.
func (c *Cache) dirFor(kind string, u *url.URL, extra ...string) string {
	parts := []string{c.Dir, kind, segment(strings.ReplaceAll(u.Host, ":", "_"))}
	for _, p := range strings.Split(strings.Trim(u.Path, "/"), "/") {
		if p != "" {
			parts = append(parts, segment(p))
		}
	}
	for _, p := range extra {
		parts = append(parts, segment(p))
	}
	return filepath.Join(parts...)
}

func segment(s string) string {
	if safeSegment.MatchString(s) && !strings.Contains(s, "..") {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	return "x-" + hex.EncodeToString(sum[:8])
}

// writeAtomic writes data to path through a temporary file in the same
// directory and a rename, so readers never see a partial file.
func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// notCached wraps ErrNotCached with what to do.
func (c *Cache) notCached(ref Ref, what string) error {
	return fmt.Errorf("chart %s: %s %w %s; run once with --fetch-charts (or --allow-network) to fill it", ref, what, ErrNotCached, c.Dir)
}
