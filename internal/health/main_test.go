package health

import (
	"os"
	"testing"
	"time"
)

// TestMain gives the Lua scripts of the fixtures more than Argo CD's
// one-second budget: on a loaded machine (make test runs packages side by
// side) a fixture could otherwise run out of wall-clock time and fail for
// no fault of its script. TestVMMatchesArgoCD restores the budget to check
// that an endless script is stopped.
func TestMain(m *testing.M) {
	luaBudget = time.Minute
	os.Exit(m.Run())
}
