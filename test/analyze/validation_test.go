package analyze

import (
	"strconv"
	"strings"
	"testing"
)

// TestValidationFlags runs the validation analyzers as a user does: the
// finding points at the field's line; --crd-dir supplies the cluster's
// CRDs; --kube-version (or KUBE_VERSION) decides which built-in versions
// exist; a bad value is a usage error.
func TestValidationFlags(t *testing.T) {
	const oldRoute = "examples/broken/api-version"
	const oldIngress = "test/analyze/testdata/old-ingress"
	tests := []struct {
		name     string
		env      []string
		args     []string
		wantCode int
		want     []string // "CODE severity line"
	}{
		{name: "bundled CRDs: v1alpha2 HTTPRoute not served, at its apiVersion line", args: []string{oldRoute},
			wantCode: 1, want: []string{"RG5003 error 30"}},
		{name: "the cluster's CRDs serve it", args: []string{oldRoute, "--crd-dir", "test/analyze/testdata/cluster-crds"}, wantCode: 0},
		{name: "kube version unknown: removed Ingress version is a warning", args: []string{oldIngress}, wantCode: 0, want: []string{"RG5003 warning 1"}},
		{name: "--kube-version 1.25: an error", args: []string{oldIngress, "--kube-version", "1.25.3"}, wantCode: 1, want: []string{"RG5003 error 1"}},
		{name: "KUBE_VERSION 1.21: deprecated, still served", env: []string{"KUBE_VERSION=v1.21.0"}, args: []string{oldIngress}, wantCode: 0, want: []string{"RG5004 warning 1"}},
		{name: "bad channel", args: []string{oldRoute, "--gateway-api-channel", "beta"}, wantCode: 2},
		{name: "missing CRD directory", args: []string{oldRoute, "--crd-dir", "test/analyze/testdata/nope"}, wantCode: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fs, code, stderr := analyzeEnv(t, tc.env, tc.args...)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tc.wantCode, stderr)
			}
			if code == 2 {
				if !strings.Contains(stderr, "--") {
					t.Errorf("usage error does not name the flag: %s", stderr)
				}
				return
			}
			var got []string
			for _, f := range fs {
				if strings.HasPrefix(f.Code, "RG5") {
					got = append(got, f.Code+" "+f.Severity+" "+strconv.Itoa(f.Line))
				}
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("validation findings %v, want %v", got, tc.want)
			}
		})
	}
}
