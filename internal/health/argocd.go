package health

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/routing"
)

// TestedArgoCDVersion is the Argo CD release whose code compat/argocd runs
// routeguard's artifacts through, and the default of `health bundle
// --argocd-version`.
const TestedArgoCDVersion = "3.5.7"

// LatestKnownArgoCDVersion is the newest Argo CD release whose built-in
// health checks routing.Kinds records (Health.ArgoCDSince; read from its source; v3.6 needs
// Go 1.27, so compat/argocd cannot build it).
const LatestKnownArgoCDVersion = "3.6.1"

// ArgoCDVersion is an Argo CD release, as major and minor.
type ArgoCDVersion struct {
	Major, Minor int
}

func (v ArgoCDVersion) String() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// atLeast reports whether v is major.minor or later.
func (v ArgoCDVersion) atLeast(major, minor int) bool {
	return v.Major > major || v.Major == major && v.Minor >= minor
}

var argoCDVersionRE = regexp.MustCompile(`^v?([0-9]+)\.([0-9]+)(\.[0-9]+)?(-[0-9A-Za-z.-]+)?$`)

// ParseArgoCDVersion reads "3.5", "v3.5.7" or "3.6.0-rc2".
func ParseArgoCDVersion(s string) (ArgoCDVersion, error) {
	m := argoCDVersionRE.FindStringSubmatch(s)
	if m == nil {
		return ArgoCDVersion{}, fmt.Errorf("Argo CD version %q: want a release such as 3.5 or v3.5.7", s)
	}
	major, err1 := strconv.Atoi(m[1])
	minor, err2 := strconv.Atoi(m[2])
	if err1 != nil || err2 != nil || major < 1 {
		return ArgoCDVersion{}, fmt.Errorf("Argo CD version %q: want a release such as 3.5 or v3.5.7", s)
	}
	return ArgoCDVersion{Major: major, Minor: minor}, nil
}

// ArgoCDSelection is the outcome of SelectForArgoCD.
type ArgoCDSelection struct {
	// Version is the Argo CD release selected for.
	Version ArgoCDVersion
	// Bundle holds the checks to put into argocd-cm.
	Bundle []Check
	// LeftOut holds the checks left out because the Argo CD version has a
	// built-in check for the kind (empty with overrideBuiltin).
	LeftOut []Check
	// Overridden holds the checks bundled although Argo CD has a built-in
	// check for the kind (overrideBuiltin): argocd-cm keys replace built-ins.
	Overridden []Check
	// Untested is set when the version is newer than TestedArgoCDVersion.
	Untested bool
	// Unknown is set when the version is newer than LatestKnownArgoCDVersion:
	// its built-in checks are assumed to be those of that release.
	Unknown bool
}

// SelectForArgoCD picks the checks to bundle for an Argo CD version. Keys in
// argocd-cm replace Argo CD's built-in checks, so by default a kind the
// version already covers is left out; overrideBuiltin bundles it anyway.
func SelectForArgoCD(checks []Check, version string, overrideBuiltin bool) (ArgoCDSelection, error) {
	v, err := ParseArgoCDVersion(version)
	if err != nil {
		return ArgoCDSelection{}, err
	}
	tested, err := ParseArgoCDVersion(TestedArgoCDVersion)
	if err != nil {
		return ArgoCDSelection{}, err
	}
	known, err := ParseArgoCDVersion(LatestKnownArgoCDVersion)
	if err != nil {
		return ArgoCDSelection{}, err
	}
	sel := ArgoCDSelection{Version: v}
	sel.Untested = !tested.atLeast(v.Major, v.Minor) // v is newer than the tested release
	sel.Unknown = !known.atLeast(v.Major, v.Minor)
	for _, c := range sorted(checks) {
		if !ArgoCDHasBuiltin(v, c.Group, c.Kind) {
			sel.Bundle = append(sel.Bundle, c)
			continue
		}
		if overrideBuiltin {
			sel.Bundle = append(sel.Bundle, c)
			sel.Overridden = append(sel.Overridden, c)
		} else {
			sel.LeftOut = append(sel.LeftOut, c)
		}
	}
	return sel, nil
}

// ArgoCDHasBuiltin reports whether Argo CD version v ships a built-in health
// check for group/kind, among the kinds routeguard has checks for
// (routing.Kinds: Health.ArgoCDSince).
func ArgoCDHasBuiltin(v ArgoCDVersion, group, kind string) bool {
	k, ok := routing.Lookup(manifest.GroupKind{Group: group, Kind: kind})
	if !ok || k.Health == nil || k.Health.ArgoCDSince == "" {
		return false
	}
	since, err := ParseArgoCDVersion(k.Health.ArgoCDSince)
	return err == nil && v.atLeast(since.Major, since.Minor)
}

// Notices are what `health bundle --for argocd` says on stderr about the
// selection, one line each; none when every check is bundled for a version
// without built-in checks of these kinds.
func (s ArgoCDSelection) Notices() []string {
	var out []string
	if len(s.LeftOut) > 0 {
		out = append(out, fmt.Sprintf("left out %s: Argo CD %s has built-in health checks for them (--override-builtin bundles routeguard's instead; docs/health.md lists where they differ)",
			dirs(s.LeftOut), s.Version))
	}
	if len(s.Overridden) > 0 {
		out = append(out, fmt.Sprintf("bundled %s: these argocd-cm keys replace Argo CD %s's built-in health checks", dirs(s.Overridden), s.Version))
	}
	switch {
	case s.Unknown:
		out = append(out, fmt.Sprintf("Argo CD %s is newer than %s, the newest release whose built-in health checks routeguard knows: assuming they are those of %s (routeguard is tested against %s)",
			s.Version, LatestKnownArgoCDVersion, LatestKnownArgoCDVersion, TestedArgoCDVersion))
	case s.Untested:
		out = append(out, fmt.Sprintf("Argo CD %s is newer than %s, the release routeguard is tested against (its built-in health checks are known from its source)",
			s.Version, TestedArgoCDVersion))
	}
	return out
}

func dirs(checks []Check) string {
	names := make([]string, len(checks))
	for i, c := range checks {
		names[i] = c.Group + "/" + c.Kind
	}
	return strings.Join(names, ", ")
}
