package pluginhost

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/routeguard/routeguard/internal/guard"
	"github.com/routeguard/routeguard/plugins/sdk"
)

// process is one running plugin.
type process struct {
	spec   *Spec
	cmd    *exec.Cmd
	client *plugin.Client
	rpc    *sdk.Client
	stderr *stderrTail
	// marker is the KEY=VALUE, unique to this process, in the plugin's
	// environment (and its descendants'): how reapOrphans recognises what
	// it left behind.
	marker string
	// atExit unregisters the exit hook that kills the plugin when
	// routeguard ends first (a limit, a signal).
	atExit func()
}

// sessionEnv names the variable that marks a plugin's process tree.
const sessionEnv = "ROUTEGUARD_PLUGIN_SESSION"

// start verifies the binary and starts it with a minimal environment. The
// start-up (handshake included) is bounded by the spec's timeout.
func start(s *Spec, getenv func(string) string) (*process, error) {
	if err := verify(s); err != nil {
		return nil, err
	}
	protectHost()
	marker := sessionEnv + "=" + rand.Text()
	cmd := exec.Command(s.Path)
	cmd.Env = append(pluginEnv(getenv), marker)
	ownGroup(cmd)
	p := &process{spec: s, cmd: cmd, stderr: &stderrTail{}, marker: marker}
	p.client = plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  sdk.Handshake,
		Plugins:          sdk.PluginSet(nil),
		Cmd:              cmd,
		SkipHostEnv:      true,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		StartTimeout:     s.Timeout,
		Stderr:           p.stderr,
		Logger:           hclog.New(&hclog.LoggerOptions{Output: io.Discard, Level: hclog.Off}),
	})
	// However routeguard ends (--timeout, --max-memory, SIGTERM), the
	// plugin's process group and what it detached go with it.
	p.atExit = guard.AtExit(p.kill)
	rpc, err := p.client.Client()
	if err != nil {
		p.kill()
		return nil, p.explain("starting", err)
	}
	raw, err := rpc.Dispense(sdk.PluginName)
	if err != nil {
		p.kill()
		return nil, p.explain("connecting", err)
	}
	c, ok := raw.(*sdk.Client)
	if !ok {
		p.kill()
		return nil, fmt.Errorf("connecting: unexpected client type %T", raw)
	}
	p.rpc = c
	return p, nil
}

// call runs fn under the spec's deadline and explains its failure.
func (p *process) call(ctx context.Context, what string, fn func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, p.spec.Timeout)
	defer cancel()
	err := fn(ctx)
	if err == nil {
		return nil
	}
	// The plugin's gRPC server enforces the same deadline and may reset
	// the stream a moment before the host's own timer fires.
	deadline, _ := ctx.Deadline()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || time.Until(deadline) < 100*time.Millisecond {
		p.kill()
		return fmt.Errorf("%s: no answer within %s (plugins.timeout); the plugin was stopped", what, p.spec.Timeout)
	}
	return p.explain(what, err)
}

// explain turns a go-plugin or gRPC error into a message a user can act on.
func (p *process) explain(what string, err error) error {
	msg := err.Error()
	st, isStatus := status.FromError(err)
	if isStatus {
		msg = st.Message()
	}
	switch {
	case isStatus && st.Code() == codes.Unknown:
		// The plugin itself returned the error.
		return fmt.Errorf("%s: %s", what, msg)
	case strings.Contains(msg, "timeout while waiting for plugin to start"):
		return fmt.Errorf("%s: the plugin did not complete go-plugin's handshake within %s (plugins.timeout); is it built with plugins/sdk's Serve?",
			what, p.spec.Timeout)
	case strings.Contains(msg, "Unrecognized remote plugin message"):
		first, _, _ := strings.Cut(strings.TrimPrefix(msg, "Unrecognized remote plugin message: "), "\n")
		detail := ""
		p.exited() // go-plugin marks the exit once stderr is drained
		if sum := p.stderr.summary(); sum != "" {
			detail = "; its stderr says: " + sum
		}
		return fmt.Errorf("%s: not a routeguard plugin: it printed %q instead of go-plugin's handshake (build it with plugins/sdk's Serve)%s",
			what, first, detail)
	case strings.Contains(strings.ToLower(msg), "incompatible api version"):
		return fmt.Errorf("%s: the plugin speaks another protocol version (%s); rebuild it against the plugins/sdk of this routeguard (protocol %d)",
			what, msg, sdk.ProtocolVersion)
	case p.exited():
		detail := p.stderr.summary()
		if detail != "" {
			detail = ": " + detail
		}
		return fmt.Errorf("%s: the plugin exited unexpectedly (%s)%s", what, msg, detail)
	}
	return fmt.Errorf("%s: %s", what, msg)
}

// exited reports whether the plugin process has ended. Exited turns true
// once go-plugin has reaped the process; the transport error may arrive
// a moment earlier, so wait up to half a second for it.
func (p *process) exited() bool {
	for range 50 {
		if p.client.Exited() {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

// close asks the plugin to exit and waits for it; what is still running
// after three seconds is killed.
func (p *process) close() {
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			killGroup(p.cmd)
		}
	}()
	p.client.Kill()
	close(done)
	reapOrphans(p.marker)
	p.atExit()
}

// kill stops the plugin and everything it started at once (a plugin that
// hangs does not get the graceful two seconds go-plugin would give it).
func (p *process) kill() {
	killGroup(p.cmd)
	p.client.Kill()
	reapOrphans(p.marker)
	if p.atExit != nil {
		p.atExit()
	}
}

// stderrTail keeps the beginning of a plugin's stderr (where a Go panic
// or a fatal error says what went wrong), bounded.
type stderrTail struct {
	mu  sync.Mutex
	buf []byte
}

const stderrKeep = 16 << 10

func (t *stderrTail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if room := stderrKeep - len(t.buf); room > 0 {
		t.buf = append(t.buf, b[:min(room, len(b))]...)
	}
	return len(b), nil
}

// summary returns the panic or fatal error line, else the last line.
func (t *stderrTail) summary() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var last string
	for _, l := range strings.Split(string(t.buf), "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "panic:") || strings.HasPrefix(l, "fatal error:") {
			return l
		}
		if l != "" && !strings.HasPrefix(l, "{") {
			last = l
		}
	}
	return last
}
