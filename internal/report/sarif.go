package report

import (
	"io"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/printable"
)

// sarif writes a SARIF 2.1.0 log with one run, for GitHub code scanning
// and other SARIF consumers. Rules are the catalog entries of the codes
// found.
type sarif struct {
	w        io.Writer
	version  string
	findings []analysis.Finding
}

var _ = format(Format{Name: "sarif", Syntax: SyntaxJSON, New: newSARIF,
	Doc: "SARIF 2.1.0, for GitHub code scanning (annotations on the pull request's diff)"})

func newSARIF(w io.Writer, o Options) Writer { return &sarif{w: w, version: o.Version} }

func (s *sarif) Write(f analysis.Finding) error {
	s.findings = append(s.findings, f)
	return nil
}

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Version        string      `json:"version,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID                   string         `json:"id"`
	Name                 string         `json:"name,omitempty"`
	ShortDescription     sarifText      `json:"shortDescription"`
	FullDescription      *sarifText     `json:"fullDescription,omitempty"`
	Help                 *sarifText     `json:"help,omitempty"`
	HelpURI              string         `json:"helpUri,omitempty"`
	DefaultConfiguration map[string]any `json:"defaultConfiguration,omitempty"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations"`
	// PartialFingerprints identify the result across runs (fingerprints:
	// code, object, file and the message's template arguments; not the
	// line nor the wording), so code scanning keeps one alert when an
	// object moves or a message is reworded. GitHub matches results by
	// them (and computes its own primaryLocationLineHash beside ours).
	PartialFingerprints map[string]string `json:"partialFingerprints"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical  `json:"physicalLocation"`
	LogicalLocations []sarifLogical `json:"logicalLocations,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation map[string]string `json:"artifactLocation"`
	Region           *sarifRegion      `json:"region,omitempty"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

type sarifLogical struct {
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

func sarifLevel(s analysis.Severity) string {
	switch s {
	case analysis.SeverityError:
		return "error"
	case analysis.SeverityWarning:
		return "warning"
	}
	return "note"
}

func (s *sarif) Flush() error {
	codes := codesOf(s.findings)
	index := map[string]int{}
	rules := make([]sarifRule, 0, len(codes))
	for i, code := range codes {
		index[code] = i
		r := sarifRule{ID: code, ShortDescription: sarifText{Text: code}, HelpURI: helpURI(code, s.version)}
		if c, ok := analysis.LookupCode(code); ok {
			r.Name = c.Title
			r.ShortDescription = sarifText{Text: c.Title}
			r.FullDescription = &sarifText{Text: c.Description}
			r.Help = &sarifText{Text: help(code)}
			r.DefaultConfiguration = map[string]any{"level": sarifLevel(c.Severity)}
		}
		rules = append(rules, r)
	}
	results := make([]sarifResult, 0, len(s.findings))
	seen := fingerprints{}
	for _, f := range s.findings {
		loc := sarifLocation{
			PhysicalLocation: sarifPhysical{ArtifactLocation: map[string]string{"uri": sarifURI(f.Source.File)}},
			LogicalLocations: []sarifLogical{{FullyQualifiedName: printable.Line(f.Object.String()), Kind: "resource"}},
		}
		if f.Source.Line > 0 {
			loc.PhysicalLocation.Region = &sarifRegion{StartLine: f.Source.Line}
		}
		results = append(results, sarifResult{RuleID: f.Code, RuleIndex: index[f.Code], Level: sarifLevel(f.Severity),
			Message: sarifText{Text: printable.String(f.Subject() + ": " + f.Message)}, Locations: []sarifLocation{loc},
			PartialFingerprints: map[string]string{"routeguardFinding/v1": seen.next(f)}})
	}
	log := sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs: []sarifRun{{
			Tool: sarifTool{Driver: sarifDriver{Name: "routeguard", InformationURI: "https://github.com/routeguard/routeguard",
				Version: s.version, Rules: rules}},
			Results: results,
		}},
	}
	return writeJSON(s.w, log)
}

// helpURI is where a code is explained: routeguard's catalog of codes in
// docs/analysis.md at the release's tag (main for a development build),
// Istio's page for its analyzers' IST codes.
func helpURI(code, version string) string {
	if strings.HasPrefix(code, "IST") {
		return "https://istio.io/latest/docs/reference/config/analysis/" + strings.ToLower(code) + "/"
	}
	ref := "main"
	if releaseRE.MatchString(version) && version != "v0.0.0" {
		ref = version
	}
	return "https://github.com/routeguard/routeguard/blob/" + ref + "/docs/analysis.md#catalog-of-codes"
}

// releaseRE matches the versions routeguard tags (v1.2.0, v1.3.0-rc.1);
// development builds (v0.0.0-dev) and snapshots link to main.
var releaseRE = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+(-rc\.[0-9]+)?$`)

// sarifURI is a repository path as a SARIF artifact URI: a control
// character (an escape sequence in a file name) percent-encoded, as a URI
// writes it, so that neither the log nor a viewer decoding it carries the
// raw character; any other path is as it is.
func sarifURI(file string) string {
	p := filepath.ToSlash(file)
	if !strings.ContainsFunc(p, unicode.IsControl) {
		return p
	}
	var b strings.Builder
	for _, r := range p {
		if unicode.IsControl(r) {
			b.WriteString(url.PathEscape(string(r)))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
