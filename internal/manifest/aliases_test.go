package manifest

import (
	"strings"
	"testing"
)

func TestCheckAliases(t *testing.T) {
	bomb := "a: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\n" +
		"d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\n" +
		"g: [*f,*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
	if err := CheckAliases("bomb.yaml", []byte("kind: ConfigMap\n---\n"+bomb)); err == nil || !strings.Contains(err.Error(), "bomb.yaml") {
		t.Fatalf("alias bomb: %v", err)
	}
	ok := "base: &b {a: 1}\nuse: *b\nlist: [*b, *b]\n"
	if err := CheckAliases("ok.yaml", []byte(ok)); err != nil {
		t.Fatalf("ordinary anchors refused: %v", err)
	}
	if err := CheckAliases("bad.yaml", []byte("a: [\n")); err != nil {
		t.Fatalf("unparseable YAML is for the library to report: %v", err)
	}
}
