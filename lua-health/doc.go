// Package luahealth embeds routeguard's health checks so the routeguard binary
// can print and run them. The checks live in this directory in Argo CD's
// resource_customizations layout, one directory per kind:
//
//	<group>/<Kind>/health.lua        the Argo CD health check (Lua)
//	<group>/<Kind>/health.cel.yaml   the same verdicts as Flux healthCheckExprs (CEL)
//	<group>/<Kind>/health_test.yaml  fixtures and expected verdicts, shared by both
//	<group>/<Kind>/testdata/*.yaml   the fixtures
//
// health.lua and health.cel.yaml are generated from _templates/ for every
// kind of routing.HealthChecked by `go generate ./lua-health`
// (lua-health/cmd/luagen); edit the templates or lua-health/internal/gen.
package luahealth

import "embed"

//go:generate go run ./cmd/luagen

// FS holds every check, its CEL twin, its test table and its fixtures, under
// paths <group>/<Kind>/... relative to lua-health/.
//
//go:embed */*/health.lua */*/health.cel.yaml */*/health_test.yaml */*/testdata/*.yaml
var FS embed.FS
