package plugins

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/routeguard/routeguard/internal/config"
)

// Spec is one plugin to run, resolved from the configuration.
type Spec struct {
	Name     string // the user's name for it ("team-hosts")
	Analyzer string // the analyzer name findings carry ("plugin.team-hosts")
	Path     string // absolute path of the binary
	// SHA256 is the pinned checksum; "" only when Verify is false.
	SHA256 string
	// Verify is false for insecureSkipVerify and for the first-party
	// Istio plugin (trusted like the routeguard binary beside it).
	Verify  bool
	Config  map[string]any
	Timeout time.Duration
	// FailRun makes a failure of this plugin fail the run.
	FailRun bool
	// FirstParty plugins may declare RG and IST codes.
	FirstParty bool
	// Refused, when set, is why the plugin may not run (e.g. a plugin of
	// dir that SHA256SUMS does not pin); the refusal is its failure.
	Refused error
}

// SumsFile is the checksum file of a plugin directory (`sha256sum *`).
const SumsFile = "SHA256SUMS"

// Specs resolves the plugins the configuration declares. file names the
// configuration in errors; relative paths are relative to repoRoot.
func Specs(p *config.Plugins, file, repoRoot string) ([]Spec, error) {
	if p == nil {
		return nil, nil
	}
	abs := func(path string) string {
		if filepath.IsAbs(path) {
			return filepath.Clean(path)
		}
		return filepath.Join(repoRoot, filepath.FromSlash(path))
	}
	byName := map[string]*config.Plugin{}
	var out []Spec
	for i := range p.Items {
		it := &p.Items[i]
		byName[it.Name] = it
		if it.Path == "" {
			continue
		}
		out = append(out, Spec{Name: it.Name, Path: abs(it.Path), SHA256: it.SHA256, Verify: !p.InsecureSkipVerify,
			Config: it.Config, Timeout: p.TimeoutOf(it), FailRun: p.FailsOnError(it)})
	}
	if p.Dir != "" {
		dirSpecs, err := dirSpecs(p, abs(p.Dir), byName)
		if err != nil {
			return nil, fmt.Errorf("%s: plugins.dir: %w", file, err)
		}
		out = append(out, dirSpecs...)
	}
	seen := map[string]bool{}
	for i := range out {
		if seen[out[i].Name] {
			return nil, fmt.Errorf("%s: plugin %s is both declared with a path and found in plugins.dir; rename one", file, out[i].Name)
		}
		seen[out[i].Name] = true
		out[i].Analyzer = "plugin." + out[i].Name
	}
	for name, it := range byName {
		if it.Path == "" && !seen[name] {
			return nil, fmt.Errorf("%s: plugin %s has no path and is not in plugins.dir %s", file, name, p.Dir)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// dirSpecs lists the executables of dir, pinned by dir's SHA256SUMS.
func dirSpecs(p *config.Plugins, dir string, byName map[string]*config.Plugin) ([]Spec, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	sums, err := readSums(filepath.Join(dir, SumsFile))
	if err != nil && !(errors.Is(err, fs.ErrNotExist) && p.InsecureSkipVerify) {
		if errors.Is(err, fs.ErrNotExist) {
			err = fmt.Errorf("%s has no %s; create it with `sha256sum * > %s` in that directory", dir, SumsFile, SumsFile)
		}
		return nil, err
	}
	var out []Spec
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || name == SumsFile || strings.HasPrefix(name, ".") {
			continue
		}
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() || info.Mode().Perm()&0o111 == 0 {
			continue
		}
		it := byName[name]
		s := Spec{Name: name, Path: filepath.Join(dir, name), SHA256: sums[name], Verify: !p.InsecureSkipVerify,
			Timeout: p.TimeoutOf(it), FailRun: p.FailsOnError(it)}
		if it != nil {
			s.Config = it.Config
		}
		if s.Verify && s.SHA256 == "" {
			s.Refused = fmt.Errorf("refused to run %s: %s does not list it; add its checksum (`sha256sum %s >> %s`)",
				s.Path, SumsFile, name, SumsFile)
		}
		out = append(out, s)
	}
	return out, nil
}

// readSums parses sha256sum output: "<hex>  <name>" or "<hex> *<name>".
func readSums(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		sum, name, ok := strings.Cut(line, " ")
		name = strings.TrimPrefix(strings.TrimSpace(name), "*")
		if !ok || len(sum) != 64 || name == "" || strings.ContainsAny(name, `/\`) {
			return nil, fmt.Errorf("%s:%d: want `<sha256>  <file name>`", path, n)
		}
		out[name] = strings.ToLower(sum)
	}
	return out, nil
}
