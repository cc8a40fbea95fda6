package testbed

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// RepoRoot is the routeguard checkout the test bed runs from (the directory
// holding e2e/tools/build.sh above the working directory).
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "e2e", "tools", "build.sh")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no routeguard checkout (e2e/tools/build.sh) above %s", dir)
		}
	}
}

var toolDirs sync.Map // tool -> string

// ToolDir returns the directory holding the binaries of tool module
// e2e/tools/TOOL: $ROUTEGUARD_E2E_<TOOL>_BIN when set (TOOL upper-cased,
// '-' as '_': ROUTEGUARD_E2E_ARGOCD_TOOLS_BIN; the Makefile sets them), else
// what build.sh prints (it builds them when its cache misses).
func ToolDir(tool string) (string, error) {
	if d, ok := toolDirs.Load(tool); ok {
		return d.(string), nil
	}
	env := "ROUTEGUARD_E2E_" + strings.ToUpper(strings.ReplaceAll(tool, "-", "_")) + "_BIN"
	if d := os.Getenv(env); d != "" {
		toolDirs.Store(tool, d)
		return d, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	cmd := exec.Command(filepath.Join(root, "e2e", "tools", "build.sh"), tool)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("e2e/tools/build.sh %s: %w\n%s", tool, err, stderr.String())
	}
	d := strings.TrimSpace(stdout.String())
	toolDirs.Store(tool, d)
	return d, nil
}

// Tool returns the path of one binary of a tool module.
func Tool(tool, name string) (string, error) {
	d, err := ToolDir(tool)
	if err != nil {
		return "", err
	}
	p := filepath.Join(d, name)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("%s binary %s: %w", tool, name, err)
	}
	return p, nil
}

// ModuleDir is the module cache directory of module mod in the build list of
// tool module e2e/tools/TOOL (where the CRDs its controllers ship live).
func ModuleDir(tool, mod string) (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", mod)
	cmd.Dir = filepath.Join(root, "e2e", "tools", tool)
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go list -m %s (in e2e/tools/%s): %w\n%s", mod, tool, err, stderr.String())
	}
	d := strings.TrimSpace(string(out))
	if d == "" {
		return "", fmt.Errorf("module %s is not in the module cache (go mod download in e2e/tools/%s)", mod, tool)
	}
	return d, nil
}

var routeguardBin = sync.OnceValues(func() (string, error) {
	if p := os.Getenv("ROUTEGUARD_BIN"); p != "" {
		return p, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	out := filepath.Join(root, "bin", "routeguard")
	cmd := exec.Command("go", "build", "-o", out, "./cmd/routeguard")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/routeguard: %w\n%s", err, b)
	}
	return out, nil
})

// Routeguard is the routeguard binary under test: $ROUTEGUARD_BIN, else
// bin/routeguard built from the checkout.
func Routeguard() (string, error) { return routeguardBin() }
