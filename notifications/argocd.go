package notifications

import (
	"embed"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/routeguard/routeguard/internal/yamlout"
	"sigs.k8s.io/yaml"
)

//go:embed argocd/triggers/*.yaml argocd/templates/*.yaml argocd/templates/prelude.tpl argocd/services/*.yaml
var argocdFS embed.FS

// RoutingKinds are the kinds whose health decides on-route-degraded (where
// Argo CD records per-resource health; on Argo CD 3.x by default their
// presence in a Degraded application does) and whose presence makes an
// application a routing application (on-sync-succeeded).
var RoutingKinds = []string{
	"HTTPRoute", "GRPCRoute", "TLSRoute", "TCPRoute", "UDPRoute", "Gateway",
	"VirtualService", "DestinationRule", "ServiceEntry", "Ingress",
}

// WebhookServiceName is the name of the webhook service for Slack incoming
// webhooks (service.webhook.<name>); templates carry a body for it.
const WebhookServiceName = "slack-webhook"

// templateSource is one file of argocd/templates: what differs between the
// templates. The builder turns it into Argo CD's template layout.
type templateSource struct {
	Description string `json:"description"`
	Headline    string `json:"headline"`
	Color       string `json:"color"`
	Body        string `json:"body"`
}

// ArgoCDData returns the argocd-notifications-cm data routeguard adds:
// trigger.<name>, template.<name> and service.webhook.slack-webhook keys.
func ArgoCDData() (map[string]string, error) {
	data := map[string]string{}
	prelude, err := argocdFS.ReadFile("argocd/templates/prelude.tpl")
	if err != nil {
		return nil, fmt.Errorf("read template prelude: %w", err)
	}
	if err := addFiles(data, "argocd/triggers", "trigger.", nil); err != nil {
		return nil, err
	}
	if err := addFiles(data, "argocd/services", "service.", nil); err != nil {
		return nil, err
	}
	build := func(file string, raw []byte) (string, error) {
		return buildTemplate(file, raw, strings.TrimRight(string(prelude), "\n"))
	}
	if err := addFiles(data, "argocd/templates", "template.", build); err != nil {
		return nil, err
	}
	return data, nil
}

// addFiles adds one data key per *.yaml file of dir: prefix + the file's base
// name. convert, when set, turns the file into the value.
func addFiles(data map[string]string, dir, prefix string, convert func(string, []byte) (string, error)) error {
	entries, err := argocdFS.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("read %s: %w", dir, err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		file := path.Join(dir, e.Name())
		raw, err := argocdFS.ReadFile(file)
		if err != nil {
			return fmt.Errorf("read %s: %w", file, err)
		}
		value := stripHeaderComments(string(raw))
		if convert != nil {
			if value, err = convert(file, raw); err != nil {
				return err
			}
		}
		data[prefix+strings.TrimSuffix(e.Name(), ".yaml")] = value
	}
	return nil
}

// stripHeaderComments drops the leading comment block of a source file (it
// documents the file, not the value Argo CD reads).
func stripHeaderComments(s string) string {
	lines := strings.Split(s, "\n")
	i := 0
	for i < len(lines) && (strings.HasPrefix(lines[i], "#") || strings.TrimSpace(lines[i]) == "") {
		i++
	}
	return strings.Join(lines[i:], "\n")
}

// buildTemplate expands one template source into Argo CD's template layout:
// message, slack.{attachments, blocks, groupingKey, deliveryPolicy,
// notifyBroadcast} and webhook.slack-webhook.{method, body}.
func buildTemplate(file string, raw []byte, prelude string) (string, error) {
	var src templateSource
	if err := yaml.UnmarshalStrict(raw, &src); err != nil {
		return "", fmt.Errorf("%s: %w", file, err)
	}
	if src.Headline == "" || src.Color == "" || !strings.Contains(src.Body, "$body :=") {
		return "", fmt.Errorf("%s: headline, color and a body that sets $body are required", file)
	}
	head := prelude + "\n" + strings.TrimRight(src.Body, "\n") + "\n"
	headline := strconv.Quote(src.Headline)
	textExpr := `printf "%s %s (%s, revision %s)" ` + headline + ` $appRef ($project ` + esc + `) $revText`
	attachments := attachmentsJSON(headline, strconv.Quote(src.Color))
	blocks := blocksJSON(headline)
	tmpl := map[string]any{
		"message": prelude + "\n{{ " + textExpr + " }}",
		"slack": map[string]any{
			"attachments":     head + attachments,
			"blocks":          head + blocks,
			"groupingKey":     prelude + "\n" + `routeguard/{{ $ns }}/{{ $name }}/{{ $rev }}`,
			"deliveryPolicy":  "Post",
			"notifyBroadcast": false,
		},
		"webhook": map[string]any{
			WebhookServiceName: map[string]any{
				"method": "POST",
				"body": head + "{\n\"text\": {{ " + textExpr + " | toJson }}" +
					",\n\"blocks\": " + blocks + ",\n\"attachments\": " + attachments + "\n}",
			},
		},
	}
	out, err := yamlout.Marshal(tmpl)
	if err != nil {
		return "", fmt.Errorf("%s: %w", file, err)
	}
	return "# " + src.Description + "\n" + string(out), nil
}

// esc is the template pipeline that escapes Slack's control characters.
const esc = `| replace "&" "&amp;" | replace "<" "&lt;" | replace ">" "&gt;"`

func attachmentsJSON(headline, color string) string {
	field := func(title, expr string, short bool) string {
		return fmt.Sprintf(`    {"title": %q, "value": {{ %s | toJson }}, "short": %t}`, title, expr, short)
	}
	fields := []string{
		field("Project", "$project "+esc, true),
		field("Revision", "$revText", true),
		field("Sync status", "$sync "+esc, true),
		field("Health", "$health "+esc, true),
		field("Operation", "$phase "+esc, true),
		field("Repository", "$repoText", false),
	}
	return "[{\n" +
		`  "color": {{ ` + color + ` | toJson }},` + "\n" +
		`  "fallback": {{ printf "%s %s" ` + headline + ` $name ` + esc + ` | toJson }},` + "\n" +
		`  "title": {{ $name ` + esc + ` | toJson }},` + "\n" +
		`  "title_link": {{ $appUrl | toJson }},` + "\n" +
		`  "text": {{ $body | toJson }},` + "\n" +
		`  "mrkdwn_in": ["text", "fields"],` + "\n" +
		`  "fields": [` + "\n" + strings.Join(fields, ",\n") + "\n  ]\n}]"
}

func blocksJSON(headline string) string {
	return "[\n" +
		`  {"type": "section", "text": {"type": "mrkdwn", "text": {{ printf "%s %s" ` + headline + ` $appRef | toJson }}}},` + "\n" +
		`  {"type": "context", "elements": [{"type": "mrkdwn", "text": {{ printf "Project *%s*  ·  revision %s  ·  sync %s  ·  health %s" ($project ` + esc + `) $revText ($sync ` + esc + `) ($health ` + esc + `) | toJson }}}]}` + "\n]"
}
