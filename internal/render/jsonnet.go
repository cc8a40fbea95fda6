package render

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"

	"github.com/google/go-jsonnet"

	"github.com/routeguard/routeguard/internal/manifest"
)

// JsonnetOptions mirror Argo CD's spec.source.directory.jsonnet: external
// variables, top-level arguments and library paths (relative to the
// repository root, as Argo CD resolves them). Values are used as given;
// Argo CD's ${ARGOCD_APP_*} substitution is the caller's.
type JsonnetOptions struct {
	ExtVars []JsonnetVar
	TLAs    []JsonnetVar
	Libs    []string
}

// JsonnetVar is one external variable or top-level argument; Code means the
// value is Jsonnet code rather than a string.
type JsonnetVar struct {
	Name  string
	Value string
	Code  bool
}

// isJsonnetFile matches the files Argo CD evaluates in a directory app
// (its pattern is case-sensitive; .libsonnet files are only imported).
func isJsonnetFile(name string) bool { return strings.HasSuffix(name, ".jsonnet") }

// evalJsonnet evaluates one .jsonnet file of a directory app the way Argo
// CD's repo-server does (a VM per file, the app directory and the libraries
// as import paths, ext vars and TLAs), with every import read through the
// confined root: no absolute path outside the repository, no symlink out.
// The result must be an object or an array of objects; Lists are expanded.
func evalJsonnet(ctx context.Context, r *root, appDir, file string, o JsonnetOptions, maxBytes int64) ([]*manifest.Object, error) {
	rel := r.rel(file)
	vm := jsonnet.MakeVM()
	vm.SetTraceOut(io.Discard)
	for _, v := range o.TLAs {
		if v.Code {
			vm.TLACode(v.Name, v.Value)
		} else {
			vm.TLAVar(v.Name, v.Value)
		}
	}
	for _, v := range o.ExtVars {
		if v.Code {
			vm.ExtCode(v.Name, v.Value)
		} else {
			vm.ExtVar(v.Name, v.Value)
		}
	}
	jpaths := []string{appDir}
	for _, lib := range o.Libs {
		p := filepath.Join(r.dir, filepath.FromSlash(strings.TrimPrefix(lib, "/")))
		real, err := r.resolve(p)
		if err != nil {
			return nil, fmt.Errorf("%s: jsonnet library path %q: %w", rel, lib, err)
		}
		jpaths = append(jpaths, real)
	}
	vm.Importer(&confinedImporter{root: r, jpaths: jpaths, max: maxBytes, cache: map[string]jsonnet.Contents{}})

	type result struct {
		out string
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := vm.EvaluateFile(file)
		done <- result{out, err}
	}()
	var res result
	select {
	case res = <-done:
	case <-ctx.Done():
		// The VM cannot be interrupted; its goroutine ends with the process.
		return nil, ctx.Err()
	}
	if res.err != nil {
		return nil, fmt.Errorf("%s: jsonnet evaluation failed: %s", rel, r.relativize(res.err.Error()))
	}
	return jsonnetObjects(rel, res.out)
}

// jsonnetObjects turns the JSON a jsonnet file produced into objects, as
// Argo CD does: an array of objects (null items skipped), else one object.
func jsonnetObjects(rel, out string) ([]*manifest.Object, error) {
	var v any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		return nil, fmt.Errorf("%s: jsonnet output is not JSON: %w", rel, err)
	}
	var items []any
	switch t := v.(type) {
	case []any:
		items = t
	case map[string]any:
		items = []any{t}
	default:
		return nil, fmt.Errorf("%s: jsonnet produced %s; a directory app's jsonnet file must produce an object or an array of objects", rel, describeJSON(v))
	}
	var objs []*manifest.Object
	for i, it := range items {
		if it == nil {
			continue
		}
		m, ok := it.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: item %d of the jsonnet output is %s, not an object", rel, i, describeJSON(it))
		}
		data, err := json.Marshal(m)
		if err != nil {
			return nil, fmt.Errorf("%s: item %d: %w", rel, i, err)
		}
		decoded, err := manifest.Decode(rel, data)
		if err != nil {
			return nil, fmt.Errorf("jsonnet output item %d: %w", i, err)
		}
		for _, o := range decoded {
			o.Source = manifest.Source{File: rel, Doc: i}
		}
		objs = append(objs, decoded...)
	}
	return objs, nil
}

func describeJSON(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	}
	return "an object"
}

// confinedImporter resolves imports as go-jsonnet's FileImporter does (the
// importing file's directory first, then the library paths, last one
// first) and reads every file through the root.
type confinedImporter struct {
	root   *root
	jpaths []string
	max    int64

	mu    sync.Mutex
	cache map[string]jsonnet.Contents
}

func (i *confinedImporter) Import(importedFrom, importedPath string) (jsonnet.Contents, string, error) {
	var candidates []string
	if filepath.IsAbs(importedPath) {
		candidates = []string{importedPath}
	} else {
		dir, _ := filepath.Split(importedFrom)
		if dir != "" {
			candidates = append(candidates, filepath.Join(dir, importedPath))
		}
		for j := len(i.jpaths) - 1; j >= 0; j-- {
			candidates = append(candidates, filepath.Join(i.jpaths[j], importedPath))
		}
	}
	for _, c := range candidates {
		contents, ok, err := i.read(c)
		if err != nil {
			return jsonnet.Contents{}, "", fmt.Errorf("import %q: %w", importedPath, err)
		}
		if ok {
			return contents, c, nil
		}
	}
	return jsonnet.Contents{}, "", fmt.Errorf("couldn't open import %q: no match locally or in the Jsonnet library paths", importedPath)
}

// read returns a file's contents, ok=false when it does not exist, and an
// error when it exists outside the repository or cannot be read.
func (i *confinedImporter) read(p string) (jsonnet.Contents, bool, error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if c, ok := i.cache[p]; ok {
		return c, true, nil
	}
	real, err := i.root.resolve(p)
	if err != nil {
		return jsonnet.Contents{}, false, err
	}
	fi, err := i.root.Stat(real)
	if errors.Is(err, fs.ErrNotExist) {
		return jsonnet.Contents{}, false, nil
	}
	if err != nil {
		return jsonnet.Contents{}, false, err
	}
	if !fi.Mode().IsRegular() {
		return jsonnet.Contents{}, false, fmt.Errorf("%s is not a regular file", i.root.rel(p))
	}
	data, err := i.root.readFile(real, i.max)
	if err != nil {
		return jsonnet.Contents{}, false, err
	}
	c := jsonnet.MakeContentsRaw(data)
	i.cache[p] = c
	return c, true, nil
}

// relativize shows paths under the root relative to it (jsonnet's error
// traces name files by the absolute paths the importer returned).
func (r *root) relativize(msg string) string {
	return strings.ReplaceAll(msg, r.dir+string(filepath.Separator), "")
}
