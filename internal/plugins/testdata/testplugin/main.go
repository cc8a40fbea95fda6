// Command testplugin is the plugin internal/plugins' tests run. Its config
// picks a behaviour: mode ok (one TP001 finding per Service), env (one
// TP002 finding per environment variable it sees), crash, hang,
// undeclared (a code it does not declare).
// Built with -ldflags "-X main.protocol=1" it speaks protocol 1, as a
// plugin built against an older SDK does.
package main

import (
	"context"
	"os"
	"sort"
	"strconv"
	"time"

	"github.com/hashicorp/go-plugin"

	"github.com/routeguard/routeguard/plugins/sdk"
)

var protocol = "" // empty: sdk.ProtocolVersion

type config struct {
	Mode string `json:"mode"`
}

type testPlugin struct{}

var codes = []sdk.Code{
	{ID: "TP001", Severity: sdk.SeverityWarning, Description: "a Service"},
	{ID: "TP002", Severity: sdk.SeverityInfo, Description: "an environment variable"},
}

func (testPlugin) Metadata(context.Context) (sdk.Metadata, error) {
	return sdk.Metadata{Name: "testplugin", Version: "0.1.0", Codes: codes}, nil
}

func (testPlugin) Analyze(ctx context.Context, req *sdk.Request) ([]sdk.Finding, error) {
	var cfg config
	if err := req.DecodeConfig(&cfg); err != nil {
		return nil, err
	}
	var out []sdk.Finding
	switch cfg.Mode {
	case "crash":
		go func() { panic("testplugin crashed on purpose") }()
		time.Sleep(time.Minute)
	case "hang":
		select {} // ignores the deadline
	case "undeclared":
		return []sdk.Finding{{Code: "XX999", Message: "not declared", Object: req.Objects[0].Ref()}}, nil
	case "env":
		env := os.Environ()
		sort.Strings(env)
		for _, kv := range env {
			out = append(out, sdk.Findingf(&req.Objects[0], "TP002", "%s", kv))
		}
		return out, nil
	}
	for i := range req.Objects {
		o := &req.Objects[i]
		if o.Kind == "Service" {
			out = append(out, sdk.Findingf(o, "TP001", "Service %s seen", o.Name))
		}
	}
	return out, nil
}

func main() {
	cfg := sdk.ServeConfig(testPlugin{})
	if v, err := strconv.Atoi(protocol); err == nil {
		cfg.HandshakeConfig.ProtocolVersion = uint(v)
	}
	plugin.Serve(cfg)
}
