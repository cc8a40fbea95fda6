package health

import (
	"context"
	"fmt"

	"github.com/fluxcd/cli-utils/pkg/kstatus/status"
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

// Evaluator evaluates one check's CEL twin. Build it once; it is safe for
// concurrent use.
type Evaluator struct {
	se *cel.StatusEvaluator
}

// NewEvaluator parses the expressions as kustomize-controller does
// (cel.NewStatusEvaluator: parsed, not type-checked).
func NewEvaluator(c Check) (*Evaluator, error) {
	se, err := cel.NewStatusEvaluator(&c.CEL.HealthCheckExpressions)
	if err != nil {
		return nil, fmt.Errorf("%s/health.cel.yaml: %w", c.Dir, err)
	}
	return &Evaluator{se: se}, nil
}

// Evaluate runs the expressions on obj: first the observedGeneration rule,
// then inProgress, failed, current; none true is InProgress.
func (e *Evaluator) Evaluate(ctx context.Context, obj map[string]any) CELResult {
	res, err := e.se.Evaluate(ctx, &unstructured.Unstructured{Object: obj})
	if err != nil {
		return CELResult{Status: string(status.UnknownStatus), Err: err}
	}
	return CELResult{Status: string(res.Status)}
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
