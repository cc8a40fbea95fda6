package notifications

import (
	"embed"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/routeguard/routeguard/internal/routing"

	"github.com/routeguard/routeguard/internal/bundleyaml"
	"sigs.k8s.io/yaml"
)

//go:embed argocd/triggers/*.yaml argocd/templates/*.yaml argocd/templates/prelude.tpl argocd/services/*.yaml
var argocdFS embed.FS

// RoutingKinds are the kinds whose health decides on-routeguard-route-degraded (where
// Argo CD records per-resource health; on Argo CD 3.x by default their
// presence in a Degraded application does) and whose presence makes an
// application a routing application (on-routeguard-sync-succeeded):
// routing.Alerted.
var RoutingKinds = routing.KindNames(routing.Alerted)

// routingKinds fills the placeholders of the source files with
// RoutingKinds, in each file's syntax: the triggers' expressions
// (@ROUTING_KINDS_EXPR@: ['HTTPRoute', ...]), the templates' prelude
// (@ROUTING_KINDS_TEMPLATE@: "HTTPRoute" ...) and the Flux Alert's
// regular expression (@ROUTING_KINDS_REGEX@: HTTPRoute|...). A new kind
// is then one entry of routing.Kinds.
var routingKinds = strings.NewReplacer(
	"@ROUTING_KINDS_EXPR@", "['"+strings.Join(RoutingKinds, "', '")+"']",
	"@ROUTING_KINDS_TEMPLATE@", `"`+strings.Join(RoutingKinds, `" "`)+`"`,
	"@ROUTING_KINDS_REGEX@", strings.Join(RoutingKinds, "|"),
)

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
	raw, err := argocdFS.ReadFile("argocd/templates/prelude.tpl")
	if err != nil {
		return nil, fmt.Errorf("read template prelude: %w", err)
	}
	prelude := routingKinds.Replace(string(raw))
	if err := addFiles(data, "argocd/triggers", "trigger.", nil); err != nil {
		return nil, err
	}
	if err := addFiles(data, "argocd/services", "service.", nil); err != nil {
		return nil, err
	}
	build := func(file string, raw []byte) (string, error) {
		return buildTemplate(file, raw, strings.TrimRight(prelude, "\n"))
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
		value := routingKinds.Replace(stripHeaderComments(string(raw)))
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
// message (Slack's fallback text for the slack service, plain text for every
// other service), email.subject (email's body is message), teams.template
// (a MessageCard), slack.{attachments, blocks, groupingKey, deliveryPolicy,
// notifyBroadcast} and webhook.slack-webhook.{method, body}.
func buildTemplate(file string, raw []byte, prelude string) (string, error) {
	var src templateSource
	if err := yaml.UnmarshalStrict(raw, &src); err != nil {
		return "", fmt.Errorf("%s: %w", file, err)
	}
	if src.Headline == "" || src.Color == "" || !strings.Contains(src.Body, "$body :=") {
		return "", fmt.Errorf("%s: headline, color and a body that sets $body are required", file)
	}
	plainHeadline := plainText(src.Headline)
	if plainHeadline == "" || !strings.HasPrefix(src.Color, "#") {
		return "", fmt.Errorf("%s: the headline needs words besides its emoji, and color is #RRGGBB", file)
	}
	head := prelude + "\n" + strings.TrimRight(src.Body, "\n") + "\n"
	headline := strconv.Quote(src.Headline)
	textExpr := `printf "%s %s (%s, revision %s)" ` + headline + ` $appRef ($project ` + esc + `) $revText`
	attachments := attachmentsJSON(headline, strconv.Quote(src.Color))
	blocks := blocksJSON(headline)
	tmpl := map[string]any{
		"message": head + `{{- if eq (toString .serviceType) "slack" }}{{ ` + textExpr + ` }}{{ else }}` + plainMessage(strconv.Quote(plainHeadline)) + `{{ end -}}`,
		"email": map[string]any{
			// No prelude: the name is all a subject needs, and an Application
			// always has one.
			"subject": plainHeadline + ` {{ (.app.metadata | default dict).name | default "" }}`,
		},
		"teams": map[string]any{
			"template": head + teamsCard(strconv.Quote(plainHeadline), strconv.Quote(strings.TrimPrefix(src.Color, "#"))),
		},
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
	out, err := bundleyaml.Marshal(tmpl)
	if err != nil {
		return "", fmt.Errorf("%s: %w", file, err)
	}
	return "# " + src.Description + "\n" + string(out), nil
}

// emojiRE matches Slack emoji codes (":x:", ":white_check_mark:").
var emojiRE = regexp.MustCompile(`:[a-z0-9_+-]+:`)

// plainText is a headline without its Slack emoji.
func plainText(s string) string {
	return strings.Join(strings.Fields(emojiRE.ReplaceAllString(s, "")), " ")
}

// unescape turns the Slack-escaped $body back into the text it was made of
// (&lt; and &gt; first, so that an escaped "&lt;" stays "&lt;").
const unescape = `| replace "&lt;" "<" | replace "&gt;" ">" | replace "&amp;" "&"`

// plainMessage is message for every service but Slack's bot: the headline,
// the app, its project and revision, the event's text, and the links, as
// plain text (email bodies, Teams without its template, Mattermost,
// Telegram, webhooks...).
func plainMessage(headline string) string {
	return `{{ printf "%s %s (project %s, revision %s)" ` + headline + ` $name $project ($short | default "unknown") }}` + "\n" +
		`{{ $body ` + unescape + ` }}` +
		`{{ if $appUrl }}` + "\n" + `Application: {{ $appUrl }}{{ end }}` +
		`{{ if $revLink }}` + "\n" + `Commit: {{ $revLink }}{{ end }}`
}

// teamsCard is the Microsoft Teams MessageCard (Office 365 connector) the
// teams service posts as it is: the same title, text and fields as the Slack
// attachment, and buttons to the app and the commit. Its text keeps the
// Slack escapes of <, > and &, which Teams shows as the characters and never
// reads as markup.
func teamsCard(headline, color string) string {
	fact := func(name, expr string) string {
		return fmt.Sprintf(`    {"name": %q, "value": {{ %s | toJson }}}`, name, expr)
	}
	facts := []string{
		fact("Project", "$project "+esc),
		fact("Revision", `$short | default "unknown"`),
		fact("Sync status", "$sync "+esc),
		fact("Health", "$health "+esc),
		fact("Operation", "$phase "+esc),
		fact("Repository", "$repoText"),
	}
	action := func(name, uri string) string {
		return `{"@type": "OpenUri", "name": "` + name + `", "targets": [{"os": "default", "uri": {{ ` + uri + ` | toJson }}}]}`
	}
	return "{\n" +
		`  "@type": "MessageCard",` + "\n" +
		`  "@context": "https://schema.org/extensions",` + "\n" +
		`  "themeColor": ` + color + `,` + "\n" +
		`  "summary": {{ printf "%s %s" ` + headline + ` $name ` + esc + ` | toJson }},` + "\n" +
		`  "title": {{ printf "%s %s" ` + headline + ` $name ` + esc + ` | toJson }},` + "\n" +
		`  "text": {{ $body | replace "\n" "\n\n" | toJson }},` + "\n" +
		`  "sections": [{"facts": [` + "\n" + strings.Join(facts, ",\n") + "\n  ]}],\n" +
		`  "potentialAction": [{{ if $appUrl }}` + action("Open in Argo CD", "$appUrl") + `{{ if $revLink }}, {{ end }}{{ end }}{{ if $revLink }}` + action("Open the commit", "$revLink") + `{{ end }}]` + "\n}"
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
