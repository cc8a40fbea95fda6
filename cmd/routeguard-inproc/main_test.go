package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/synth"
)

// On the benchmark's synthetic repository (the 1,000-object size) every
// injected dangling reference is an error, and nothing else is: no
// "subset selects no pods" for the services whose workloads are not
// rendered, and none either when they are.
func TestPipelineFindsEveryInjectedReference(t *testing.T) {
	for _, workloads := range []bool{false, true} {
		opts := synth.Options{Dangling: 5, Seed: 3, Workloads: workloads}
		opts.Services = synth.ForObjects(1000, opts)
		repo, err := synth.Generate(opts)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "repo")
		if err := repo.Write(dir); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		if code := run(context.Background(), []string{dir}, true, &out, &errb); code != 1 {
			t.Fatalf("exit %d, want 1 (errors found); stderr %s", code, errb.String())
		}
		injected := map[string]bool{}
		for _, r := range repo.Injected {
			injected[r.String()] = false
		}
		codes := map[string]int{}
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			// file:line CODE severity Kind ns/name: message
			f := strings.SplitN(line, " ", 6)
			if len(f) < 6 || f[2] != "error" {
				continue
			}
			codes[f[1]]++
			obj := f[3] + " " + strings.TrimSuffix(f[4], ":")
			if _, ok := injected[obj]; !ok {
				t.Errorf("workloads=%v: error on an object without an injected reference: %s", workloads, line)
			}
			injected[obj] = true
		}
		for obj, found := range injected {
			if !found {
				t.Errorf("workloads=%v: injected dangling reference in %s not reported", workloads, obj)
			}
		}
		if codes["IST0101"] == 0 || codes["IST0173"] != 0 {
			t.Errorf("workloads=%v: error codes %v; want Istio's IST0101 and no IST0173", workloads, codes)
		}
	}
}
