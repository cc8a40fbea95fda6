package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/release/modproxy"
)

// TestGoInstall proves the command the README gives users:
//
//	go install github.com/routeguard/routeguard/cmd/routeguard@VERSION github.com/routeguard/routeguard/cmd/routeguard-istio@VERSION
//
// Both modules of the work tree are served at their versions from a
// file-based module proxy, ahead of the module cache's downloads (no
// network: GOPROXY has no remote entry, GOSUMDB is off and every other
// module is checked against the main module's go.sum); the module cache
// is a fresh one, and no go.work applies.
func TestGoInstall(t *testing.T) {
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	sdk, err := modproxy.SDK(abs)
	if err != nil {
		t.Fatal(err)
	}
	const version = "v0.1.0"
	tmp := t.TempDir()
	proxy := filepath.Join(tmp, "proxy")
	if err := modproxy.Write(proxy, sdk, modproxy.Main(abs, version)); err != nil {
		t.Fatal(err)
	}
	downloads, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	gobin := filepath.Join(tmp, "bin")
	env := append(os.Environ(),
		"GOPROXY=file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(filepath.Join(strings.TrimSpace(string(downloads)), "cache", "download")),
		"GOSUMDB=off", "GONOSUMDB=", "GOPRIVATE=", "GOFLAGS=-trimpath -modcacherw", "GOWORK=off", "GOTOOLCHAIN=local",
		"GOMODCACHE="+filepath.Join(tmp, "mod"), "GOBIN="+gobin, "CGO_ENABLED=0")
	cmd := exec.Command("go", "install", modproxy.MainPath+"/cmd/routeguard@"+version, modproxy.MainPath+"/cmd/routeguard-istio@"+version)
	cmd.Dir, cmd.Env = tmp, env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install: %v\n%s", err, out)
	}
	want := "routeguard " + version + " " + runtime.GOOS + "/" + runtime.GOARCH + " " + runtime.Version()
	if got := versionLine(t, filepath.Join(gobin, "routeguard")); got != want {
		t.Errorf("version = %q, want %q", got, want)
	}
	// routeguard finds the go-installed routeguard-istio beside itself.
	an := exec.Command(filepath.Join(gobin, "routeguard"), "analyze", "examples/apps/routing/istio")
	an.Dir = abs
	an.Env = []string{"PATH=/nonexistent", "HOME=" + t.TempDir()}
	var stderr bytes.Buffer
	an.Stderr = &stderr
	if err := an.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatal(err)
		}
	}
	if strings.Contains(stderr.String(), "routeguard-istio is neither beside routeguard nor on PATH") {
		t.Errorf("routeguard does not find the installed routeguard-istio:\n%s", stderr.String())
	}

}
