package istio

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"istio.io/istio/pkg/config/analysis/analyzers"
	"istio.io/istio/pkg/config/analysis/diag"
	"istio.io/istio/pkg/config/analysis/local"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
)

// The grid: input file -> expected findings as "CODE severity Kind ns/name file:line".
var grid = []struct {
	file string
	opts Options
	want []string
}{
	{"vs-missing-host.yaml", Options{}, []string{
		"IST0101 error VirtualService shop/ratings testdata/vs-missing-host.yaml:14",
		"IST0101 error VirtualService shop/payments testdata/vs-missing-host.yaml:41",
		"RG0001 warning VirtualService shop/payments testdata/vs-missing-host.yaml:41",
	}},
	{"gateway-ports.yaml", Options{}, []string{
		"IST0162 warning Gateway edge/public testdata/gateway-ports.yaml:3",
	}},
	{"vs-gateways.yaml", Options{}, []string{
		"RG0001 warning VirtualService shop/shared testdata/vs-gateways.yaml:18",
		"IST0101 error VirtualService shop/typo testdata/vs-gateways.yaml:26",
		"IST0132 warning VirtualService shop/typo testdata/vs-gateways.yaml:26",
	}},
	// The app renders no gateway workload: the one a selector names is
	// deployed elsewhere (Istio's gateway chart), so it cannot be checked.
	{"gateway-selector.yaml", Options{}, []string{
		"RG0001 warning Gateway edge/private testdata/gateway-selector.yaml:19",
	}},
	// Without Istio's stand-in ingress gateway nothing backs either selector.
	{"gateway-selector.yaml", Options{NoDefaultResources: true}, []string{
		"RG0001 warning Gateway edge/public testdata/gateway-selector.yaml:3",
		"RG0001 warning Gateway edge/private testdata/gateway-selector.yaml:19",
	}},
	// It renders its gateway: a selector matching none of it is a mistake.
	{"gateway-selector-rendered.yaml", Options{}, []string{
		"IST0101 error Gateway edge/public testdata/gateway-selector-rendered.yaml:36",
	}},
	{"dr-subsets-backed.yaml", Options{}, nil},
	{"dr-subset-unbacked.yaml", Options{}, []string{
		"IST0173 error DestinationRule shop/reviews testdata/dr-subset-unbacked.yaml:31",
	}},
	// No workload of the service is rendered: silent by default ...
	{"dr-no-workloads.yaml", Options{}, nil},
	// ... and istioctl's behaviour (one error per subset) on request.
	{"dr-no-workloads.yaml", Options{ReportUnbackedPodMessages: true}, []string{
		"IST0173 error DestinationRule shop/reviews testdata/dr-no-workloads.yaml:15",
		"IST0173 error DestinationRule shop/reviews testdata/dr-no-workloads.yaml:15",
	}},
	{"bad-spec.yaml", Options{}, []string{
		"IST0106 error VirtualService default/broken testdata/bad-spec.yaml:2",
	}},
	{"bad-spec.yaml", Options{DefaultNamespace: "shop"}, []string{
		"IST0106 error VirtualService shop/broken testdata/bad-spec.yaml:2",
	}},
	{"injector-configmap.yaml", Options{}, []string{
		"IST0001 error   ", // about no object: the panic does not say which
		"IST0101 error VirtualService plain/ratings testdata/injector-configmap.yaml:17",
	}},
	{"workload-selectors.yaml", Options{}, []string{
		"IST0101 error Sidecar apps/egress testdata/workload-selectors.yaml:25",
		"IST0101 error Telemetry apps/tracing testdata/workload-selectors.yaml:36",
		"IST0127 warning AuthorizationPolicy apps/deny testdata/workload-selectors.yaml:47",
	}},
	{"workload-selectors.yaml", Options{ReportUnbackedPodMessages: true}, []string{
		"IST0101 error Sidecar routing/egress testdata/workload-selectors.yaml:5",
		"IST0127 warning AuthorizationPolicy routing/deny testdata/workload-selectors.yaml:16",
		"IST0101 error Sidecar apps/egress testdata/workload-selectors.yaml:25",
		"IST0101 error Telemetry apps/tracing testdata/workload-selectors.yaml:36",
		"IST0127 warning AuthorizationPolicy apps/deny testdata/workload-selectors.yaml:47",
	}},
	{"suppress-annotation.yaml", Options{}, []string{
		"IST0101 error VirtualService shop/loud testdata/suppress-annotation.yaml:26",
	}},
	// credentialName Secrets judged by what the app renders (IST0101 as a
	// warning, like RG1401); contents of rendered ones (IST0161).
	{"gateway-credentials.yaml", Options{}, []string{
		"IST0161 error Gateway edge/broken testdata/gateway-credentials.yaml:18",
		"IST0101 warning Gateway edge/missing testdata/gateway-credentials.yaml:30",
	}},
	{"gateway-credentials-elsewhere.yaml", Options{}, nil},
	// A missing subset is RG3001's (istioroutes.Subsets), not a second IST0101.
	{"vs-subsets.yaml", Options{}, nil},
	{"crd-version.yaml", Options{}, []string{
		"IST0176 warning CustomResourceDefinition tcproutes.gateway.networking.k8s.io testdata/crd-version.yaml:3",
	}},
	{"workload-pods.yaml", Options{}, []string{
		"IST0102 info Namespace legacy testdata/workload-pods.yaml:12",
		"IST0144 warning StatefulSet shop/db testdata/workload-pods.yaml:33",
		"IST0118 info Service legacy/db testdata/workload-pods.yaml:54",
	}},
}

func load(t *testing.T, file string) []*manifest.Object {
	t.Helper()
	path := filepath.Join("testdata", file)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := manifest.Decode(path, data)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

func summary(fs []analysis.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s %s %s %s", f.Code, f.Severity, f.Object, f.Source))
	}
	return out
}

func TestGrid(t *testing.T) {
	for _, tc := range grid {
		t.Run(fmt.Sprintf("%s/%+v", tc.file, tc.opts), func(t *testing.T) {
			fs, err := Analyze(context.Background(), load(t, tc.file), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := summary(fs); !slices.Equal(got, tc.want) {
				t.Errorf("findings:\n got %q\nwant %q\nmessages: %v", got, tc.want, fs)
			}
			for _, f := range fs {
				if f.Analyzer != Name || (f.Object.APIVersion == "" && f.Code != "IST0001") {
					t.Errorf("finding %+v: want analyzer %q and the object's apiVersion", f, Name)
				}
			}
		})
	}
}

// Istio's messages are kept as Istio words them, with the page explaining
// them, on the exact subset or host at fault.
func TestMessagesKeepIstioText(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"vs-missing-host.yaml", `Referenced host not found: "ratings" (see https://istio.io/`},
		{"vs-missing-host.yaml", `Referenced mirror host not found: "audit.shop.svc.cluster.local"`},
		{"vs-missing-host.yaml", `host payments.billing.svc.cluster.local is in namespace "billing", which this app does not render`},
		{"gateway-selector.yaml", `selector app=private-gateway matches no gateway workload this app renders`},
		{"gateway-selector-rendered.yaml", `Referenced selector not found: "istio=ingres"`},
		{"dr-subset-unbacked.yaml", "The Subset green defined in the DestinationRule does not select any pods"},
		{"bad-spec.yaml", "Schema validation error: spec does not decode as VirtualService"},
		{"injector-configmap.yaml", "Istio's analyzer injection.Analyzer failed on this input"},
		{"workload-pods.yaml", "Port name db (port: 5432, targetPort: 5432) doesn't follow"},
	} {
		fs, err := Analyze(context.Background(), load(t, tc.file), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(fs, func(f analysis.Finding) bool { return strings.Contains(f.Message, tc.want) }) {
			t.Errorf("%s: messages %v, want one to contain %q", tc.file, fs, tc.want)
		}
	}
}

// The reason this package exists: istioctl's file source drops Services and
// skips the destination-host analyzer, so the dangling host goes unseen.
func TestReaderSourceMissesDanglingHost(t *testing.T) {
	data, err := os.ReadFile("testdata/vs-missing-host.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sa := local.NewSourceAnalyzer(analyzers.AllCombined(), "", "istio-system", nil)
	if err := sa.AddReaderKubeSource([]local.ReaderSource{{Name: "vs-missing-host.yaml", Reader: strings.NewReader(string(data))}}); err != nil {
		t.Fatal(err)
	}
	res, err := sa.Analyze(make(chan struct{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range res.Messages {
		if m.Type.Code() == "IST0101" {
			t.Fatalf("istioctl's reader source found %v; the premise of this package changed", m)
		}
	}
	if !slices.Contains(res.SkippedAnalyzers, "virtualservice.DestinationHostAnalyzer") {
		t.Fatalf("want the destination-host analyzer skipped by the reader source, skipped: %v", res.SkippedAnalyzers)
	}
	fs, err := Analyze(context.Background(), load(t, "vs-missing-host.yaml"), Options{})
	if err != nil || len(fs) == 0 || !strings.Contains(fs[0].Message, `host not found: "ratings"`) {
		t.Fatalf("Analyze = %v, %v; want the dangling host", fs, err)
	}
}

func TestSeverityMapping(t *testing.T) {
	for l, want := range map[diag.Level]analysis.Severity{
		diag.Error: analysis.SeverityError, diag.Warning: analysis.SeverityWarning, diag.Info: analysis.SeverityInfo,
	} {
		if got := severityOf(l); got != want {
			t.Errorf("severityOf(%v) = %v, want %v", l, got, want)
		}
	}
}

func TestDeterministic(t *testing.T) {
	var objs []*manifest.Object
	for _, tc := range grid {
		objs = append(objs, load(t, tc.file)...)
	}
	objs = slices.DeleteFunc(objs, func(o *manifest.Object) bool { return o.Source.File == "testdata/dr-subset-unbacked.yaml" })
	first, err := Analyze(context.Background(), objs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		again, err := Analyze(context.Background(), objs, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(first, again, analysis.Finding.Same) {
			t.Fatalf("two runs differ:\n%v\n%v", first, again)
		}
	}
}

func TestCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Analyze(ctx, load(t, "vs-missing-host.yaml"), Options{}); err == nil {
		t.Fatal("want the context's error")
	}
}

// With Services, Namespaces and Pods kept, the analyzers istioctl skips in
// file-only mode run (istioctl runs 32 of them on files).
func TestAnalyzersRun(t *testing.T) {
	combined := analyzers.AllCombined()
	total := len(combined.AnalyzerNames())
	skipped := combined.RemoveSkipped(inputSchemas(combined))
	ran := combined.AnalyzerNames()
	for _, want := range []string{
		"virtualservice.DestinationHostAnalyzer", "destinationrule.SubsetSelectPodAnalyzer",
		"gateway.IngressGatewayPortAnalyzer", "injection.Analyzer", "service.PortNameAnalyzer",
		"gateway.SecretAnalyzer", // credentialName Secrets (IST0101, IST0161)
	} {
		if !slices.Contains(ran, want) {
			t.Errorf("%s does not run; skipped: %v", want, skipped)
		}
	}
	t.Logf("%d of %d analyzers run; skipped: %v", len(ran), total, skipped)
	if len(ran) <= 32 {
		t.Errorf("only %d analyzers run", len(ran))
	}
}
