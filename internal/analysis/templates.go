package analysis

// A code with a template (Code.Message) has its messages made from it: its
// analyzer reports the code and the template's arguments (ReportCode, or
// Finding.Fill where it builds the Finding itself; both keep the arguments
// in Finding.Args, which the report fingerprints hash instead of the
// wording). What a finding means and
// how to fix it is the code's Description. Codes without a template
// (TestTemplateCoverage lists them) still write their messages where they
// report them.
var templates = func() map[string]Template {
	m := map[string]Template{}
	for _, c := range catalog {
		if c.Message.Format != "" {
			m[c.ID] = c.Message
		}
	}
	return m
}()
