package modproxy

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
)

// MainPath and SDKPath are the module paths of routeguard and of its
// plugin SDK (plugins/sdk, its own module).
const (
	MainPath = "github.com/routeguard/routeguard"
	SDKPath  = MainPath + "/plugins/sdk"
)

// SDK returns the plugin SDK module of the checkout at root, at the version
// the main module's go.mod requires. It fails when go.mod still replaces
// the SDK or requires it at no release version: `go install
// .../cmd/routeguard@VERSION` refuses replace directives, and a user's
// go command can only fetch a tagged SDK.
func SDK(root string) (Module, error) {
	gomod := filepath.Join(root, "go.mod")
	data, err := os.ReadFile(gomod)
	if err != nil {
		return Module{}, err
	}
	f, err := modfile.Parse(gomod, data, nil)
	if err != nil {
		return Module{}, err
	}
	if f.Module == nil || f.Module.Mod.Path != MainPath {
		return Module{}, fmt.Errorf("%s is not the go.mod of %s", gomod, MainPath)
	}
	for _, r := range f.Replace {
		return Module{}, fmt.Errorf("%s:%d: replace %s: `go install %s/cmd/routeguard@VERSION` refuses modules with replace directives; use go.work for local development",
			gomod, r.Syntax.Start.Line, r.Old.Path, MainPath)
	}
	for _, r := range f.Require {
		if r.Mod.Path != SDKPath {
			continue
		}
		v := r.Mod.Version
		if !semver.IsValid(v) || module.IsPseudoVersion(v) || semver.Build(v) != "" {
			return Module{}, fmt.Errorf("%s:%d: %s is required at %s; require the release version the SDK is (or will be) tagged as, plugins/sdk/vX.Y.Z",
				gomod, r.Syntax.Start.Line, SDKPath, v)
		}
		return Module{Path: SDKPath, Version: v, Dir: filepath.Join(root, "plugins", "sdk")}, nil
	}
	return Module{}, fmt.Errorf("%s does not require %s", gomod, SDKPath)
}

// Main returns the main module of the checkout at root, served as version.
func Main(root, version string) Module {
	return Module{Path: MainPath, Version: version, Dir: root}
}
