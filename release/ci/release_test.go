package ci

import (
	"archive/tar"
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
