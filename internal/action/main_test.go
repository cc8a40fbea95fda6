package action

import (
	"context"
	"os"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis/analysistest"
	"github.com/routeguard/routeguard/internal/pipeline/pipelinetest"
	"github.com/routeguard/routeguard/internal/render"
)

// TestMain lets the test binary answer Kustomize's helm calls, as the
// routeguard binary does.
func TestMain(m *testing.M) {
	if code, ok := render.ServeHelmShim(context.Background(), os.Args, os.Getenv, os.Stdout, os.Stderr); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// The helpers and fixtures the pipeline's and the actions' tests share.
var (
	writeTree = pipelinetest.WriteTree
	objects   = pipelinetest.Objects
	codes     = analysistest.Keys
)

const (
	route        = pipelinetest.Route
	otherService = pipelinetest.OtherService
)
