package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"path/filepath"
	"strconv"

	"github.com/routeguard/routeguard/internal/analysis"
)

// fingerprints identify findings across runs: GitLab code quality's
// fingerprint and SARIF's partialFingerprints, by which the merge request
// widget and code scanning tell a finding already known from a new one.
//
// A fingerprint hashes the finding's code, the identity of its object (API
// group, kind, namespace, name), the Application it is found in, its file,
// and, when its message was made from its code's template, the template's
// typed arguments (Finding.Args), not the message: rewording a template
// keeps every alert open. A finding whose message was written some other
// way (Istio's, a plugin's, a build error's) hashes its message instead.
// The line is left out, so moving an object does not make its findings
// new; two findings that would hash alike (the same code, object, file and
// arguments at two lines) are told apart by their order: the second gets
// the hash of the first and "#1", and so on.
type fingerprints map[string]int

// next returns f's fingerprint: fingerprintOf(f), told apart from the
// findings before it that hashed alike.
func (seen fingerprints) next(f analysis.Finding) string {
	base := fingerprintOf(f)
	n := seen[base]
	seen[base] = n + 1
	if n == 0 {
		return base
	}
	h := sha256.New()
	field(h, base)
	field(h, "#"+strconv.Itoa(n))
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// fingerprintOf is the fingerprint of f alone (see fingerprints).
func fingerprintOf(f analysis.Finding) string {
	h := sha256.New()
	field(h, "routeguard-finding/2")
	field(h, f.Code)
	field(h, f.Object.Group())
	field(h, f.Object.Kind)
	field(h, f.Object.Namespace)
	field(h, f.Object.Name)
	field(h, f.App)
	field(h, filepath.ToSlash(f.Source.File))
	if f.Args == nil {
		field(h, "message")
		field(h, f.Message)
	} else {
		field(h, "args")
		for _, a := range f.Args {
			switch v := a.(type) {
			case string:
				field(h, "s"+v)
			case int:
				field(h, "i"+strconv.Itoa(v))
			default: // Message refuses these; hashed all the same
				field(h, fmt.Sprintf("%T %v", v, v))
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// field writes s to h length-first, so that no two sequences of fields
// write the same bytes.
func field(h hash.Hash, s string) {
	fmt.Fprintf(h, "%d:%s", len(s), s)
}
