package action

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/render"
	"github.com/routeguard/routeguard/internal/routemap"
)

// MapFormats are the output formats of Map.
var MapFormats = []string{"text", "mermaid", "svg", "json"}

// Map renders an app and draws its route map (routeguard map).
type Map struct {
	Render RenderOptions
	// Output is one of MapFormats.
	Output string
}

// MapResult is the route map, in the output format.
type MapResult struct {
	Map    *routemap.Map
	Output []byte
}

// Run maps the app at path.
func (a *Map) Run(ctx context.Context, env Env, path string) (*MapResult, error) {
	if !slices.Contains(MapFormats, a.Output) {
		return nil, fmt.Errorf("--output must be %s, got %q", strings.Join(MapFormats, ", "), a.Output)
	}
	opts, err := a.Render.options(env, path)
	if err != nil {
		return nil, err
	}
	res, out, err := renderApp(ctx, opts, pipeline.Input{}, pipeline.Changes{}, nil)
	if err != nil {
		return nil, err
	}
	m := routemap.Build(out.Set, opts.Helm.Namespace)
	var buf bytes.Buffer
	switch a.Output {
	case "json":
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", "  ")
		err = enc.Encode(m)
	case "mermaid":
		_, err = buf.WriteString(routemap.Mermaid(routemap.NewGraph(m, m)))
	case "svg":
		err = routemap.SVG(&buf, routemap.NewGraph(m, m), "routeguard map: "+mapTitle(res, path))
	default:
		err = routemap.WriteText(&buf, m)
	}
	if err != nil {
		return nil, fmt.Errorf("writing the map: %w", err)
	}
	return &MapResult{Map: m, Output: buf.Bytes()}, nil
}

func mapTitle(res *render.Result, path string) string {
	if res.Path != "" && res.Tool != render.Tool("") {
		return res.Path
	}
	return path
}
