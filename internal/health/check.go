package health

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/fluxcd/pkg/apis/kustomize"
	"sigs.k8s.io/yaml"

	luahealth "github.com/routeguard/routeguard/lua-health"
)

// Check is the health check of one kind: the Lua for Argo CD, its CEL twin for
// Flux, and the fixtures both are tested with.
type Check struct {
	Group string
	Kind  string
	// Dir is the check's directory within the checks' file system (<group>/<Kind>).
	Dir string
	// Lua is the health.lua script.
	Lua string
	// CEL is the health.cel.yaml entry, as Flux's Kustomization takes it.
	CEL kustomize.CustomHealthCheck
	// Tests is the health_test.yaml table.
	Tests []TestCase
}

// ConfigMapKey is the argocd-cm key that holds the Lua check:
// resource.customizations.health.<group>_<Kind>.
func (c Check) ConfigMapKey() string {
	return "resource.customizations.health." + c.Group + "_" + c.Kind
}

// TestCase is one entry of health_test.yaml, in Argo CD's format plus an
// optional flux block for the documented cases where CEL cannot agree.
type TestCase struct {
	InputPath    string  `json:"inputPath"`
	HealthStatus Verdict `json:"healthStatus"`
	// Flux, when set, says what the CEL twin yields instead of the status
	// Lua's verdict maps to, and which documented limit of CEL explains it.
	Flux *FluxException `json:"flux,omitempty"`
}

// FluxException records where the CEL twin cannot match the Lua verdict.
type FluxException struct {
	// Limit is ExceptionNoClock or ExceptionAbsentStatus.
	Limit string `json:"limit"`
	// Status is what kustomize-controller ends up with: InProgress, or
	// Unknown for an evaluation error.
	Status string `json:"status"`
}

// The only two reasons a CEL verdict may differ from the Lua one.
const (
	// ExceptionNoClock: CEL has no clock, so where Lua turns Degraded after
	// waiting for a controller, CEL stays InProgress.
	ExceptionNoClock = "no-clock"
	// ExceptionAbsentStatus: kustomize-controller passes the object's fields
	// as CEL variables; an absent status is an evaluation error (Unknown).
	ExceptionAbsentStatus = "absent-status"
)

// Verdict is an Argo CD health status and message.
type Verdict struct {
	Status  string `json:"status"`
	Message string `json:"message"`
}

// Builtin returns the checks embedded in the routeguard binary.
func Builtin() ([]Check, error) { return Load(luahealth.FS) }

// BuiltinKinds names the kinds of the built-in checks in Builtin's order
// (group, then kind) without loading them: every command's help is built
// at start-up, and loading the checks (their CEL twins and test tables)
// cost each run of routeguard about 2 MB of allocations.
func BuiltinKinds() []string {
	luas, _ := fs.Glob(luahealth.FS, "*/*/health.lua")
	dirs := make([][2]string, 0, len(luas))
	for _, p := range luas {
		group, kind, _ := strings.Cut(path.Dir(p), "/")
		dirs = append(dirs, [2]string{group, kind})
	}
	sort.Slice(dirs, func(i, j int) bool {
		if dirs[i][0] != dirs[j][0] {
			return dirs[i][0] < dirs[j][0]
		}
		return dirs[i][1] < dirs[j][1]
	})
	out := make([]string, len(dirs))
	for i, d := range dirs {
		out[i] = d[1]
	}
	return out
}

// Load reads every <group>/<Kind>/ directory of fsys that holds a health.lua,
// sorted by group and kind.
func Load(fsys fs.FS) ([]Check, error) {
	luas, err := fs.Glob(fsys, "*/*/health.lua")
	if err != nil {
		return nil, fmt.Errorf("list health checks: %w", err)
	}
	if len(luas) == 0 {
		return nil, errors.New("no <group>/<Kind>/health.lua found")
	}
	checks := make([]Check, 0, len(luas))
	for _, p := range luas {
		c, err := loadCheck(fsys, path.Dir(p))
		if err != nil {
			return nil, err
		}
		checks = append(checks, c)
	}
	sort.Slice(checks, func(i, j int) bool {
		if checks[i].Group != checks[j].Group {
			return checks[i].Group < checks[j].Group
		}
		return checks[i].Kind < checks[j].Kind
	})
	return checks, nil
}

func loadCheck(fsys fs.FS, dir string) (Check, error) {
	group, kind, _ := strings.Cut(dir, "/")
	c := Check{Group: group, Kind: kind, Dir: dir}
	lua, err := fs.ReadFile(fsys, path.Join(dir, "health.lua"))
	if err != nil {
		return c, fmt.Errorf("read check: %w", err)
	}
	c.Lua = string(lua)
	celPath := path.Join(dir, "health.cel.yaml")
	celBytes, err := fs.ReadFile(fsys, celPath)
	if err != nil {
		return c, fmt.Errorf("read CEL twin (every health.lua needs a health.cel.yaml beside it): %w", err)
	}
	if err := yaml.UnmarshalStrict(celBytes, &c.CEL); err != nil {
		return c, fmt.Errorf("%s: %w", celPath, err)
	}
	if gv := strings.SplitN(c.CEL.APIVersion, "/", 2); gv[0] != group || c.CEL.Kind != kind {
		return c, fmt.Errorf("%s: apiVersion %q, kind %q do not match the directory %s", celPath, c.CEL.APIVersion, c.CEL.Kind, dir)
	}
	testPath := path.Join(dir, "health_test.yaml")
	testBytes, err := fs.ReadFile(fsys, testPath)
	if err != nil {
		return c, fmt.Errorf("read test table: %w", err)
	}
	var table struct {
		Tests []TestCase `json:"tests"`
	}
	if err := yaml.UnmarshalStrict(testBytes, &table); err != nil {
		return c, fmt.Errorf("%s: %w", testPath, err)
	}
	c.Tests = table.Tests
	return c, nil
}

// Find returns the check for a group and kind.
func Find(checks []Check, group, kind string) (Check, bool) {
	for _, c := range checks {
		if c.Group == group && c.Kind == kind {
			return c, true
		}
	}
	return Check{}, false
}
