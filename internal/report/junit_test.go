package report

import (
	"encoding/xml"
	"testing"
)

func TestJUnit(t *testing.T) {
	var doc junitSuites
	out := render(t, "junit", Options{}, sample)
	if err := xml.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Tests != 3 || doc.Failures != 2 || len(doc.Suites) != 2 {
		t.Fatalf("tests=%d failures=%d suites=%d\n%s", doc.Tests, doc.Failures, len(doc.Suites), out)
	}
	s := doc.Suites[0]
	if s.Name != "apps/shop/route.yaml" || s.Tests != 2 || s.Failures != 1 {
		t.Errorf("suite 0 = %+v", s)
	}
	if c := s.Cases[0]; c.Name != "RG1101 HTTPRoute shop/web" || c.Failure == nil || c.Failure.Type != "error" || c.Line != 12 {
		t.Errorf("case 0 = %+v", c)
	}
	if c := s.Cases[1]; c.Failure != nil || c.SystemOut == "" {
		t.Errorf("info finding must pass with output: %+v", c)
	}
	if got := doc.Suites[1].Cases[0].Failure.Message; got != `container "web" runs image "nginx:latest" <&>` {
		t.Errorf("message not escaped and restored: %q", got)
	}
}

func TestJUnitEmpty(t *testing.T) {
	var doc junitSuites
	if err := xml.Unmarshal([]byte(render(t, "junit", Options{}, nil)), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Tests != 1 || doc.Failures != 0 {
		t.Errorf("empty run = %+v", doc)
	}
}
