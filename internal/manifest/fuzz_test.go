package manifest

import (
	"errors"
	"testing"
)

// FuzzDecode: any bytes decode to objects or to an error naming the file;
// never a panic. `go test` runs the seeds; `make fuzz` explores.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
		"---\n---\napiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Service, metadata: {name: s}}\n",
		"a: &a [x, x]\nb: &b [*a, *a]\n",
		"{\"apiVersion\": \"v1\", \"kind\": \"Secret\", \"metadata\": {\"name\": \"s\"}}",
		"kind: [\n", "\t- x", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {on: yes, 0x1f: 017}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, err := Decode("fuzz.yaml", data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.File != "fuzz.yaml" {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, o := range objs {
			if o.Kind == "" || o.Source.File != "fuzz.yaml" {
				t.Fatalf("object %+v without kind or source", o.Source)
			}
		}
	})
}
