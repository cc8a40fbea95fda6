package pluginhost

// TeamHostsBinary is the team-hosts plugin TestMain builds, for the
// black-box CLI test (package plugins_test).
func TeamHostsBinary() string {
	recordPluginSources()
	return bins.teams
}

// SHA256 exposes fileSHA256 to the black-box tests.
var SHA256 = fileSHA256
