// Command gen writes internal/crds/bundled: the CRDs routeguard embeds,
// read from the module cache at the versions go.mod requires, one gzipped
// YAML file per CRD plus an index. Run it with `go generate ./internal/crds`
// after changing the version of sigs.k8s.io/gateway-api, istio.io/istio or a
// Flux API module, or bundle.ArgoCDVersion.
package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/routeguard/routeguard/internal/crds"
	"github.com/routeguard/routeguard/internal/crds/bundle"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run() error {
	srcs, err := bundle.Locate(".")
	if err != nil {
		return err
	}
	defer srcs.Close()
	files, err := bundle.Build(srcs)
	if err != nil {
		return err
	}
	out := "bundled"
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		data := files[n]
		p := filepath.Join(out, filepath.FromSlash(n))
		if n != crds.IndexFile {
			p += ".gz"
			if data, err = compress(data); err != nil {
				return err
			}
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("gen: %d CRDs from %s@%s, %s@%s, %d Flux modules and %s@%s\n", len(files)-1, srcs.GatewayAPI.Module, srcs.GatewayAPI.Version,
		srcs.Istio.Module, srcs.Istio.Version, len(srcs.Flux), srcs.ArgoCD.Module, srcs.ArgoCD.Version)
	return nil
}

// compress gzips data without a name or time, so the output depends only
// on the input (and compress/flate).
func compress(data []byte) ([]byte, error) {
	var b bytes.Buffer
	w, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(data); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
