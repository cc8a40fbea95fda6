package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
)

var testCodes = []analysis.Code{
	{ID: "RG0001", Severity: analysis.SeverityWarning, Title: "reference cannot be checked",
		Description: "An object refers to an object that this app does not render; another app may deploy it, so routeguard cannot tell whether it exists. Name the path in contextPaths."},
	{ID: "RG4003", Severity: analysis.SeverityWarning, Title: "CRD and its resources not ordered", Retired: true,
		Description: "Retired."},
}

func TestWriteCatalogText(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCatalog(&b, "text", testCodes); err != nil {
		t.Fatal(err)
	}
	want := "RG0001  warning  reference cannot be checked\n" +
		"    An object refers to an object that this app does not render; another app may deploy it, so\n" +
		"    routeguard cannot tell whether it exists. Name the path in contextPaths.\n" +
		"\n" +
		"RG4003  retired  CRD and its resources not ordered\n" +
		"    Retired.\n"
	if b.String() != want {
		t.Errorf("text catalog:\n%s\nwant:\n%s", b.String(), want)
	}
	for _, line := range strings.Split(b.String(), "\n") {
		if len(line) > 100 {
			t.Errorf("line longer than 100 columns: %q", line)
		}
	}
}

func TestWriteCatalogJSON(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCatalog(&b, "json", testCodes); err != nil {
		t.Fatal(err)
	}
	var got struct {
		SchemaVersion int `json:"schemaVersion"`
		Codes         []struct {
			ID, Severity, Title, Description string
			Retired                          bool
		} `json:"codes"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("%v in %s", err, b.String())
	}
	if got.SchemaVersion != 1 || len(got.Codes) != 2 || got.Codes[0].ID != "RG0001" || got.Codes[0].Severity != "warning" ||
		got.Codes[0].Retired || !got.Codes[1].Retired || got.Codes[1].Title != testCodes[1].Title {
		t.Errorf("json catalog = %+v", got)
	}
	if strings.Contains(b.String(), `"retired": false`) {
		t.Errorf("retired is written only when true:\n%s", b.String())
	}
}

func TestWriteCatalogWholeCatalog(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCatalog(&b, "text", analysis.Catalog()); err != nil {
		t.Fatal(err)
	}
	for _, c := range analysis.Catalog() {
		if !strings.Contains(b.String(), c.ID+"  ") {
			t.Errorf("text catalog lacks %s", c.ID)
		}
	}
}

func TestWriteCatalogUnknownFormat(t *testing.T) {
	var b bytes.Buffer
	err := WriteCatalog(&b, "sarif", testCodes)
	if err == nil || !strings.Contains(err.Error(), "use one of json, text") || b.Len() != 0 {
		t.Errorf("err = %v, output %q", err, b.String())
	}
}
