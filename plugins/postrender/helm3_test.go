package postrender_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestHelm3Contract runs routeguard postrender as a separate process, the
// way Helm 3 runs a --post-renderer executable: manifests on stdin,
// manifests on stdout, a non-zero exit and an empty stdout on failure.
func TestHelm3Contract(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir()) // no .routeguard.yaml applies
	in := "# Source: app/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  host: api.${domain}\n"
	run := func(args ...string) (string, string, int) {
		cmd := exec.Command(self, append([]string{"postrender"}, args...)...)
		cmd.Env = append(os.Environ(), runAsCLI+"=1")
		cmd.Stdin = strings.NewReader(in)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), errb.String(), code
	}
	stdout, stderr, code := run("--var", "domain=shop.example.com")
	if code != 0 || !strings.Contains(stdout, "host: api.shop.example.com") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	stdout, stderr, code = run("--var", "other=1")
	if code == 0 || stdout != "" || !strings.Contains(stderr, `variable not set (strict mode): "domain"`) {
		t.Fatalf("strict failure: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
