package analysis

import "fmt"

// Settings are the user's adjustments to what analyzers report (from
// .routeguard.yaml or the CMP's plugin env).
type Settings struct {
	// Severity overrides the default severity of a code.
	Severity map[string]Severity
	// Suppress drops findings matching any entry.
	Suppress []Suppression
}

// Suppression drops findings whose code and object match. Code and Object
// are globs: '*' matches any run of characters (including '/'), '?' one.
// Object is matched against "Kind ns/name" (or "Kind name"); empty matches all.
type Suppression struct {
	Code   string
	Object string
	Reason string
}

// Matches reports whether f is suppressed by s.
func (s Suppression) Matches(f Finding) bool {
	if !Glob(s.Code, f.Code) {
		return false
	}
	return s.Object == "" || Glob(s.Object, f.Object.String())
}

// Validate checks that every code named is in the catalog (or an Istio
// IST code, or a glob) and that severities are valid.
func (s Settings) Validate() error {
	for code, sev := range s.Severity {
		if _, ok := LookupCode(code); !ok && !isForeignCode(code) {
			return fmt.Errorf("severity override for unknown code %q; see docs/analysis.md for the catalog", code)
		}
		if sev < SeverityInfo || sev > SeverityError {
			return fmt.Errorf("severity override for %s is invalid", code)
		}
	}
	for i, sup := range s.Suppress {
		if sup.Code == "" {
			return fmt.Errorf("suppression %d names no code; give a code (globs like RG1* allowed)", i+1)
		}
	}
	return nil
}

// isForeignCode reports whether code belongs to another catalog whose codes
// routeguard passes through unchanged: Istio's IST codes and the codes
// plugins declare (internal/pluginhost refuses a plugin's finding whose code
// the plugin did not declare). RG codes must be in routeguard's catalog.
func isForeignCode(code string) bool {
	return len(code) > 2 && code[:2] != "RG"
}

// Glob matches name against pattern, where '*' matches any run of
// characters and '?' matches one character.
func Glob(pattern, name string) bool {
	px, nx := 0, 0
	nextPx, nextNx := 0, 0
	for px < len(pattern) || nx < len(name) {
		if px < len(pattern) {
			switch c := pattern[px]; c {
			case '*':
				nextPx, nextNx = px, nx+1
				px++
				continue
			case '?':
				if nx < len(name) {
					px++
					nx++
					continue
				}
			default:
				if nx < len(name) && name[nx] == c {
					px++
					nx++
					continue
				}
			}
		}
		if 0 < nextNx && nextNx <= len(name) {
			px, nx = nextPx, nextNx
			continue
		}
		return false
	}
	return true
}
