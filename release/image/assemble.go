package image

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The contract with Argo CD (docs/cmp.md): plugins run as user 999, and the
// sidecar's entrypoint is the argocd-cmp-server that the repo-server's
// init container copies into the var-files volume.
const (
	User       = "999:999"
	Entrypoint = "/var/run/argocd/argocd-cmp-server"
	BinDir     = "/usr/local/bin"
	searchPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	sourceURL  = "https://github.com/routeguard/routeguard"
)

// AssembleOptions say how to put the image together.
type AssembleOptions struct {
	Base              Base
	Created           time.Time // every time stamp in the image
	Version, Revision string    // labels and annotations
	// WorkDir holds the layer files until the image is written.
	WorkDir string
}

// Assemble puts each platform's binaries on its base and returns the
// multi-arch index, platforms in the order of Platforms.
func Assemble(bins Binaries, o AssembleOptions) (v1.ImageIndex, error) {
	if o.Base == nil {
		return nil, fmt.Errorf("assemble: no base")
	}
	created := o.Created.UTC()
	labels := map[string]string{
		"org.opencontainers.image.title":       "routeguard-cmp",
		"org.opencontainers.image.description": "routeguard's Argo CD Config Management Plugin sidecar: routeguard and routeguard-istio",
		"org.opencontainers.image.source":      sourceURL,
		"org.opencontainers.image.version":     o.Version,
		"org.opencontainers.image.revision":    o.Revision,
		"org.opencontainers.image.created":     created.Format(time.RFC3339),
	}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	n := 0
	for _, p := range Platforms {
		files, ok := bins[p.String()]
		if !ok {
			continue
		}
		img, err := platformImage(files, p, o, created, labels)
		if err != nil {
			return nil, fmt.Errorf("image for %s: %w", p, err)
		}
		pp := p
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &pp}})
		n++
	}
	if n != len(bins) || n == 0 {
		return nil, fmt.Errorf("assemble: binaries for %d platforms, of which %d are in Platforms", len(bins), n)
	}
	return mutate.Annotations(idx, labels).(v1.ImageIndex), nil
}

func platformImage(files map[string]string, p v1.Platform, o AssembleOptions, created time.Time, labels map[string]string) (v1.Image, error) {
	base, err := o.Base.Image(p)
	if err != nil {
		return nil, err
	}
	entries := []entry{
		{name: "usr/", mode: 0o755, dir: true},
		{name: "usr/local/", mode: 0o755, dir: true},
		{name: "usr/local/bin/", mode: 0o755, dir: true},
	}
	var names []string
	for _, c := range Commands {
		name := path.Base(c)
		src, ok := files[name]
		if !ok {
			return nil, fmt.Errorf("no %s binary", name)
		}
		if _, err := os.Stat(src); err != nil {
			return nil, fmt.Errorf("binary %s: %w", name, err)
		}
		entries = append(entries, entry{name: strings.TrimPrefix(BinDir, "/") + "/" + name, mode: 0o755, src: src})
		names = append(names, name)
	}
	if o.WorkDir == "" {
		return nil, fmt.Errorf("assemble: no WorkDir for the layers")
	}
	l, err := fileLayer(filepath.Join(o.WorkDir, "layer-"+p.OS+"-"+p.Architecture+".tar.gz"), entries, created)
	if err != nil {
		return nil, err
	}
	mt, err := base.MediaType()
	if err != nil {
		return nil, err
	}
	layerType := types.OCILayer
	if mt == types.DockerManifestSchema2 {
		layerType = types.DockerLayer
	}
	img, err := mutate.Append(base, mutate.Addendum{Layer: l, MediaType: layerType, History: v1.History{
		Created:   v1.Time{Time: created},
		CreatedBy: "routeguard release/image: " + strings.Join(names, ", ") + " in " + BinDir,
	}})
	if err != nil {
		return nil, err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.Created = v1.Time{Time: created}
	cfg.OS, cfg.Architecture, cfg.Variant = p.OS, p.Architecture, p.Variant
	cfg.Config.User = User
	cfg.Config.Entrypoint = []string{Entrypoint}
	cfg.Config.Cmd = nil
	cfg.Config.WorkingDir = "/" // readable by 999 whatever the base's user
	cfg.Config.Env = setEnv(cfg.Config.Env, "PATH="+searchPath, "HOME=/tmp")
	if cfg.Config.Labels == nil {
		cfg.Config.Labels = map[string]string{}
	}
	for k, v := range labels {
		cfg.Config.Labels[k] = v
	}
	img, err = mutate.ConfigFile(img, cfg)
	if err != nil {
		return nil, err
	}
	if name := o.Base.Name(); name != "" {
		d, err := base.Digest()
		if err != nil {
			return nil, err
		}
		img = mutate.Annotations(img, map[string]string{
			"org.opencontainers.image.base.name":   name,
			"org.opencontainers.image.base.digest": d.String(),
		}).(v1.Image)
	}
	return img, nil
}

// setEnv sets KEY=VALUE pairs in env, replacing a KEY already there.
func setEnv(env []string, kvs ...string) []string {
	out := append([]string(nil), env...)
	for _, kv := range kvs {
		key, _, _ := strings.Cut(kv, "=")
		replaced := false
		for i, e := range out {
			if k, _, _ := strings.Cut(e, "="); k == key {
				out[i], replaced = kv, true
			}
		}
		if !replaced {
			out = append(out, kv)
		}
	}
	return out
}
