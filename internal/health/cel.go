package health

import (
	"context"
	"fmt"

	"github.com/fluxcd/cli-utils/pkg/kstatus/polling/engine"
	"github.com/fluxcd/cli-utils/pkg/kstatus/status"
	"github.com/fluxcd/pkg/apis/kustomize"
	"github.com/fluxcd/pkg/runtime/cel"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// CELResult is what kustomize-controller concludes from a healthCheckExprs
// entry: Current, InProgress or Failed, or Unknown with the evaluation error
// (the generic status reader turns an error into Unknown and keeps waiting).
type CELResult struct {
	Status string
	Err    error
}

// Evaluator evaluates one check's CEL twin through the status reader
// kustomize-controller registers for healthCheckExprs. Build it once.
type Evaluator struct {
	reader engine.StatusReader
}

// NewEvaluator parses the expressions as kustomize-controller does
// (cel.NewStatusReader over the Kustomization's healthCheckExprs: parsed, not
// type-checked).
func NewEvaluator(c Check) (*Evaluator, error) {
	ctor, err := cel.NewStatusReader([]kustomize.CustomHealthCheck{c.CEL})
	if err != nil {
		return nil, fmt.Errorf("%s/health.cel.yaml: %w", c.Dir, err)
	}
	// The RESTMapper is only used to fetch objects from a cluster; here the
	// object is given.
	return &Evaluator{reader: ctor(nil)}, nil
}

// Evaluate runs the expressions on obj as the status poller does: first the
// observedGeneration rule, then inProgress, failed, current (none true is
// InProgress); an evaluation error becomes Unknown with the error.
func (e *Evaluator) Evaluate(ctx context.Context, obj map[string]any) CELResult {
	rs, err := e.reader.ReadStatusForObject(ctx, nil, &unstructured.Unstructured{Object: obj})
	if err != nil {
		return CELResult{Status: string(status.UnknownStatus), Err: err}
	}
	return CELResult{Status: string(rs.Status), Err: rs.Error}
}

// FluxStatusFor maps an Argo CD health status to the kstatus status its
// twin must give: Healthy→Current, Progressing→InProgress, Degraded→Failed.
func FluxStatusFor(argo string) string {
	switch argo {
	case "Healthy":
		return string(status.CurrentStatus)
	case "Progressing":
		return string(status.InProgressStatus)
	case "Degraded":
		return string(status.FailedStatus)
	}
	return ""
}
