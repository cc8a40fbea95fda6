package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRunRefusesBadFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		code int
		want string
	}{
		{name: "no version", args: []string{"-out", "x"}, code: 1, want: "-version and -revision are required"},
		{name: "nowhere to write", args: []string{"-version", "v1.0.0", "-revision", "abc"}, code: 1, want: "give -out DIR, -push, or both"},
		{name: "archive without layout", args: []string{"-version", "v1.0.0", "-revision", "abc", "-push", "-archive", "a.tar"}, code: 1, want: "-archive needs -out"},
		{name: "floating base", args: []string{"-version", "v1.0.0", "-revision", "abc", "-out", "x", "-base", "alpine:3"}, code: 1, want: `-base "alpine:3": want local, distroless, oci:DIR or REF@sha256:...`},
		{name: "tag as base", args: []string{"-version", "v1.0.0", "-revision", "abc", "-out", "x", "-base", "gcr.io/distroless/static:nonroot@sha256:" + strings.Repeat("0", 63)}, code: 1, want: "base \"gcr.io/distroless/static:nonroot@sha256:"},
		{name: "missing layout", args: []string{"-version", "v1.0.0", "-revision", "abc", "-out", "x", "-base", "oci:/nonexistent"}, code: 1, want: "an OCI layout, e.g. from `crane pull --format=oci"},
		{name: "bad epoch", args: []string{"-version", "v1.0.0", "-revision", "abc", "-out", "x"}, env: map[string]string{"SOURCE_DATE_EPOCH": "yesterday"}, code: 1, want: `SOURCE_DATE_EPOCH="yesterday" is not a count of seconds`},
		{name: "bad tag", args: []string{"-version", "v1.0.0", "-revision", "abc", "-out", "x", "-tag", "ghcr.io/x/y:v1+z"}, code: 1, want: `-tag "ghcr.io/x/y:v1+z"`},
		{name: "stray argument", args: []string{"-version", "v1.0.0", "build"}, code: 2, want: `unexpected arguments ["build"]`},
		{name: "unknown flag", args: []string{"-platform", "linux/s390x"}, code: 2, want: "flag provided but not defined: -platform"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			getenv := func(k string) string { return tt.env[k] }
			code := run(context.Background(), tt.args, getenv, &stdout, &stderr)
			if code != tt.code || !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr.String(), tt.code, tt.want)
			}
		})
	}
}

func TestCreatedTime(t *testing.T) {
	for _, tt := range []struct {
		flag  int64
		epoch string
		want  time.Time
	}{
		{-1, "", time.Unix(0, 0)},
		{-1, "1700000000", time.Unix(1700000000, 0)},
		{42, "1700000000", time.Unix(42, 0)},
	} {
		got, err := createdTime(tt.flag, tt.epoch)
		if err != nil || !got.Equal(tt.want) || got.Location() != time.UTC {
			t.Errorf("createdTime(%d, %q) = %v, %v; want %v UTC", tt.flag, tt.epoch, got, err, tt.want)
		}
	}
}

// TestLayoutBaseName: a base from an OCI layout is named by the layout's
// ref.name annotation (as `crane pull --format=oci` writes it).
func TestLayoutBaseName(t *testing.T) {
	dir := t.TempDir()
	index := `{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.index.v1+json","digest":"sha256:` + strings.Repeat("a", 64) +
		`","size":1,"annotations":{"org.opencontainers.image.ref.name":"gcr.io/distroless/static-debian12:nonroot"}}]}`
	if err := os.WriteFile(filepath.Join(dir, "index.json"), []byte(index), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "oci-layout"), []byte(`{"imageLayoutVersion":"1.0.0"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := baseOf("oci:"+dir, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if b.Name() != "gcr.io/distroless/static-debian12:nonroot" {
		t.Errorf("name %q", b.Name())
	}
}
