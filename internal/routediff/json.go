package routediff

import (
	"encoding/json"
	"io"

	"github.com/routeguard/routeguard/internal/analysis"
)

type jsonFinding struct {
	Code     string             `json:"code"`
	Severity analysis.Severity  `json:"severity"`
	Message  string             `json:"message"`
	Object   analysis.ObjectRef `json:"object"`
	File     string             `json:"file,omitempty"`
	Line     int                `json:"line,omitempty"`
	App      string             `json:"app,omitempty"`
}

func jsonFindings(fs []analysis.Finding) []jsonFinding {
	out := make([]jsonFinding, 0, len(fs))
	for _, f := range fs {
		out = append(out, jsonFinding{Code: f.Code, Severity: f.Severity, Message: f.Message, Object: f.Object,
			File: f.Source.File, Line: f.Source.Line, App: f.App})
	}
	return out
}

// WriteJSON writes the result as one JSON document: the revisions, the
// routing changes, the findings introduced and fixed (and those gone with
// their removed objects), what was not built at each revision and whether
// routing was compared fully, the other objects by kind, and both route
// maps.
func (r *Result) WriteJSON(w io.Writer) error {
	if r.Review == ReviewManifests {
		return r.writeManifestsJSON(w)
	}
	doc := struct {
		*Result
		RoutingChanged       bool          `json:"routingChanged"`
		RoutingComparedFully bool          `json:"routingComparedFully"`
		Summary              string        `json:"summary"`
		Introduced           []jsonFinding `json:"findingsIntroduced"`
		Fixed                []jsonFinding `json:"findingsFixed"`
		Removed              []jsonFinding `json:"findingsOfRemovedObjects"`
		BaseMap              any           `json:"baseMap"`
		HeadMap              any           `json:"headMap"`
	}{r, r.RoutingChanged(), r.RoutingComparedFully(), r.Summary(), jsonFindings(r.Intro), jsonFindings(r.Fixed), jsonFindings(r.Removed), r.BaseMap, r.HeadMap}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
