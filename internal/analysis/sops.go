package analysis

import "github.com/routeguard/routeguard/internal/manifest"

// SOPSEncrypted reports whether o is a SOPS-encrypted manifest as kept in
// Git: a top-level sops map with the file's MAC. kustomize-controller
// (spec.decryption.provider: sops), ksops and helm-secrets decrypt it and
// drop the sops field before anything reaches the API server, so that
// field is not a typo and its values are not in plain text.
func SOPSEncrypted(o *manifest.Object) bool {
	m, ok := o.Body["sops"].(map[string]any)
	if !ok {
		return false
	}
	_, mac := m["mac"]
	_, modified := m["lastmodified"]
	return mac || modified
}
