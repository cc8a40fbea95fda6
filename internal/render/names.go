package render

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/routeguard/routeguard/internal/apiserver"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/printable"
)

// CheckNames refuses a rendered object whose name the API server refuses
// for its kind (apiserver.ObjectName: slashes, control characters, upper
// case, 100,000 characters): it would render, and fail only at the sync.
// A name holding a Flux variable reference (${VAR}) is left to Flux's
// substitution.
func CheckNames(objs []*manifest.Object) error {
	for _, o := range objs {
		md, _ := o.Body["metadata"].(map[string]any)
		name, _ := md["name"].(string)
		field, prefix := "metadata.name", false
		if name == "" {
			name, _ = md["generateName"].(string)
			field, prefix = "metadata.generateName", true
		}
		msgs := apiserver.ObjectName(schema.GroupKind{Group: o.Group(), Kind: o.Kind}, name, prefix)
		if len(msgs) == 0 {
			continue
		}
		kind := printable.Line(printable.Cut(o.Kind, 60))
		return fmt.Errorf("%s: %s \"%s\": %s is not a name the API server accepts for a %s: %s; rename the object",
			o.FieldSource(field), kind, printable.Line(printable.Cut(name, 80)), field, kind, printable.Cut(msgs[0], 300))
	}
	return nil
}
