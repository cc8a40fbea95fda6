package bundle

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
)

// Locate finds the modules' versions (as go.mod requires them) and their
// directories in the module cache, downloading them through the module
// proxy when they are not there yet. dir is a directory of the main module.
func Locate(dir string) (gatewayAPI, istio Source, err error) {
	srcs := make([]Source, 2)
	for i, mod := range []string{GatewayAPIModule, IstioModule} {
		if out, err := goCmd(dir, "mod", "download", mod); err != nil {
			return Source{}, Source{}, fmt.Errorf("go mod download %s: %w: %s", mod, err, out)
		}
		out, err := goCmd(dir, "list", "-m", "-f", "{{.Version}} {{.Dir}}", mod)
		if err != nil {
			return Source{}, Source{}, fmt.Errorf("go list -m %s: %w: %s", mod, err, out)
		}
		version, d, ok := strings.Cut(strings.TrimSpace(out), " ")
		if !ok || d == "" {
			return Source{}, Source{}, fmt.Errorf("module %s is not in the module cache (go list printed %q)", mod, out)
		}
		srcs[i] = Source{Module: mod, Version: version, Dir: d}
	}
	return srcs[0], srcs[1], nil
}

func goCmd(dir string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}
