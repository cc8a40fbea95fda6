package golden

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/synth"
)

// TestValidationVerdicts10k records every RG5xxx finding (the API server's
// validation) on the repository of scripts/bench-analyze.sh at 10,000
// objects, with the broken apps of the validation classes written into it
// (the synthetic objects are all valid: a faster validation that rejected
// one, or accepted a broken one, changes the file). The performance work
// on validation keeps it byte-identical; examples/ and test/corpus are
// TestGolden's.
func TestValidationVerdicts10k(t *testing.T) {
	opts := synth.Options{Dangling: 50, Seed: 1}
	opts.Services = synth.ForObjects(10000, opts)
	repo, err := synth.Generate(opts)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "synth-10k")
	if err := repo.Write(dir); err != nil {
		t.Fatal(err)
	}
	for _, app := range []string{"route-schema", "route-rules", "builtin-objects", "api-version"} {
		data, err := os.ReadFile(filepath.Join(repoRoot, "examples", "broken", app, "app.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "zz-broken-"+app+".yaml"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	recordInputs()
	cmd := exec.Command(binary, "analyze", "-o", "json", dir)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "TMPDIR=" + t.TempDir()}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatal(err)
		}
	}
	var doc struct {
		Findings []struct {
			Code, Severity, Message, File string
			Line                          int
			Object                        struct{ Kind, Namespace, Name string }
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("not a JSON report: %v\nstderr: %s", err, stderr.String())
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# RG5xxx findings of routeguard analyze on internal/synth's %d objects plus examples/broken/{route-schema,route-rules,builtin-objects,api-version}\n", repo.Objects)
	total := 0
	for _, f := range doc.Findings {
		if !strings.HasPrefix(f.Code, "RG5") {
			continue
		}
		total++
		fmt.Fprintf(&b, "%s %s %s:%d %s %s/%s: %s\n", f.Code, f.Severity, filepath.Base(f.File), f.Line, f.Object.Kind, f.Object.Namespace, f.Object.Name, f.Message)
	}
	fmt.Fprintf(&b, "# %d findings, %d of them RG5xxx\n", len(doc.Findings), total)
	got := []byte(b.String())
	file := filepath.Join("verdicts", "synth-10k-rg5.txt") // not in testdata: TestGolden -update keeps only its own files there
	if *update {
		os.MkdirAll(filepath.Dir(file), 0o755)
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (go test ./test/golden -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("RG5xxx findings on 10,000 objects changed:\n%s", lineDiff(string(want), string(got)))
	}
}
