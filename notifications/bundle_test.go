package notifications

import (
	"bytes"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite dist/ and examples/flux/notifications from the sources")

// distFiles are the committed bundles: compat/argocd tests Argo CD's code on
// these exact bytes, and examples/flux uses the Flux one.
var distFiles = []struct {
	path   string
	target Target
	format Format
}{
	{"dist/argocd-notifications-cm.patch.yaml", ForArgoCD, FormatKustomizePatch},
	{"dist/argocd-helm-values.yaml", ForArgoCD, FormatHelmValues},
	{"dist/flux-notifications.yaml", ForFlux, FormatManifests},
	{"../examples/flux/notifications/routeguard-notifications.yaml", ForFlux, FormatManifests},
}

func TestCommittedBundlesAreCurrent(t *testing.T) {
	for _, f := range distFiles {
		want, err := Bundle(f.target, f.format)
		if err != nil {
			t.Fatalf("%s: %v", f.path, err)
		}
		if *update {
			if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f.path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatalf("%v (run: go test ./notifications -run TestCommittedBundlesAreCurrent -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale; run: go test ./notifications -run TestCommittedBundlesAreCurrent -update", f.path)
		}
	}
}

func TestBundleIsDeterministic(t *testing.T) {
	for target, formats := range Formats {
		for _, format := range formats {
			a, err := Bundle(target, format)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 5; i++ {
				b, _ := Bundle(target, format)
				if !bytes.Equal(a, b) {
					t.Fatalf("%s/%s: two builds differ", target, format)
				}
			}
		}
	}
}

func TestBundleRejectsUnknownTargetsAndFormats(t *testing.T) {
	cases := []struct {
		target Target
		format Format
		want   string
	}{
		{"spinnaker", "", `unknown target "spinnaker": use argocd or flux`},
		{ForArgoCD, FormatManifests, `format "manifests" is not available for argocd: use kustomize-patch or helm-values`},
		{ForFlux, FormatHelmValues, `format "helm-values" is not available for flux: use manifests`},
	}
	for _, c := range cases {
		_, err := Bundle(c.target, c.format)
		if err == nil || err.Error() != c.want {
			t.Errorf("Bundle(%q, %q) error = %v, want %q", c.target, c.format, err, c.want)
		}
	}
}

// The Kustomize patch and the Helm values carry the same keys and values.
func TestHelmValuesMatchConfigMapData(t *testing.T) {
	data, err := ArgoCDData()
	if err != nil {
		t.Fatal(err)
	}
	var cm struct {
		APIVersion string            `json:"apiVersion"`
		Kind       string            `json:"kind"`
		Metadata   map[string]string `json:"metadata"`
		Data       map[string]string `json:"data"`
	}
	patch, _ := ArgoCDKustomizePatch()
	if err := yaml.UnmarshalStrict(patch, &cm); err != nil {
		t.Fatal(err)
	}
	if cm.Kind != "ConfigMap" || cm.APIVersion != "v1" || cm.Metadata["name"] != "argocd-notifications-cm" {
		t.Fatalf("patch targets %s %s %v", cm.APIVersion, cm.Kind, cm.Metadata)
	}
	var values struct {
		Notifications struct {
			Triggers  map[string]string `json:"triggers"`
			Templates map[string]string `json:"templates"`
			Notifiers map[string]string `json:"notifiers"`
		} `json:"notifications"`
	}
	raw, _ := ArgoCDHelmValues()
	if err := yaml.UnmarshalStrict(raw, &values); err != nil {
		t.Fatal(err)
	}
	merged := map[string]string{}
	for _, m := range []map[string]string{values.Notifications.Triggers, values.Notifications.Templates, values.Notifications.Notifiers} {
		for k, v := range m {
			merged[k] = v
		}
	}
	wantKeys := sourceKeys(t)
	if len(wantKeys) < 10 {
		t.Fatalf("only %d sources under argocd/: %v", len(wantKeys), wantKeys)
	}
	if got := strings.Join(slices.Sorted(maps.Keys(data)), " "); got != strings.Join(wantKeys, " ") {
		t.Fatalf("data keys = %s\nwant %s", got, strings.Join(wantKeys, " "))
	}
	for _, k := range wantKeys {
		if cm.Data[k] != data[k] || merged[k] != data[k] {
			t.Errorf("%s differs between ConfigMap data, patch and Helm values", k)
		}
	}
	if len(cm.Data) != len(data) || len(merged) != len(data) {
		t.Errorf("extra keys: patch %d, values %d, data %d", len(cm.Data), len(merged), len(data))
	}
}

// The kinds listed in the triggers, the template prelude and the Flux
// Alert are RoutingKinds (routing.Alerted): the sources hold placeholders,
// none of which is left in a bundle.
func TestRoutingKindsAgreeEverywhere(t *testing.T) {
	data, err := ArgoCDData()
	if err != nil {
		t.Fatal(err)
	}
	exprList := "['" + strings.Join(RoutingKinds, "', '") + "']"
	for _, k := range []string{"trigger.on-routeguard-route-degraded", "trigger.on-routeguard-sync-succeeded"} {
		if !strings.Contains(data[k], ".kind in "+exprList) {
			t.Errorf("%s does not test .kind in %s:\n%s", k, exprList, data[k])
		}
	}
	tplList := `$routingKinds := list "` + strings.Join(RoutingKinds, `" "`) + `"`
	for _, k := range slices.Sorted(maps.Keys(data)) {
		if strings.HasPrefix(k, "template.") && !strings.Contains(data[k], tplList) {
			t.Errorf("%s does not define %s", k, tplList)
		}
	}
	alerts, _ := FluxManifests()
	if !strings.Contains(string(alerts), "("+strings.Join(RoutingKinds, "|")+")/") {
		t.Errorf("flux inclusionList does not name every routing kind")
	}
	for k, v := range data {
		if strings.Contains(v, "@ROUTING_KINDS") {
			t.Errorf("%s keeps a placeholder:\n%s", k, v)
		}
	}
	if strings.Contains(string(alerts), "@ROUTING_KINDS") {
		t.Errorf("the Flux manifests keep a placeholder")
	}
}

// Every template defines the Slack parts and the incoming-webhook body, and
// no template leaves the prelude marker or an unescaped interpolation of the
// app name in JSON.
func TestTemplatesHaveEveryPart(t *testing.T) {
	data, err := ArgoCDData()
	if err != nil {
		t.Fatal(err)
	}
	type tpl struct {
		Message string `json:"message"`
		Email   struct {
			Subject string `json:"subject"`
		} `json:"email"`
		Teams struct {
			Template string `json:"template"`
		} `json:"teams"`
		Slack struct {
			Attachments     string `json:"attachments"`
			Blocks          string `json:"blocks"`
			GroupingKey     string `json:"groupingKey"`
			DeliveryPolicy  string `json:"deliveryPolicy"`
			NotifyBroadcast bool   `json:"notifyBroadcast"`
		} `json:"slack"`
		Webhook map[string]struct {
			Method string `json:"method"`
			Body   string `json:"body"`
		} `json:"webhook"`
	}
	bare := regexp.MustCompile(`"\{\{[^}]*\}\}"`) // a value interpolated inside quotes, unescaped
	for _, k := range slices.Sorted(maps.Keys(data)) {
		if !strings.HasPrefix(k, "template.") {
			continue
		}
		var v tpl
		if err := yaml.UnmarshalStrict([]byte(data[k]), &v); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		wh := v.Webhook[WebhookServiceName]
		if v.Message == "" || v.Email.Subject == "" || v.Teams.Template == "" || v.Slack.Attachments == "" || v.Slack.Blocks == "" || v.Slack.GroupingKey == "" || wh.Body == "" || wh.Method != "POST" {
			t.Errorf("%s lacks a part: %+v", k, v)
		}
		for _, part := range []string{v.Slack.Attachments, v.Slack.Blocks, wh.Body, v.Teams.Template} {
			if bare.MatchString(part) {
				t.Errorf("%s interpolates a value without toJson: %s", k, bare.FindString(part))
			}
		}
	}
}

// sourceKeys are the argocd-notifications-cm keys the sources make: one
// per file of argocd/services (service.<file>), argocd/templates
// (template.<file>) and argocd/triggers (trigger.<file>), sorted. A new
// trigger or template is its file; this test then expects its key.
func sourceKeys(t *testing.T) []string {
	t.Helper()
	var keys []string
	for _, dir := range []string{"services", "templates", "triggers"} {
		files, err := filepath.Glob(filepath.Join("argocd", dir, "*.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			keys = append(keys, strings.TrimSuffix(dir, "s")+"."+strings.TrimSuffix(filepath.Base(f), ".yaml"))
		}
	}
	slices.Sort(keys)
	return keys
}

// Triggers reads every trigger file, each condition with what Argo CD
// needs and sending a template that exists.
func TestTriggers(t *testing.T) {
	trs, err := Triggers()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tr := range trs {
		names = append(names, "trigger."+tr.Name)
	}
	var want []string
	for _, k := range sourceKeys(t) {
		if strings.HasPrefix(k, "trigger.") {
			want = append(want, k)
		}
	}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("Triggers = %v, want the files of argocd/triggers %v", names, want)
	}
	for _, tr := range trs {
		for _, c := range tr.Conditions {
			if !strings.HasPrefix(tr.Name, "on-routeguard-") || c.Description == "" || len(c.Send) == 0 {
				t.Errorf("%s: %+v", tr.Name, c)
			}
		}
	}
	if deg := trs[slices.IndexFunc(trs, func(t Trigger) bool { return t.Name == "on-routeguard-route-degraded" })]; len(deg.Conditions) != 2 || deg.Conditions[1].Send[0] != "routeguard-routing-app-degraded" {
		t.Errorf("on-routeguard-route-degraded: %+v", deg)
	}
}

func TestTriggersRejectBadFiles(t *testing.T) {
	for name, c := range map[string]struct{ trigger, want string }{
		"missing template": {"- description: d\n  when: 'true'\n  send: [nope]\n", `sends "nope", but argocd/templates/nope.yaml does not exist`},
		"no description":   {"- when: 'true'\n  send: [t]\n", "condition 1 needs a description"},
		"unknown field":    {"- description: d\n  when: 'true'\n  send: [t]\n  sendd: [t]\n", "unknown field"},
		"empty":            {"[]\n", "no condition"},
	} {
		fsys := fstest.MapFS{
			"argocd/triggers/on-routeguard-x.yaml": {Data: []byte(c.trigger)},
			"argocd/templates/t.yaml":              {Data: []byte("description: d\n")},
		}
		_, err := triggersIn(fsys)
		if err == nil || !strings.Contains(err.Error(), "argocd/triggers/on-routeguard-x.yaml") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want the file and %q", name, err, c.want)
		}
	}
}
