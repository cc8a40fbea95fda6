package render

import (
	"fmt"
	"path/filepath"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/routeguard/routeguard/internal/printable"
)

// Kustomize refuses to load a kustomization directory that is, or
// contains, one it is already loading ("cycle detected: candidate root
// 'a' contains visited root 'a'"), and its message wraps each level in
// "is a directory, not a file". cycleChain explains such a failure: it
// follows the directories listed in resources, bases and components from
// the app's kustomization through the repository, as Kustomize does, and
// names the chain that leads back.

// cycleStep is one kustomization on the way: its file, and the entry
// (with its line and field) that leads to the next directory.
type cycleStep struct {
	dir, file, entry, field string
	line                    int
}

// cycleChain returns "a/kustomization.yaml:2 (resources: ../b) → b/kustomization.yaml:2
// (resources: ../a), which is a/ again", or "" when no cycle is found.
func cycleChain(r *root, appDir string) string {
	var stack []cycleStep
	done := map[string]bool{}
	var found string
	var walk func(dir string) bool
	walk = func(dir string) bool {
		file, m := readKustomization(r, dir)
		if m == nil {
			return false
		}
		stack = append(stack, cycleStep{dir: dir, file: file})
		defer func() { stack = stack[:len(stack)-1] }()
		var next []cycleStep
		_ = loadedPaths(m, func(n *yaml.Node, field string) error {
			if (field == "resources" || field == "bases" || field == "components") && !isRemoteRef(n.Value) {
				next = append(next, cycleStep{entry: n.Value, field: field, line: n.Line})
			}
			return nil
		})
		for _, s := range next {
			target, err := r.resolve(filepath.Join(dir, s.entry))
			if err != nil {
				continue
			}
			if fi, err := r.Stat(target); err != nil || !fi.IsDir() {
				continue
			}
			top := &stack[len(stack)-1]
			top.entry, top.field, top.line = s.entry, s.field, s.line
			for _, on := range stack {
				if within(on.dir, target) { // target is, or contains, a directory being loaded
					found = describeCycle(r, stack, target, on.dir)
					return true
				}
			}
			if !done[target] && walk(target) {
				return true
			}
		}
		done[dir] = true
		return false
	}
	walk(appDir)
	return found
}

// readKustomization parses the kustomization file of dir through the root.
func readKustomization(r *root, dir string) (string, *yaml.Node) {
	for _, name := range kustomizationFileNames {
		p := filepath.Join(dir, name)
		data, err := r.readFile(p, r.maxFileBytes())
		if err != nil {
			continue
		}
		var doc yaml.Node
		if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
			return "", nil
		}
		return p, doc.Content[0]
	}
	return "", nil
}

func describeCycle(r *root, stack []cycleStep, target, visited string) string {
	var parts []string
	for _, s := range stack {
		parts = append(parts, fmt.Sprintf("%s:%d (%s: %s)", r.rel(s.file), s.line, s.field, printable.Line(printable.Cut(s.entry, 200))))
	}
	end := "which is " + r.rel(visited) + " again"
	if target != visited {
		end = fmt.Sprintf("which is %s, a directory that contains %s", r.rel(target), r.rel(visited))
	}
	return strings.Join(parts, " → ") + ", " + end
}
