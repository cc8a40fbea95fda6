package analysis

import (
	"fmt"
	"strings"

	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/routing"
)

// IsRouting reports whether objects of gk route traffic and are checked
// (routing.Checked): the kinds routeguard exists to check.
func IsRouting(gk manifest.GroupKind) bool { return routing.IsChecked(gk) }

// NothingChecked returns an RG0100 finding about what (the object or path
// a tree build started from, at src) when set holds no object at all, or
// no routing object, so that a run which checked nothing cannot pass as
// clean. Tree builds (routeguard flux build, the Argo CD repository build)
// add it to analysis.RunOptions.Prior; ok is false when set holds routing
// objects.
func NothingChecked(set *manifest.Set, what ObjectRef, src manifest.Source, notBuilt int) (Finding, bool) {
	detail, ok := NothingCheckedDetail(set, notBuilt)
	if !ok {
		return Finding{}, false
	}
	return Finding{Code: CodeNothingChecked, Object: what, Source: src, Analyzer: "build"}.Fill(NothingCheckedArgs(detail, NothingToCheck)...), true
}

// NothingCheckedDetail says what set holds, for the message of
// NothingChecked's finding: " (it produced 12 objects; ...)"; ok is false
// when set holds routing objects.
func NothingCheckedDetail(set *manifest.Set, notBuilt int) (detail string, ok bool) {
	n := 0
	if set != nil {
		for _, o := range set.Objects() {
			if IsRouting(o.GroupKind()) {
				return "", false
			}
			n++
		}
	}
	held := []string{"it produced no objects"}
	if n > 0 {
		held[0] = "it produced 1 object"
		if n > 1 {
			held[0] = fmt.Sprintf("it produced %d objects", n)
		}
	}
	if set != nil {
		if u := routing.UncheckedIn(set); u != "" {
			held = append(held, "it holds "+u+", which routeguard does not check")
		}
	}
	if notBuilt > 0 {
		if notBuilt == 1 {
			held = append(held, "1 object of the tree was skipped or failed to build")
		} else {
			held = append(held, fmt.Sprintf("%d objects of the tree were skipped or failed to build", notBuilt))
		}
	}
	return " (" + strings.Join(held, "; ") + ")", true
}

// NothingToCheck is the verdict of an RG0100 finding that says nothing
// more.
const NothingToCheck = "so there was nothing to check"

// NothingCheckedArgs are the template arguments of a tree build's RG0100
// finding (Finding.Fill): what the build holds (detail, as NothingChecked
// wrote it) and the verdict.
func NothingCheckedArgs(detail, verdict string) []any {
	return []any{"the build", detail, verdict}
}
