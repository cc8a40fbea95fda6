package apiserver

import (
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/client-go/kubernetes/scheme"
)

var strictDecoder = sync.OnceValue(func() runtime.Decoder {
	return kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme.Scheme, scheme.Scheme, kjson.SerializerOptions{Strict: true})
})

// DecodeBuiltin decodes body, an object of a built-in kind that
// ValidateBuiltin does not validate, strictly into its Go type, as the API
// server's decoder does first: unknown and duplicate fields, values of the
// wrong type. ok is false when routeguard does not know the kind.
func DecodeBuiltin(body map[string]any) (res *Result, ok bool, err error) {
	apiVersion, _ := body["apiVersion"].(string)
	kind, _ := body["kind"].(string)
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil || !scheme.Scheme.Recognizes(gv.WithKind(kind)) {
		return nil, false, nil
	}
	data, release, err := encodeJSON(body)
	if err != nil {
		return nil, true, fmt.Errorf("encoding the object as JSON: %w", err)
	}
	defer release()
	res = &Result{}
	if _, _, err := strictDecoder().Decode(data, nil, nil); err != nil {
		strictErr, isStrict := runtime.AsStrictDecodingError(err)
		if !isStrict {
			res.Violations = append(res.Violations, decodeViolation(err))
			return res, true, nil
		}
		for _, e := range strictErr.Errors() {
			res.Violations = append(res.Violations, strictViolation(e))
		}
	}
	return res, true, nil
}
