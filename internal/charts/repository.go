package charts

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"helm.sh/helm/v4/pkg/getter"
	repo "helm.sh/helm/v4/pkg/repo/v1"
)

// maxArchiveBytes bounds a chart archive or an index (Helm's own loader
// refuses charts that decompress beyond its limits).
const maxArchiveBytes = 256 << 20

// fetchIndexed fetches a chart from a chart repository (index.yaml), with
// Helm's index lookup (exact version first, else the newest version the
// constraint admits, prereleases only when asked for).
func (c *Cache) fetchIndexed(ctx context.Context, u *url.URL, ref Ref) (*Chart, error) {
	dir := c.dirFor(u.Scheme, u)
	version := ref.Version
	if version == "*" {
		version = ""
	}
	if version != "" && !isVersionRange(version) {
		if ch, ok := cachedArchive(dir, ref.Name, version); ok {
			return ch, nil
		}
	}
	idx, err := c.index(ctx, u, filepath.Join(dir, "index.yaml"), ref)
	if err != nil {
		return nil, err
	}
	cv, err := idx.Get(ref.Name, version)
	if err != nil {
		return nil, fmt.Errorf("chart %s: not in the repository's index (%v)", ref, err)
	}
	if ch, ok := cachedArchive(dir, ref.Name, cv.Version); ok {
		return ch, nil
	}
	if c.Offline {
		return nil, c.notCached(ref, fmt.Sprintf("version %s is", cv.Version))
	}
	if len(cv.URLs) == 0 {
		return nil, fmt.Errorf("chart %s: version %s has no download URL in the index", ref, cv.Version)
	}
	chartURL, err := repo.ResolveReferenceURL(ref.RepoURL, cv.URLs[0])
	if err != nil {
		return nil, fmt.Errorf("chart %s: %w", ref, err)
	}
	data, err := httpGet(ctx, chartURL, ref.RepoURL)
	if err != nil {
		return nil, fmt.Errorf("chart %s: downloading version %s: %w", ref, cv.Version, err)
	}
	sum := sha256.Sum256(data)
	digest := hex.EncodeToString(sum[:])
	if cv.Digest != "" && !strings.EqualFold(strings.TrimPrefix(cv.Digest, "sha256:"), digest) {
		return nil, fmt.Errorf("chart %s: version %s downloaded from %s has digest sha256:%s, the index says %s; refusing it", ref, cv.Version, chartURL, digest, cv.Digest)
	}
	p := archivePath(dir, ref.Name, cv.Version)
	if err := writeAtomic(p, data); err != nil {
		return nil, fmt.Errorf("chart %s: writing the cache: %w", ref, err)
	}
	return &Chart{Path: p, Version: cv.Version, Digest: "sha256:" + digest}, nil
}

// index returns the repository's index: downloaded once per process and
// kept in the cache (online), or read from the cache (offline).
func (c *Cache) index(ctx context.Context, u *url.URL, path string, ref Ref) (*repo.IndexFile, error) {
	v, err := c.memo("index "+path, func() (any, error) {
		if c.Offline {
			if !exists(path) {
				return nil, c.notCached(ref, "the repository index is")
			}
		} else {
			indexURL, err := repo.ResolveReferenceURL(ref.RepoURL, "index.yaml")
			if err != nil {
				return nil, err
			}
			data, err := httpGet(ctx, indexURL, ref.RepoURL)
			if err != nil {
				return nil, fmt.Errorf("chart repository %s: %w", ref.RepoURL, err)
			}
			if err := writeAtomic(path, data); err != nil {
				return nil, fmt.Errorf("chart repository %s: writing the cache: %w", ref.RepoURL, err)
			}
		}
		idx, err := repo.LoadIndexFile(path)
		if err != nil {
			return nil, fmt.Errorf("chart repository %s: %w", ref.RepoURL, err)
		}
		return idx, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*repo.IndexFile), nil
}

// httpGet fetches href with Helm's HTTP getter (its user agent, TLS
// settings and proxy handling).
func httpGet(ctx context.Context, href, repoURL string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := plainTextRefused(href, false); err != nil {
		return nil, err
	}
	g, err := getter.NewHTTPGetter(getter.WithURL(repoURL), getter.WithTimeout(2*time.Minute))
	if err != nil {
		return nil, err
	}
	buf, err := g.Get(href)
	if err != nil {
		return nil, err
	}
	if buf.Len() > maxArchiveBytes {
		return nil, fmt.Errorf("%s: larger than %d MiB", href, maxArchiveBytes>>20)
	}
	return io.ReadAll(buf)
}

func archivePath(dir, name, version string) string {
	return filepath.Join(dir, segment(name+"-"+version+".tgz"))
}

func cachedArchive(dir, name, version string) (*Chart, bool) {
	p := archivePath(dir, name, version)
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, false
	}
	sum := sha256.Sum256(data)
	return &Chart{Path: p, Version: version, Digest: "sha256:" + hex.EncodeToString(sum[:])}, true
}

// isVersionRange reports whether version is a constraint rather than an
// exact version (Helm's own test, repo/v1 isVersionRange).
func isVersionRange(version string) bool {
	if strings.ContainsAny(version, "^~<>=!*") || strings.Contains(version, "||") || strings.Contains(version, " - ") {
		return true
	}
	core := version
	if i := strings.IndexAny(version, "-+"); i != -1 {
		core = version[:i]
	}
	return strings.ContainsAny(core, "xX")
}

// memo runs build once per key and Cache, sharing its result.
func (c *Cache) memo(key string, build func() (any, error)) (any, error) {
	c.mu.Lock()
	if c.memos == nil {
		c.memos = map[string]*memoEntry{}
	}
	e, ok := c.memos[key]
	if !ok {
		e = &memoEntry{}
		c.memos[key] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.v, e.err = build() })
	return e.v, e.err
}
