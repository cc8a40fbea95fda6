package report

import (
	"encoding/json"
	"testing"
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
	if run.Tool.Driver.Rules[1].FullDescription["text"] == "" {
		t.Error("catalog description missing from rule RG1101")
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
