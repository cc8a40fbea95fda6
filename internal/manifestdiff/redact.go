package manifestdiff

import (
	"encoding/base64"
	"fmt"
)

// Redaction: a core Secret's values never reach the review. As Argo CD
// does (gitops-engine's diff.HideSecretData), stringData is first folded
// into data (base64, as the API server stores it), then every value of
// data is replaced by pluses: the first distinct value of a key, base
// first, by "++++++++", each other one by four more, so a value that
// changed shows as a changed line (++++++++ → ++++++++++++) and one that
// did not as the same line. The annotation kubectl writes with the whole
// object (last-applied-configuration) is replaced the same way. Nothing
// but a core v1 Secret is redacted.

const replacement = "++++++++"

const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// isSecret reports whether the object is a core Secret.
func isSecret(group, kind string) bool { return group == "" && kind == "Secret" }

// redactSecrets redacts base and head (copies; either nil for an object
// added or removed) in place.
func redactSecrets(base, head map[string]any) {
	for _, b := range []map[string]any{base, head} {
		if b != nil {
			foldStringData(b)
		}
	}
	hide(base, head, "data")
	hide(base, head, "metadata", "annotations")
}

// foldStringData moves stringData into data, as the API server does.
func foldStringData(body map[string]any) {
	sd, ok := body["stringData"].(map[string]any)
	if !ok {
		return
	}
	data, _ := body["data"].(map[string]any)
	if data == nil {
		data = map[string]any{}
	}
	for k, v := range sd {
		if s, ok := v.(string); ok {
			data[k] = base64.StdEncoding.EncodeToString([]byte(s))
		} else {
			data[k] = v
		}
	}
	body["data"] = data
	delete(body, "stringData")
}

// hide replaces the values of the map at path in both bodies; under
// metadata.annotations only last-applied-configuration.
func hide(base, head map[string]any, path ...string) {
	maps := [2]map[string]any{nested(base, path), nested(head, path)}
	keys := map[string]bool{}
	for _, m := range maps {
		for k := range m {
			if path[0] == "data" || k == lastApplied {
				keys[k] = true
			}
		}
	}
	for k := range keys {
		next := replacement
		seen := map[string]string{}
		for _, m := range maps {
			v, ok := m[k]
			if !ok {
				continue
			}
			s := valueString(v)
			r, ok := seen[s]
			if !ok {
				r = next
				next += "++++"
				seen[s] = r
			}
			m[k] = r
		}
	}
}

func nested(body map[string]any, path []string) map[string]any {
	var cur any = body
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[p]
	}
	m, _ := cur.(map[string]any)
	return m
}

func valueString(v any) string {
	if v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprintf("%T:%v", v, v)
}
