package jsonschema

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	yaml "go.yaml.in/yaml/v3"

	"github.com/routeguard/routeguard/internal/config"
)

var update = flag.Bool("update", false, "rewrite schema/routeguard.schema.json")

const (
	repoRoot   = "../../.."
	schemaFile = "schema/routeguard.schema.json"
)

// TestSchemaIsCurrent keeps the committed schema equal to what the Go
// types generate.
func TestSchemaIsCurrent(t *testing.T) {
	got, err := Generate("..")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(repoRoot, schemaFile)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run `make schema`)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what internal/config's types generate; run `make schema`", schemaFile)
	}
}

func compile(t *testing.T) *jsonschema.Schema {
	t.Helper()
	data, err := Generate("..")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(ID, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(ID)
	if err != nil {
		t.Fatalf("the schema does not compile: %v", err)
	}
	return s
}

func validate(t *testing.T, s *jsonschema.Schema, name string, data []byte) error {
	t.Helper()
	// YAML 1.2 (yaml.v3), as config.Parse and yaml-language-server read it.
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	js, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s.Validate(inst)
}

// TestSchemaAgreesWithParse runs the same documents through the schema
// and through config.Parse. They must agree, except where the schema is
// knowingly looser (rules only Validate can state).
func TestSchemaAgreesWithParse(t *testing.T) {
	s := compile(t)
	sha := strings.Repeat("0a", 32)
	tests := []struct {
		name  string
		doc   string
		valid bool
		// looser: the schema accepts what Parse rejects.
		looser bool
	}{
		{name: "empty", doc: "{}", valid: true},
		{name: "failOn", doc: "failOn: warning", valid: true},
		{name: "failOn unknown", doc: "failOn: fatal"},
		{name: "unknown key", doc: "failon: error"},
		{name: "severity", doc: "severity: {RG4002: info}", valid: true},
		{name: "severity unknown", doc: "severity: {RG4002: critical}"},
		{name: "suppress", doc: "suppress: [{code: RG1*, object: 'Secret shop/*', reason: sealed}]", valid: true},
		{name: "suppress without code", doc: "suppress: [{object: x}]"},
		{name: "suppress empty code", doc: "suppress: [{code: ''}]"},
		{name: "suppress unknown key", doc: "suppress: [{code: RG1, objekt: x}]"},
		{name: "contextPaths both forms", doc: "contextPaths: [apps/a, {path: apps/b, namespace: n, release: r, values: [v.yaml], recurse: true}]", valid: true},
		{name: "contextPath absolute", doc: "contextPaths: [/etc]"},
		{name: "contextPath outside", doc: "contextPaths: [../x]"},
		{name: "contextPath outside, mapping", doc: "contextPaths: [{path: ..}]"},
		{name: "contextPath without path", doc: "contextPaths: [{namespace: n}]"},
		{name: "contextPath unknown key", doc: "contextPaths: [{path: a, namespaces: n}]"},
		{name: "plugins", doc: "plugins: {onError: warn, timeout: 1m30s, istio: 'off'}", valid: true},
		{name: "plugins dir (catalog only)", doc: "plugins: {dir: tools}"},
		{name: "plugins insecureSkipVerify (catalog only)", doc: "plugins: {insecureSkipVerify: true}"},
		{name: "plugins timeout", doc: "plugins: {timeout: soon}"},
		{name: "plugins timeout zero", doc: "plugins: {timeout: 0s}", looser: true},
		{name: "plugins istio", doc: "plugins: {istio: 'on'}"},
		{name: "plugins onError", doc: "plugins: {onError: ignore}"},
		{name: "plugin item", doc: "plugins: {items: [{name: team-hosts, config: {a: 1}, onError: fail, timeout: 5s}]}", valid: true},
		{name: "plugin path (catalog only)", doc: "plugins: {items: [{name: team-hosts, path: tools/th, sha256: " + sha + "}]}"},
		{name: "plugin name", doc: "plugins: {items: [{name: Team}]}"},
		{name: "plugin without name", doc: "plugins: {items: [{onError: warn}]}"},
		{name: "weights", doc: "transforms: {weights: {reviews: {blue: 90, green: 10}}, syncWaves: true}", valid: true},
		{name: "weight over 100", doc: "transforms: {weights: {reviews: {blue: 120, green: -20}}}"},
		{name: "weights of no backend", doc: "transforms: {weights: {reviews: {}}}"},
		{name: "weights not adding up", doc: "transforms: {weights: {reviews: {blue: 90, green: 5}}}", looser: true},
		{name: "syncWaves type", doc: "transforms: {syncWaves: [x]}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			schemaErr := validate(t, s, tt.name, []byte(tt.doc))
			_, parseErr := config.Parse("x.yaml", []byte(tt.doc))
			if (parseErr == nil) != tt.valid {
				t.Fatalf("config.Parse: error %v, want valid=%v (fix the test table)", parseErr, tt.valid)
			}
			wantSchemaOK := tt.valid || tt.looser
			if (schemaErr == nil) != wantSchemaOK {
				t.Errorf("schema: error %v, want valid=%v (config.Parse: %v)", schemaErr, wantSchemaOK, parseErr)
			}
		})
	}
}

var modelineRE = regexp.MustCompile(`(?m)^# yaml-language-server: \$schema=(\S+)$`)

// TestExamples: every .routeguard.yaml of the examples names the schema
// in a modeline that resolves to the committed file, and is valid.
func TestExamples(t *testing.T) {
	s := compile(t)
	var files []string
	err := filepath.WalkDir(filepath.Join(repoRoot, "examples"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (d.Name() == ".routeguard.yaml" || d.Name() == ".routeguard.yml") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// (the routing apps' three and the Flux cluster's)
	if len(files) < 4 {
		t.Fatalf("found %d example configs, want at least 4: %v", len(files), files)
	}
	want, err := filepath.Abs(filepath.Join(repoRoot, schemaFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m := modelineRE.FindSubmatch(data)
		if m == nil {
			t.Errorf("%s: no `# yaml-language-server: $schema=` modeline", f)
		} else if got, _ := filepath.Abs(filepath.Join(filepath.Dir(f), string(m[1]))); got != want {
			t.Errorf("%s: modeline points at %s, want the relative path of %s", f, m[1], schemaFile)
		}
		if err := validate(t, s, f, data); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestREADMEExample: the README's annotated example is valid too.
func TestREADMEExample(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(data), "## `.routeguard.yaml`")
	_, block, ok := strings.Cut(rest, "```yaml\n")
	if !ok {
		t.Fatal("README has no .routeguard.yaml example")
	}
	block, _, _ = strings.Cut(block, "```")
	if err := validate(t, compile(t), "README.md", []byte(block)); err != nil {
		t.Errorf("README example: %v", err)
	}
}
