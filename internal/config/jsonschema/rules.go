package jsonschema

// rules are the value rules of config.Validate that the Go types alone do
// not state, keyed by "Type.Field" (merged into the field's schema) or
// "Type" (merged into the type's). TestSchemaAgreesWithParse checks each
// against config.Parse, so the two cannot drift apart unnoticed; rules
// that only Validate can state (weights adding up to 100) stay there. Keys
// of the operator's plugin catalog (scope:"catalog") are not in the schema:
// a repository may not set them.
var rules = map[string]object{
	"Config.FailOn":   {"enum": []any{"error", "warning", "never"}},
	"Config.Severity": {"additionalProperties": object{"enum": []any{"error", "warning", "info"}}},

	"Suppression":      {"required": []any{"code"}},
	"Suppression.Code": {"minLength": 1},

	"ContextPath":      {"required": []any{"path"}},
	"ContextPath.Path": repoPath,

	"Plugins.OnError": onError,
	"Plugins.Timeout": duration,
	"Plugins.Istio":   {"enum": []any{"auto", "off"}},

	"Plugin":         {"required": []any{"name"}},
	"Plugin.Name":    {"pattern": "^[a-z][a-z0-9-]{0,62}$"},
	"Plugin.OnError": onError,
	"Plugin.Timeout": duration,

	"Transforms.Weights": {"additionalProperties": object{
		"minProperties":        1,
		"additionalProperties": object{"minimum": 0, "maximum": 100},
	}},
}

// scalarForms are the other YAML forms of types that decode themselves.
var scalarForms = map[string]object{
	// `- apps/frontend` is short for `- path: apps/frontend`.
	"ContextPath": merged(object{"type": "string", "description": "The app's path from the repository root."}, repoPath),
}

var (
	onError = object{"enum": []any{"fail", "warn"}}
	// A Go duration ("20s", "1m30s"); Validate also rejects zero.
	duration = object{"pattern": `^([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h)(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))*$`}
	// Relative to the repository root and inside it.
	repoPath = object{"minLength": 1, "not": object{"pattern": `^(/|\.\.(/|$))`}}
)

func merged(a, b object) object {
	out := object{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
