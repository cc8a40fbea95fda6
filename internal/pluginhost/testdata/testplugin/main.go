// Command testplugin is the plugin internal/pluginhost' tests run. Its config
// picks a behaviour: mode ok (one TP001 finding per Service), env (one
// TP002 finding per environment variable it sees), crash, hang,
// undeclared (a code it does not declare), parentenv (one TP002 finding
// with what it could read of routeguard's /proc/<ppid>/environ), daemonize
// (starts a detached grandchild in a session of its own that writes its
// pid to config's pidFile and lives on, then hangs), forkhang (starts a
// child in its own process group and a detached one, writes its own pid
// and theirs, one a line, to pidFile once both run, then hangs).
// Built with -ldflags "-X main.protocol=1" it speaks protocol 1, as a
// plugin built against an older SDK does.
package main

import (
	"context"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/go-plugin"

	"github.com/routeguard/routeguard/plugins/sdk"
)

var protocol = "" // empty: sdk.ProtocolVersion

type config struct {
	Mode    string `json:"mode"`
	PIDFile string `json:"pidFile"`
}

// daemonEnv turns the binary into the daemonized grandchild.
const daemonEnv = "TESTPLUGIN_DAEMON_PIDFILE"

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
	case "parentenv":
		data, err := os.ReadFile("/proc/" + strconv.Itoa(os.Getppid()) + "/environ")
		msg := "read: " + strings.ReplaceAll(string(data), "\x00", " ")
		if err != nil {
			msg = "refused: " + err.Error()
		}
		return []sdk.Finding{sdk.Findingf(&req.Objects[0], "TP002", "%s", msg)}, nil
	case "daemonize":
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), daemonEnv+"="+cfg.PIDFile)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		select {} // and hang past the deadline
	case "forkhang":
		var pids []string
		for i, detach := range []bool{false, true} {
			childFile := cfg.PIDFile + "." + strconv.Itoa(i)
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), daemonEnv+"="+childFile)
			if detach {
				cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
			}
			if err := cmd.Start(); err != nil {
				return nil, err
			}
			for {
				if data, err := os.ReadFile(childFile); err == nil && len(data) > 0 {
					pids = append(pids, string(data))
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
		pids = append(pids, strconv.Itoa(os.Getpid()))
		tmp := cfg.PIDFile + ".tmp"
		os.WriteFile(tmp, []byte(strings.Join(pids, "\n")+"\n"), 0o644)
		os.Rename(tmp, cfg.PIDFile)
		select {}
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
	if pidFile := os.Getenv(daemonEnv); pidFile != "" {
		// The grandchild: detached from the plugin's process group and
		// session, it would outlive a kill of the group.
		os.WriteFile(pidFile, []byte(strconv.Itoa(os.Getpid())), 0o644)
		time.Sleep(10 * time.Minute)
		return
	}
	cfg := sdk.ServeConfig(testPlugin{})
	if v, err := strconv.Atoi(protocol); err == nil {
		cfg.HandshakeConfig.ProtocolVersion = uint(v)
	}
	plugin.Serve(cfg)
}
