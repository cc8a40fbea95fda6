package analysis

import (
	"fmt"

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
	n := 0
	if set != nil {
		for _, o := range set.Objects() {
			if IsRouting(o.GroupKind()) {
				return Finding{}, false
			}
			n++
		}
	}
	msg := "the build produced no objects"
	if n > 0 {
		msg = fmt.Sprintf("the build produced %d objects and not one routing object (Ingress, Gateway API Gateway or route, Istio VirtualService, Gateway, DestinationRule or ServiceEntry)", n)
	}
	if set != nil {
		if u := routing.UncheckedIn(set); u != "" {
			msg += "; it holds " + u + ", which routeguard does not check"
		}
	}
	if notBuilt > 0 {
		msg += fmt.Sprintf("; %d objects of the tree were skipped or failed to build", notBuilt)
	}
	msg += ", so there was nothing to check; check the path and the skipped sources, or set " + CodeNothingChecked + " to info in .routeguard.yaml where that is expected"
	return Finding{Code: CodeNothingChecked, Message: msg, Object: what, Source: src, Analyzer: "build"}, true
}
