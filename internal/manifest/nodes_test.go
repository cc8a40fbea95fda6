package manifest

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// realNodes counts the nodes yaml.v3 builds for each document of data.
func realNodes(t *testing.T, data []byte) []int {
	t.Helper()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var out []int
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		out = append(out, countNodes(&n)-1) // without the document node
	}
}

func countNodes(n *yaml.Node) int {
	total := 1
	for _, c := range n.Content {
		total += countNodes(c)
	}
	return total
}

func scanNodes(data []byte) []int {
	var s nodeScan
	var out []int
	_ = s.run(data, func(doc, line, nodes int) error {
		out = append(out, nodes)
		return nil
	})
	return out
}

// The scan's estimate stays within a factor of the nodes the decoder
// builds, on every YAML file of the repository's examples and test data
// and on shapes written for it: it may not refuse a real manifest for
// being what it is, nor miss a file of tiny nodes.
func TestNodeScanEstimates(t *testing.T) {
	samples := map[string]string{
		"block map":        "a: 1\nb:\n  c: [1, 2, {d: e}]\n  f: \"q: #x\"\n  g: 'it''s'\n",
		"block scalar":     "a: |\n  line: 1\n  - b: c\n  # not a comment\nb: >-\n  folded\n  - x\nc: d\n",
		"sequences":        "- a\n- - b\n  - c\n- {x: 1, y: [2, 3]}\n- \n-\n",
		"multiline quoted": "a: \"one\n  two: three\n  - four\"\nb: 'x\n  y: z'\n",
		"anchors":          "a: &x {b: 1}\nc: *x\nd: !!str 5\ne: !tag [f]\n",
		"documents":        "---\na: 1\n---\n- b\n...\n---\nc: {d: e}\n",
		"flow":             "[a, b, [c, d], {e: f, g: h}, \"i,j\", 'k]']\n",
		"comments":         "# a: b\na: b # c: d\n# - e\n",
		"plain with dash":  "a: -1\nb: x-y\nc: ?q\nd:\n- not: [a list]\n",
	}
	err := filepath.WalkDir("../..", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if ext := filepath.Ext(p); ext != ".yaml" && ext != ".yml" || !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err == nil && validYAML(data) && !bytes.Contains(data, []byte("{{")) {
			samples[p] = string(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) < 200 {
		t.Fatalf("only %d YAML files found", len(samples))
	}
	for name, data := range samples {
		real, est := realNodes(t, []byte(data)), scanNodes([]byte(data))
		rt, et := sum(real), sum(est)
		if et < rt/2 || et > 3*rt+4 {
			t.Errorf("%s: the scan estimates %d nodes (%v), the decoder builds %d (%v)", name, et, est, rt, real)
		}
	}
}

func validYAML(data []byte) bool {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return true
		}
		if err != nil {
			return false
		}
	}
}

func sum(v []int) int {
	n := 0
	for _, x := range v {
		n += x
	}
	return n
}

// Files of tiny nodes are refused before they are decoded, naming the
// document; a large file of ordinary objects is not.
func TestDecodeRefusesTooManyNodes(t *testing.T) {
	head := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"
	for name, data := range map[string]string{
		"block sequence": head + "items:\n" + strings.Repeat("- a\n", 1_100_000),
		"flow sequence":  head + "items: [" + strings.Repeat("a,", 1_100_000) + "]\n",
		"empty lists":    head + "items: [" + strings.Repeat("[],", 1_100_000) + "]\n",
		"second doc":     head + "---\n" + head + "items: [" + strings.Repeat("a,", 1_100_000) + "]\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Decode("big.yaml", []byte(data))
			if err == nil || !strings.Contains(err.Error(), "big.yaml:") || !strings.Contains(err.Error(), "YAML nodes, more than the 1000000") {
				t.Fatalf("error %v", err)
			}
		})
	}
	var many strings.Builder
	for i := 0; many.Len() < 4<<20; i++ {
		many.WriteString("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-" + strings.Repeat("x", i%7) + "\n  namespace: default\ndata:\n  a: b\n")
	}
	if _, err := Decode("many.yaml", []byte(many.String())); err != nil && strings.Contains(err.Error(), "YAML nodes") {
		t.Fatalf("4 MiB of small objects refused: %v", err)
	}
}
