package modproxy

import (
	"archive/zip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

const root = "../.."

// TestGoSumPinsTheSDKTree keeps go.sum honest: go.mod requires the plugin
// SDK at a release version, and `go install .../cmd/routeguard@VERSION`
// checks the SDK it downloads against the hash in go.sum. If plugins/sdk
// changes, that hash must change with it (and, once the version is tagged,
// the version too).
func TestGoSumPinsTheSDKTree(t *testing.T) {
	sdk, err := SDK(root)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Sum(sdk)
	if err != nil {
		t.Fatal(err)
	}
	gosum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(want), "\n") {
		if !strings.Contains(string(gosum), line+"\n") {
			t.Errorf("go.sum lacks %q: plugins/sdk is not what go.sum records for %s.\n"+
				"Run `make sdk-sum`; if %s is already tagged, first give the SDK a new version (docs/releasing.md).", line, sdk, sdk.Version)
		}
	}
}

func TestSDKRequirement(t *testing.T) {
	tests := []struct {
		name    string
		gomod   string
		wantErr string
		want    string
	}{
		{name: "release version", gomod: "module " + MainPath + "\n\nrequire " + SDKPath + " v0.3.1\n", want: "v0.3.1"},
		{name: "replace directive", gomod: "module " + MainPath + "\n\nrequire " + SDKPath + " v0.3.1\n\nreplace " + SDKPath + " => ./plugins/sdk\n",
			wantErr: "go.mod:5: replace " + SDKPath},
		{name: "placeholder version", gomod: "module " + MainPath + "\n\nrequire " + SDKPath + " v0.0.0-00010101000000-000000000000\n",
			wantErr: "go.mod:3: " + SDKPath + " is required at v0.0.0-00010101000000-000000000000"},
		{name: "not required", gomod: "module " + MainPath + "\n", wantErr: "does not require " + SDKPath},
		{name: "another module", gomod: "module example.com/x\n", wantErr: "is not the go.mod of " + MainPath},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(tt.gomod), 0o644); err != nil {
				t.Fatal(err)
			}
			m, err := SDK(dir)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("SDK() error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if m.Version != tt.want || m.Path != SDKPath || m.Dir != filepath.Join(dir, "plugins", "sdk") {
				t.Errorf("SDK() = %+v", m)
			}
		})
	}
}

// TestWriteServesBothModules checks the proxy layout and what each zip
// holds: the main module without its nested modules (the SDK, compat,
// release).
func TestWriteServesBothModules(t *testing.T) {
	sdk, err := SDK(root)
	if err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mainMod := Main(abs, "v0.9.0")
	if err := Write(dir, sdk, mainMod); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		m         Module
		must      []string
		mustNotIn []string // path prefixes
	}{
		{m: mainMod, must: []string{"go.mod", "go.sum", "cmd/routeguard/main.go", "internal/version/version.go"},
			mustNotIn: []string{"plugins/sdk/", "compat/argocd/", "release/", "bin/", ".tools/", ".git/"}},
		{m: sdk, must: []string{"go.mod", "serve.go"}},
	} {
		esc, _ := module.EscapePath(tc.m.Path)
		vdir := filepath.Join(dir, filepath.FromSlash(esc), "@v")
		for _, f := range []string{"list", tc.m.Version + ".info", tc.m.Version + ".mod", tc.m.Version + ".zip"} {
			if _, err := os.Stat(filepath.Join(vdir, f)); err != nil {
				t.Errorf("%s: %v", tc.m, err)
			}
		}
		names := zipNames(t, tc.m, filepath.Join(vdir, tc.m.Version+".zip"))
		for _, n := range tc.must {
			if !names[n] {
				t.Errorf("%s zip lacks %s", tc.m, n)
			}
		}
		for n := range names {
			for _, p := range tc.mustNotIn {
				if strings.HasPrefix(n, p) {
					t.Errorf("%s zip holds %s", tc.m, n)
				}
			}
		}
	}
}

// TestFilesFollowGit: a module zip holds what a tag would hold, so ignored
// build outputs, nested modules and symlinks stay out, and untracked files
// that are not ignored (new, not yet committed work) are in.
func TestFilesFollowGit(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n\ngo 1.26\n")
	write(".gitignore", "/bin/\n")
	write("a.go", "package m\n")
	write("bin/m", "binary")
	write("sub/go.mod", "module example.com/m/sub\n")
	write("sub/s.go", "package sub\n")
	if err := os.Symlink("a.go", filepath.Join(dir, "link.go")); err != nil {
		t.Fatal(err)
	}
	git := exec.Command("git", "init", "-q")
	git.Dir = dir
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	write("new.go", "package m\n") // untracked, not ignored
	m := Module{Path: "example.com/m", Version: "v1.0.0", Dir: dir}
	zf := filepath.Join(t.TempDir(), "m.zip")
	f, err := os.Create(zf)
	if err != nil {
		t.Fatal(err)
	}
	if err := Zip(f, m); err != nil {
		t.Fatal(err)
	}
	f.Close()
	got := zipNames(t, m, zf)
	want := map[string]bool{"go.mod": true, ".gitignore": true, "a.go": true, "new.go": true}
	if len(got) != len(want) {
		t.Errorf("zip holds %v, want %v", got, want)
	}
	for n := range want {
		if !got[n] {
			t.Errorf("zip lacks %s (holds %v)", n, got)
		}
	}
}

func TestFilesNeedsGit(t *testing.T) {
	_, err := Files(Module{Path: "example.com/m", Version: "v1.0.0", Dir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "must be a git checkout") {
		t.Errorf("Files() outside git: error %v", err)
	}
}

func zipNames(t *testing.T, m Module, zf string) map[string]bool {
	t.Helper()
	if _, err := modzip.CheckZip(module.Version{Path: m.Path, Version: m.Version}, zf); err != nil {
		t.Errorf("%s: the go command would reject the zip: %v", m, err)
	}
	zr, err := zip.OpenReader(zf)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	names := map[string]bool{}
	for _, f := range zr.File {
		names[strings.TrimPrefix(f.Name, m.String()+"/")] = true
	}
	return names
}
