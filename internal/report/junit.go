package report

import (
	"encoding/xml"
	"fmt"
	"io"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/printable"
)

// junit writes a JUnit XML report: one test suite per file, one test case
// per finding (errors and warnings are failures, infos pass with the
// message as output). A run without findings is one passing test case, so
// CI shows the check ran.
type junit struct {
	w     io.Writer
	files []string
	by    map[string][]analysis.Finding
}

var _ = format(Format{Name: "junit", Syntax: SyntaxXML, New: newJUnit,
	Doc: "JUnit XML, one test case per finding, for CI test reports"})

func newJUnit(w io.Writer, _ Options) Writer {
	return &junit{w: w, by: map[string][]analysis.Finding{}}
}

func (j *junit) Write(f analysis.Finding) error {
	if _, ok := j.by[f.Source.File]; !ok {
		j.files = append(j.files, f.Source.File)
	}
	j.by[f.Source.File] = append(j.by[f.Source.File], f)
	return nil
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

func (j *junit) Flush() error {
	doc := junitSuites{Name: "routeguard analyze"}
	for _, file := range j.files {
		// XML writes a C0 control character as U+FFFD but keeps DEL and
		// C1: repository text is escaped as in every other report.
		name := printable.Line(file)
		s := junitSuite{Name: name}
		for _, f := range j.by[file] {
			c := junitCase{Name: printable.Line(f.Code + " " + f.Object.String()), Classname: name, File: name, Line: f.Source.Line}
			if f.Severity >= analysis.SeverityWarning {
				c.Failure = &junitFailure{Message: printable.Line(f.Message), Type: f.Severity.String(),
					Text: printable.String(fmt.Sprintf("%s: %s %s %s: %s", f.Source, f.Severity, f.Code, f.Subject(), f.Message))}
				s.Failures++
			} else {
				c.SystemOut = printable.String(f.Message)
			}
			s.Cases = append(s.Cases, c)
			s.Tests++
		}
		doc.Suites = append(doc.Suites, s)
		doc.Tests += s.Tests
		doc.Failures += s.Failures
	}
	if len(doc.Suites) == 0 {
		doc.Suites = []junitSuite{{Name: "routeguard", Tests: 1,
			Cases: []junitCase{{Name: "no findings", Classname: "routeguard"}}}}
		doc.Tests = 1
	}
	data, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	out := append([]byte(xml.Header), data...)
	_, err = j.w.Write(append(out, '\n'))
	return err
}
