package report

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
)

func TestSARIF(t *testing.T) {
	var log struct {
		Version string `json:"version"`
		Schema  string `json:"$schema"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name    string `json:"name"`
					Version string `json:"version"`
					Rules   []struct {
						ID               string            `json:"id"`
						ShortDescription map[string]string `json:"shortDescription"`
						FullDescription  map[string]string `json:"fullDescription"`
						Help             map[string]string `json:"help"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine int }
					}
				}
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(render(t, "sarif", Options{Version: "v1.2.3"}, sample)), &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("version %q, %d runs", log.Version, len(log.Runs))
	}
	run := log.Runs[0]
	if run.Tool.Driver.Name != "routeguard" || run.Tool.Driver.Version != "v1.2.3" {
		t.Errorf("driver = %+v", run.Tool.Driver)
	}
	ids := []string{}
	for _, r := range run.Tool.Driver.Rules {
		ids = append(ids, r.ID)
	}
	if len(ids) != 3 || ids[0] != "IST0101" || ids[1] != "RG1101" || ids[2] != "RG4002" {
		t.Fatalf("rules = %v", ids)
	}
	rg1101, _ := analysis.LookupCode("RG1101")
	if r := run.Tool.Driver.Rules[1]; r.FullDescription["text"] != rg1101.Description || r.Help["text"] != rg1101.Description {
		t.Errorf("rule RG1101 does not carry the catalog description as description and help: %+v", r)
	}
	if r := run.Tool.Driver.Rules[0]; r.Help != nil {
		t.Errorf("rule IST0101 has help %v, though the catalog does not hold it", r.Help)
	}
	levels := map[string]string{}
	for _, r := range run.Results {
		levels[r.RuleID] = r.Level
		if ids[r.RuleIndex] != r.RuleID {
			t.Errorf("result %s points at rule %d", r.RuleID, r.RuleIndex)
		}
	}
	if levels["RG1101"] != "error" || levels["RG4002"] != "warning" || levels["IST0101"] != "note" {
		t.Errorf("levels = %v", levels)
	}
	loc := run.Results[0].Locations[0].PhysicalLocation
	if loc.ArtifactLocation.URI != "apps/shop/route.yaml" || loc.Region.StartLine != 12 {
		t.Errorf("location = %+v", loc)
	}
}

// TestSARIFHelpAndFingerprints: each rule links to where its code is
// explained (the catalog at the release's tag, Istio's page for IST codes),
// and each result's fingerprint follows the finding, not its line.
func TestSARIFHelpAndFingerprints(t *testing.T) {
	type log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct{ ID, HelpURI string }
				}
			}
			Results []struct {
				RuleID              string
				PartialFingerprints map[string]string
			}
		}
	}
	decode := func(version string, fs []analysis.Finding) log {
		var l log
		if err := json.Unmarshal([]byte(render(t, "sarif", Options{Version: version}, fs)), &l); err != nil {
			t.Fatal(err)
		}
		return l
	}
	help := func(l log) map[string]string {
		out := map[string]string{}
		for _, r := range l.Runs[0].Tool.Driver.Rules {
			out[r.ID] = r.HelpURI
		}
		return out
	}
	got := help(decode("v1.4.0", sample))
	want := map[string]string{
		"RG1101":  "https://github.com/routeguard/routeguard/blob/v1.4.0/docs/analysis.md#catalog-of-codes",
		"RG4002":  "https://github.com/routeguard/routeguard/blob/v1.4.0/docs/analysis.md#catalog-of-codes",
		"IST0101": "https://istio.io/latest/docs/reference/config/analysis/ist0101/",
	}
	if !maps.Equal(got, want) {
		t.Errorf("helpUri %v, want %v", got, want)
	}
	for _, v := range []string{"v0.0.0-dev", "", "v1.4.0-SNAPSHOT-abc"} {
		if u := help(decode(v, sample))["RG1101"]; !strings.Contains(u, "/blob/main/") {
			t.Errorf("version %q: helpUri %s, want main", v, u)
		}
	}
	moved := slices.Clone(sample)
	moved[0].Source.Line += 40
	other := slices.Clone(sample)
	other[0].Object.Name = "web-2"
	fp := func(fs []analysis.Finding) string {
		return decode("", fs).Runs[0].Results[0].PartialFingerprints["routeguardFinding/v1"]
	}
	if a, b, c := fp(sample), fp(moved), fp(other); a == "" || a != b || a == c {
		t.Errorf("fingerprints: %q, moved %q (want equal), other object %q (want different)", a, b, c)
	}
}
