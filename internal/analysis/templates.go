package analysis

// Most codes' messages are written where they are reported (Reportf),
// each under MaxMessageChars; a code whose findings say one thing has a
// template (Code.Message) instead, and its analyzer reports the arguments
// (ReportCode). A code that says different things at different places (a
// warning and an error variant, one site per kind of reference) keeps
// its messages at those places.
var templates = func() map[string]Template {
	m := map[string]Template{}
	for _, c := range catalog {
		if c.Message.Format != "" {
			m[c.ID] = c.Message
		}
	}
	return m
}()
