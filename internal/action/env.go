package action

import (
	"fmt"
	"io"
)

// Env is what an action may read outside its options: the process
// environment, the working directory, the running executable and standard
// input. internal/cli fills it from the process (tests from maps and
// buffers).
type Env struct {
	// Getenv reads a variable of the process environment.
	Getenv func(string) string
	// Environ lists the process environment as KEY=VALUE pairs.
	Environ func() []string
	// Getwd returns the working directory.
	Getwd func() (string, error)
	// Executable is the path of the running routeguard binary (plugins such
	// as routeguard-istio are looked for beside it).
	Executable func() (string, error)
	// Stdin is standard input.
	Stdin io.Reader
	// Stderr is where a warning about the environment itself is said when
	// it is read (a KUBE_VERSION that is not a release version); nil
	// discards it. What the action finds is in its result.
	Stderr io.Writer
}

// warn says a warning about the environment on Stderr.
func (e Env) warn(format string, a ...any) {
	if e.Stderr != nil {
		fmt.Fprintf(e.Stderr, "routeguard: warning: "+format+"\n", a...)
	}
}

// workDir is the working directory ("." when it cannot be told).
func (e Env) workDir() string {
	if e.Getwd != nil {
		if dir, err := e.Getwd(); err == nil {
			return dir
		}
	}
	return "."
}
