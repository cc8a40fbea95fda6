package e2e

import (
	"debug/buildinfo"
	"debug/elf"
	"debug/macho"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

const root = "../.."

// checkBinary checks that file is a static executable for goos/goarch,
// built -trimpath without cgo.
func checkBinary(t *testing.T, file, goos, goarch string) {
	t.Helper()
	switch goos {
	case "linux":
		f, err := elf.Open(file)
		if err != nil {
			t.Errorf("%s: %v", file, err)
			return
		}
		defer f.Close()
		want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[goarch]
		if f.Machine != want {
			t.Errorf("%s: machine %s, want %s", file, f.Machine, want)
		}
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				t.Errorf("%s: has a dynamic loader (PT_INTERP); it must be static", file)
			}
		}
		if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
			t.Errorf("%s: links %v", file, libs)
		}
	case "darwin":
		f, err := macho.Open(file)
		if err != nil {
			t.Errorf("%s: %v", file, err)
			return
		}
		defer f.Close()
		want := map[string]macho.Cpu{"amd64": macho.CpuAmd64, "arm64": macho.CpuArm64}[goarch]
		if f.Cpu != want {
			t.Errorf("%s: cpu %s, want %s", file, f.Cpu, want)
		}
	}
	bi, err := buildinfo.ReadFile(file)
	if err != nil {
		t.Errorf("%s: %v", file, err)
		return
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	if settings["-trimpath"] != "true" || settings["CGO_ENABLED"] != "0" || settings["GOOS"] != goos || settings["GOARCH"] != goarch {
		t.Errorf("%s: build settings %v", file, settings)
	}
}

// versionLine runs `routeguard version` when file runs on this machine.
func versionLine(t *testing.T, file string) string {
	t.Helper()
	out, err := exec.Command(file, "version").Output()
	if err != nil {
		t.Fatalf("%s version: %v", file, err)
	}
	return strings.TrimSpace(string(out))
}

func hostPlatform() (string, string) { return runtime.GOOS, runtime.GOARCH }

func mustEnv(t *testing.T, name, what string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		t.Fatalf("%s is not set: run `make test-release`, which builds %s first", name, what)
	}
	return v
}
