package ci

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// The binaries the fake release serves: the real ones, from `make build`
// (ROUTEGUARD_BIN, with routeguard-istio beside it), else built here.
var (
	binOnce sync.Once
	binDir  string
	binErr  error
)

func binaries(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		if b := os.Getenv("ROUTEGUARD_BIN"); b != "" {
			binDir = filepath.Dir(b)
			return
		}
		binDir, binErr = os.MkdirTemp("", "routeguard-ci-test-")
		if binErr != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", binDir+string(filepath.Separator), "./cmd/routeguard", "./cmd/routeguard-istio")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("building routeguard (or set ROUTEGUARD_BIN): %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	for _, n := range []string{"routeguard", "routeguard-istio"} {
		if _, err := os.Stat(filepath.Join(binDir, n)); err != nil {
			t.Fatalf("%v (ROUTEGUARD_BIN must have routeguard-istio beside it: make build)", err)
		}
	}
	return binDir
}

const releaseVersion = "0.1.0"

// archiveName is the archive GoReleaser names for this machine.
func archiveName() string {
	return fmt.Sprintf("routeguard_%s_%s_%s.tar.gz", releaseVersion, runtime.GOOS, runtime.GOARCH)
}

var (
	archiveOnce sync.Once
	archiveData []byte
	archiveErr  error
)

// releaseArchive packs the binaries as GoReleaser's archive does.
func releaseArchive(t *testing.T) []byte {
	t.Helper()
	dir := binaries(t)
	archiveOnce.Do(func() {
		f, err := os.CreateTemp("", "routeguard-archive-*.tar.gz")
		if err != nil {
			archiveErr = err
			return
		}
		defer os.Remove(f.Name())
		zw, _ := gzip.NewWriterLevel(f, gzip.BestSpeed)
		tw := tar.NewWriter(zw)
		for _, n := range []string{"README.md", "routeguard", "routeguard-istio"} {
			src := filepath.Join(dir, n)
			if n == "README.md" {
				src = filepath.Join(root, n)
			}
			data, err := os.ReadFile(src)
			if err != nil {
				archiveErr = err
				return
			}
			if err := tw.WriteHeader(&tar.Header{Name: n, Mode: 0o755, Size: int64(len(data))}); err != nil {
				archiveErr = err
				return
			}
			if _, err := tw.Write(data); err != nil {
				archiveErr = err
				return
			}
		}
		if archiveErr = tw.Close(); archiveErr == nil {
			archiveErr = zw.Close()
		}
		if archiveErr == nil {
			f.Close()
			archiveData, archiveErr = os.ReadFile(f.Name())
		}
	})
	if archiveErr != nil {
		t.Fatal(archiveErr)
	}
	return archiveData
}

// serveRelease serves v<releaseVersion> as GitHub's release downloads do:
// <url>/v0.1.0/<archive> and <url>/v0.1.0/checksums.txt. With tamper, the
// checksum of the archive is wrong.
func serveRelease(t *testing.T, tamper bool) string {
	t.Helper()
	archive := releaseArchive(t)
	sum := sha256.Sum256(archive)
	if tamper {
		sum[0] ^= 0xff
	}
	checksums := fmt.Sprintf("%x  %s\n%x  routeguard_%s_plan9_amd64.tar.gz\n", sum, archiveName(), sha256.Sum256(nil), releaseVersion)
	mux := http.NewServeMux()
	mux.HandleFunc("/v"+releaseVersion+"/"+archiveName(), func(w http.ResponseWriter, _ *http.Request) { w.Write(archive) })
	mux.HandleFunc("/v"+releaseVersion+"/checksums.txt", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, checksums) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// routeguardExit runs the real routeguard as the integrations do and
// returns its exit code and stdout: the oracle for what they report.
func routeguardExit(t *testing.T, dir string, args ...string) (int, []byte) {
	t.Helper()
	cmd := exec.Command(filepath.Join(binaries(t), "routeguard"), args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, out
}

// serveWrappedRelease serves v<releaseVersion> whose routeguard is script,
// a shell script that runs the real routeguard, whose path it finds in
// $REAL: the tests' probe for what the integrations hand routeguard (its
// environment) and for what they do with output larger than the real
// writers print. routeguard-istio is a script running the real one.
func serveWrappedRelease(t *testing.T, script string) string {
	t.Helper()
	dir := binaries(t)
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"routeguard":       "#!/bin/sh\nREAL='" + filepath.Join(abs, "routeguard") + "'\n" + script,
		"routeguard-istio": "#!/bin/sh\nexec '" + filepath.Join(abs, "routeguard-istio") + "' \"$@\"\n",
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, n := range []string{"routeguard", "routeguard-istio"} {
		if err := tw.WriteHeader(&tar.Header{Name: n, Mode: 0o755, Size: int64(len(files[n]))}); err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(tw, files[n]); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	archive := buf.Bytes()
	checksums := fmt.Sprintf("%x  %s\n", sha256.Sum256(archive), archiveName())
	mux := http.NewServeMux()
	mux.HandleFunc("/v"+releaseVersion+"/"+archiveName(), func(w http.ResponseWriter, _ *http.Request) { w.Write(archive) })
	mux.HandleFunc("/v"+releaseVersion+"/checksums.txt", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, checksums) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// envProbe is a wrapper script (serveWrappedRelease) that appends the
// environment of every routeguard command but `version` (which reads no
// repository) to file, then runs the real one.
func envProbe(file string) string {
	return "case \"$1\" in version) ;; *) env >> '" + file + "' ;; esac\nexec \"$REAL\" \"$@\"\n"
}

// markdownPadding is a wrapper script (serveWrappedRelease) whose
// `-o markdown` output is the real one followed by file: a review larger
// than any comment or note may be.
func markdownPadding(file string) string {
	return "case \" $* \" in *\" -o markdown \"*) \"$REAL\" \"$@\"; code=$?; cat '" + file + "'; exit $code ;; esac\nexec \"$REAL\" \"$@\"\n"
}

// newProject is a project directory holding a copy of the examples, a git
// work tree whose first commit has them all (a diff's base revision).
func newProject(t *testing.T) string {
	t.Helper()
	project := t.TempDir()
	if err := os.CopyFS(filepath.Join(project, "examples"), os.DirFS(filepath.Join(root, "examples"))); err != nil {
		t.Fatal(err)
	}
	gitIn(t, project, "init", "-q")
	gitIn(t, project, "add", "-A")
	gitIn(t, project, "commit", "-q", "-m", "base")
	return project
}

// gitOut runs git in dir and returns its stdout.
func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}
