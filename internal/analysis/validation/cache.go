package validation

import (
	"bytes"
	"encoding/json"
	"reflect"
	"unicode/utf8"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/apiserver"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/resultcache"
)

// cacheFormat names what an entry holds; a change of the key's parts or of
// apiserver.Result's encoding changes it (the build ID changes anyway).
const cacheFormat = "routeguard validation result v1"

// cached returns the validation result of o from the run's result cache,
// or computes it (and keeps it). The key holds what the result depends
// on: which check (kind of validation and, for a custom resource, the
// CRD's digest and the version), the target Kubernetes version, the
// namespace the object is created in and its body as JSON (map keys
// sorted; validation reads numbers as JSON gives them). An error and a nil
// result are never kept.
func cached(c *analysis.Context, o *manifest.Object, check []string, compute func() (*apiserver.Result, error)) (*apiserver.Result, error) {
	return lookup(c, o, check).result(c, compute)
}

// probe is one object's look-up in the result cache, made before its
// result is computed: a hit, or the key a computed result is kept under.
type probe struct {
	keyed bool // a cache is open and o's result can be kept
	key   resultcache.Key
	hit   *apiserver.Result
}

// lookup looks o's result for check up in the run's result cache.
func lookup(c *analysis.Context, o *manifest.Object, check []string) probe {
	rc := c.ResultCache()
	if rc == nil {
		return probe{}
	}
	// encoding/json writes invalid UTF-8 as U+FFFD: two bodies would share
	// the key, so such a body is validated each time.
	if !validUTF8(o.Body) {
		return probe{}
	}
	body, err := json.Marshal(o.Body)
	if err != nil {
		return probe{}
	}
	parts := [][]byte{[]byte(cacheFormat)}
	for _, p := range check {
		parts = append(parts, []byte(p))
	}
	parts = append(parts, []byte(c.Cluster().KubeVersion), []byte(c.Namespace(o)), body)
	pr := probe{keyed: true, key: resultcache.KeyOf(parts...)}
	if data, ok := rc.Get(pr.key); ok {
		if res, ok := decodeResult(data); ok {
			pr.hit = res
		}
	}
	return pr
}

// result returns the hit, or computes the result and keeps it.
func (pr probe) result(c *analysis.Context, compute func() (*apiserver.Result, error)) (*apiserver.Result, error) {
	if pr.hit != nil {
		return pr.hit, nil
	}
	res, err := compute()
	if err != nil || res == nil || !pr.keyed {
		return res, err
	}
	// Only a result that reads back as it is (no invalid UTF-8 in its
	// messages) is kept.
	if data, err := json.Marshal(res); err == nil {
		if back, ok := decodeResult(data); ok && reflect.DeepEqual(back, res) {
			c.ResultCache().Put(pr.key, data)
		}
	}
	return res, nil
}

// validUTF8 reports whether every string and map key of a JSON-like value
// is valid UTF-8.
func validUTF8(v any) bool {
	switch x := v.(type) {
	case string:
		return utf8.ValidString(x)
	case map[string]any:
		for k, e := range x {
			if !utf8.ValidString(k) || !validUTF8(e) {
				return false
			}
		}
	case []any:
		for _, e := range x {
			if !validUTF8(e) {
				return false
			}
		}
	case map[string]string:
		for k, e := range x {
			if !utf8.ValidString(k) || !utf8.ValidString(e) {
				return false
			}
		}
	case []string:
		for _, e := range x {
			if !utf8.ValidString(e) {
				return false
			}
		}
	}
	return true
}

// decodeResult reads a kept result; anything but exactly a Result's
// encoding is a miss.
func decodeResult(data []byte) (*apiserver.Result, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var res apiserver.Result
	if err := dec.Decode(&res); err != nil || dec.More() {
		return nil, false
	}
	return &res, true
}
