package ingress

import (
	"testing"

	"github.com/routeguard/routeguard/internal/analysis/analysistest"
)

func TestBackends(t *testing.T) {
	analysistest.Run(t, Backends{}, []analysistest.Case{
		{Name: "services and ports by name and number", Files: []string{"services.yaml", "ingress_ok.yaml"}},
		{Name: "missing service, port name and number", Files: []string{"services.yaml", "ingress_bad_backends.yaml"},
			Want: []string{"RG2001 Ingress shop/web", "RG2002 Ingress shop/web", "RG2002 Ingress shop/web"}},
		// The Ingress is the only object in "legacy": the Service may be
		// another app's (a chart's UI, say), so it cannot be checked.
		{Name: "service in a namespace where the app renders no Service", Files: []string{"services.yaml", "ingress_outside.yaml"},
			Want: []string{"RG0001 Ingress legacy/old"}},
		{Name: "ALB actions: redirect, weighted forward to a missing Service, missing and broken annotations",
			Files: []string{"ingress_alb.yaml"},
			Want:  []string{"RG2001 Ingress store/split", "RG2007 Ingress store/broken", "RG2007 Ingress store/badjson"}},
		{Name: "ingress-nginx default-backend annotation", Files: []string{"ingress_controllers.yaml"},
			Want: []string{"RG2001 Ingress web/fallback"}},
		// Only the port name printer does not list is a mistake.
		{Name: "ExternalName Services: port numbers as written, names where ports are listed", Files: []string{"ingress_externalname.yaml"},
			Want: []string{"RG2002 Ingress lan/lan"}},
	})
}

func TestDuplicatePathsPerController(t *testing.T) {
	analysistest.Run(t, DuplicatePaths{}, []analysistest.Case{
		{Name: "ALB: separate load balancers do not collide, one IngressGroup does, conditions tell apart",
			Files: []string{"ingress_alb.yaml"}, Want: []string{"RG2003 Ingress store/g2"}},
		{Name: "nginx canary, GKE, Traefik entrypoints, HAProxy ACL",
			Files: []string{"ingress_controllers.yaml"}, Want: []string{"RG2003 Ingress web/tr-web"}},
	})
}

func TestDuplicatePaths(t *testing.T) {
	analysistest.Run(t, DuplicatePaths{}, []analysistest.Case{
		{Name: "single ingress", Files: []string{"ingress_ok.yaml"}},
		{Name: "same class host path", Files: []string{"ingress_duplicates.yaml"},
			Want: []string{"RG2003 Ingress shop/b"}},
	})
}

func TestTLSHosts(t *testing.T) {
	analysistest.Run(t, TLSHosts{}, []analysistest.Case{
		{Name: "covered exactly and by a wildcard", Files: []string{"ingress_ok.yaml"}},
		// "host not served" is declared in testdata/ingress_tls_uncovered.yaml
		// itself (analysistest.Fixture), run by the registry's TestFixtures.
		{Name: "rule without host serves all", Files: []string{"ingress_outside.yaml"}},
	})
}

func TestClass(t *testing.T) {
	analysistest.Run(t, Class{}, []analysistest.Case{
		{Name: "class named", Files: []string{"ingress_ok.yaml"}},
		{Name: "no class and no default", Files: []string{"ingress_no_class.yaml"},
			Want: []string{"RG2005 Ingress shop/web"}},
		{Name: "default class rendered", Files: []string{"ingress_no_class.yaml", "default_class.yaml"}},
		{Name: "default class in context", Files: []string{"ingress_no_class.yaml"}, Context: []string{"default_class.yaml"}},
		{Name: "deprecated annotation", Files: []string{"ingress_duplicates.yaml"},
			Want: []string{"RG2006 Ingress shop/b"}},
		// GKE reads only the annotation (gce, gce-internal); ALB's alb is
		// flagged like any other class.
		{Name: "GKE's annotation is not deprecated there", Files: []string{"ingress_controllers.yaml", "ingress_alb.yaml"},
			Want: []string{"RG2006 Ingress store/b"}},
	})
}
