package pluginhost

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
	// always: the catalog runs it for every app.
	always bool
}

// SumsFile is the checksum file of a plugin directory (`sha256sum *`).
const SumsFile = "SHA256SUMS"

// Specs resolves the plugins to run: those of the operator's catalog (cat,
// read from catFile; relative paths are relative to its directory) that
// are marked always or that the repository's selection (sel, from selFile)
// names, with the selection's config, timeout and onError. A selected name
// the catalog lacks becomes a refused spec: the plugin is not installed
// here, and the selection's onError says whether that fails the run.
func Specs(cat *config.Plugins, catFile string, sel *config.Plugins, selFile string) ([]Spec, error) {
	all, err := catalogSpecs(cat, catFile)
	if err != nil {
		return nil, err
	}
	if sel == nil {
		sel = &config.Plugins{}
	}
	selected := map[string]*config.Plugin{}
	for i := range sel.Items {
		selected[sel.Items[i].Name] = &sel.Items[i]
	}
	var out []Spec
	inCatalog := map[string]bool{}
	for _, sp := range all {
		inCatalog[sp.Name] = true
		it, chosen := selected[sp.Name]
		if !chosen && !sp.always {
			continue
		}
		if chosen {
			if it.Config != nil {
				sp.Config = it.Config
			}
			if it.Timeout != "" || sel.Timeout != "" {
				sp.Timeout = sel.TimeoutOf(it)
			}
			if it.OnError != "" || sel.OnError != "" {
				sp.FailRun = sel.FailsOnError(it)
			}
		}
		out = append(out, sp)
	}
	for _, it := range sel.Items {
		if inCatalog[it.Name] {
			continue
		}
		where := "no plugin catalog is configured (--plugins or ROUTEGUARD_PLUGINS)"
		if catFile != "" {
			where = "the plugin catalog " + catFile + " does not list it"
		}
		out = append(out, Spec{Name: it.Name, Analyzer: "plugin." + it.Name, Timeout: sel.TimeoutOf(&it), FailRun: sel.FailsOnError(&it),
			Refused: fmt.Errorf("%s selects plugin %s, which is not installed here: %s", selFile, it.Name, where)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// catalogSpecs resolves every plugin of the catalog.
func catalogSpecs(p *config.Plugins, file string) ([]Spec, error) {
	if p == nil {
		return nil, nil
	}
	base := filepath.Dir(file)
	abs := func(path string) string {
		if filepath.IsAbs(path) {
			return filepath.Clean(path)
		}
		return filepath.Join(base, filepath.FromSlash(path))
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
			Config: it.Config, Timeout: p.TimeoutOf(it), FailRun: p.FailsOnError(it), always: it.Always})
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
			s.Config, s.always = it.Config, it.Always
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
