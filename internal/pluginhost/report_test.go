package pluginhost

import (
	"bytes"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/config"
	"github.com/routeguard/routeguard/internal/report"
	"github.com/routeguard/routeguard/plugins/sdk"
)

// TestFindingsInEveryFormat: a plugin's finding reaches every report
// format like a built-in one.
func TestFindingsInEveryFormat(t *testing.T) {
	res, s := run(t, decodeSet(t, "apps/shop/all.yaml", appYAML), &config.Plugins{Items: []config.Plugin{item(bins.test, "ok")}})
	if len(s.Failures()) != 0 {
		t.Fatal(s.Failures())
	}
	for _, format := range report.Formats() {
		var b bytes.Buffer
		w, err := report.New(format, &b, report.Options{Version: "test"})
		if err != nil {
			t.Fatal(err)
		}
		if err := report.WriteAll(w, res.Findings); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		for _, want := range []string{"TP001", "Service web seen", "RG4001"} {
			if !strings.Contains(b.String(), want) {
				t.Errorf("%s report lacks %q:\n%s", format, want, b.String())
			}
		}
	}
}

func TestCheckMetadata(t *testing.T) {
	ok := sdk.Code{ID: "TH001", Severity: sdk.SeverityError, Description: "d"}
	tests := []struct {
		name       string
		codes      []sdk.Code
		firstParty bool
		want       string
	}{
		{"fine", []sdk.Code{ok}, false, ""},
		{"reserved RG", []sdk.Code{{ID: "RG1001", Severity: "error", Description: "d"}}, false, "reserved for routeguard (RG) or Istio (IST)"},
		{"reserved IST", []sdk.Code{{ID: "IST0101", Severity: "error", Description: "d"}}, false, "reserved"},
		{"first party may", []sdk.Code{{ID: "IST0101", Severity: "error", Description: "d"}}, true, ""},
		{"bad id", []sdk.Code{{ID: "th-1", Severity: "error", Description: "d"}}, false, `code "th-1" is not`},
		{"bad severity", []sdk.Code{{ID: "TH002", Severity: "fatal", Description: "d"}}, false, `severity "fatal"`},
		{"no description", []sdk.Code{{ID: "TH002", Severity: "info"}}, false, "has no description"},
		{"twice", []sdk.Code{ok, ok}, false, "declared twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := checkMetadata(sdk.Metadata{Name: "x", Codes: tt.codes}, tt.firstParty)
			if (err == nil) != (tt.want == "") || (err != nil && !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
	if _, err := checkMetadata(sdk.Metadata{}, false); err == nil {
		t.Error("a plugin without a name was accepted")
	}
}
