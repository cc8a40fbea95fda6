package charts

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"helm.sh/helm/v4/pkg/registry"
)

var digestPattern = regexp.MustCompile(`^sha256:[a-f0-9]{64}$`)

// tagRecord is what a tag pointed to when the cache was filled.
type tagRecord struct {
	Tag     string `json:"tag"`
	Digest  string `json:"digest"`
	Version string `json:"version,omitempty"`
}

// fetchOCI fetches a chart from an OCI registry with Helm's registry
// client: a digest as given; a version or constraint resolved against the
// repository's semver tags (Helm's GetTagMatchingVersionOrConstraint:
// exact tag first, else the newest admitted); else the tag (default
// "latest" for a reference that names the chart itself, the newest semver
// tag for a repository + chart name, as Helm does).
func (c *Cache) fetchOCI(ctx context.Context, u *url.URL, ref Ref) (*Chart, error) {
	repoPath := u.Host + strings.TrimSuffix(u.Path, "/")
	var extra []string
	if ref.Name != "" {
		repoPath += "/" + ref.Name
		extra = append(extra, ref.Name)
	}
	dir := c.dirFor("oci", u, extra...)
	digest, version := ref.Digest, ""
	if digest != "" && !digestPattern.MatchString(digest) {
		return nil, fmt.Errorf("chart %s: digest %q is not sha256:<64 hex digits>", ref, digest)
	}
	if digest == "" {
		tag := ref.Tag
		if ref.Version != "" || (ref.Name != "" && tag == "") {
			v, err := c.matchTag(ctx, dir, repoPath, ref)
			if err != nil {
				return nil, err
			}
			tag, version = v, v
		}
		if tag == "" {
			tag = "latest"
		}
		rec, err := c.resolveTag(ctx, dir, repoPath, tag, version, ref)
		if err != nil {
			return nil, err
		}
		digest, version = rec.Digest, rec.Version
	}
	p := filepath.Join(dir, strings.Replace(digest, ":", "-", 1)+".tgz")
	if exists(p) {
		return &Chart{Path: p, Version: version, Digest: digest}, nil
	}
	if c.Offline {
		return nil, c.notCached(ref, "the manifest "+digest+" is")
	}
	client, err := c.registryClient(ref)
	if err != nil {
		return nil, err
	}
	res, err := client.Pull(repoPath+"@"+digest, registry.PullOptWithChart(true))
	if err != nil {
		return nil, fmt.Errorf("chart %s: pulling %s: %w", ref, digest, err)
	}
	if len(res.Chart.Data) > maxArchiveBytes {
		return nil, fmt.Errorf("chart %s: larger than %d MiB", ref, maxArchiveBytes>>20)
	}
	if err := writeAtomic(p, res.Chart.Data); err != nil {
		return nil, fmt.Errorf("chart %s: writing the cache: %w", ref, err)
	}
	if version == "" && res.Chart.Meta != nil {
		version = res.Chart.Meta.Version
	}
	return &Chart{Path: p, Version: version, Digest: digest}, nil
}

// matchTag resolves ref.Version against the repository's semver tags,
// listed once per process online and kept in tags.json for offline runs.
func (c *Cache) matchTag(ctx context.Context, dir, repoPath string, ref Ref) (string, error) {
	path := filepath.Join(dir, "tags.json")
	v, err := c.memo("tags "+path, func() (any, error) {
		var tags []string
		if c.Offline {
			data, err := os.ReadFile(path)
			if err != nil {
				return nil, c.notCached(ref, "the repository's tag list is")
			}
			if err := json.Unmarshal(data, &tags); err != nil {
				return nil, fmt.Errorf("chart cache %s: %w", path, err)
			}
			return tags, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		client, err := c.registryClient(ref)
		if err != nil {
			return nil, err
		}
		if tags, err = client.Tags(repoPath); err != nil {
			return nil, fmt.Errorf("chart %s: listing tags: %w", ref, err)
		}
		data, _ := json.Marshal(tags)
		if err := writeAtomic(path, data); err != nil {
			return nil, fmt.Errorf("chart %s: writing the cache: %w", ref, err)
		}
		return tags, nil
	})
	if err != nil {
		return "", err
	}
	version := ref.Version
	if version == "*" {
		version = ""
	}
	tag, err := registry.GetTagMatchingVersionOrConstraint(v.([]string), version)
	if err != nil {
		return "", fmt.Errorf("chart %s: %w", ref, err)
	}
	return tag, nil
}

// resolveTag finds the manifest digest tag points to (online), recording
// it for offline runs, or reads the record (offline).
func (c *Cache) resolveTag(ctx context.Context, dir, repoPath, tag, version string, ref Ref) (*tagRecord, error) {
	ociTag := strings.ReplaceAll(tag, "+", "_")
	path := filepath.Join(dir, segment("tag-"+ociTag+".json"))
	v, err := c.memo("tag "+path, func() (any, error) {
		rec := &tagRecord{}
		if c.Offline {
			data, err := os.ReadFile(path)
			if err != nil {
				return nil, c.notCached(ref, "tag "+tag+" is")
			}
			if err := json.Unmarshal(data, rec); err != nil || !digestPattern.MatchString(rec.Digest) {
				return nil, fmt.Errorf("chart cache %s: not a tag record", path)
			}
			return rec, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		client, err := c.registryClient(ref)
		if err != nil {
			return nil, err
		}
		desc, err := client.Resolve(repoPath + ":" + ociTag)
		if err != nil {
			return nil, fmt.Errorf("chart %s: resolving tag %s: %w", ref, tag, err)
		}
		rec = &tagRecord{Tag: tag, Digest: desc.Digest.String(), Version: version}
		data, _ := json.Marshal(rec)
		if err := writeAtomic(path, data); err != nil {
			return nil, fmt.Errorf("chart %s: writing the cache: %w", ref, err)
		}
		return rec, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*tagRecord), nil
}

// registryClient is Helm's OCI registry client, one per Cache and transport
// (credentials from Helm's registry config, else Docker's).
func (c *Cache) registryClient(ref Ref) (*registry.Client, error) {
	if err := plainTextRefused(ref.RepoURL, ref.Insecure); err != nil {
		return nil, fmt.Errorf("chart %s: %w", ref, err)
	}
	plainHTTP := ref.Insecure
	v, err := c.memo(fmt.Sprintf("registry client %v", plainHTTP), func() (any, error) {
		var opts []registry.ClientOption
		if plainHTTP {
			opts = append(opts, registry.ClientOptPlainHTTP())
		}
		return registry.NewClient(opts...)
	})
	if err != nil {
		return nil, fmt.Errorf("OCI registry client: %w", err)
	}
	return v.(*registry.Client), nil
}
