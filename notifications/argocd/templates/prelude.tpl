{{- /* routeguard prelude: defines the values below; safe on an Application with no status at all */ -}}
{{- $meta := .app.metadata | default dict -}}
{{- $spec := .app.spec | default dict -}}
{{- $status := .app.status | default dict -}}
{{- $op := $status.operationState | default dict -}}
{{- $syncResult := $op.syncResult | default dict -}}
{{- $syncStatus := $status.sync | default dict -}}
{{- $healthStatus := $status.health | default dict -}}
{{- $name := $meta.name | default "" | toString -}}
{{- $ns := $meta.namespace | default "" | toString -}}
{{- $project := $spec.project | default "default" | toString -}}
{{- $base := .context.argocdUrl | default "" | trimSuffix "/" -}}
{{- $appUrl := "" -}}
{{- if and $base $ns }}{{ $appUrl = printf "%s/applications/%s/%s" $base (urlquery $ns) (urlquery $name) }}{{ else if $base }}{{ $appUrl = printf "%s/applications/%s" $base (urlquery $name) }}{{ end -}}
{{- $appRef := printf "*%s*" ($name | replace "&" "&amp;" | replace "<" "&lt;" | replace ">" "&gt;") -}}
{{- if $appUrl }}{{ $appRef = printf "<%s|%s>" ($appUrl | replace "&" "&amp;" | replace "<" "%3C" | replace ">" "%3E" | replace "|" "%7C") ($name | replace "&" "&amp;" | replace "<" "&lt;" | replace ">" "&gt;") }}{{ end -}}
{{- $source := $spec.source | default dict -}}
{{- if not $spec.source }}{{ $sources := $spec.sources | default list }}{{ if $sources }}{{ $source = first $sources | default dict }}{{ end }}{{ end -}}
{{- $repo := $source.repoURL | default "" | toString -}}
{{- $chart := $source.chart | default "" | toString -}}
{{- $rev := $syncResult.revision | default $syncStatus.revision | default "" -}}
{{- if not $rev }}{{ $revs := $syncResult.revisions | default $syncStatus.revisions | default list }}{{ if $revs }}{{ $rev = first $revs | default "" }}{{ end }}{{ end -}}
{{- $rev = toString $rev -}}
{{- $short := $rev | trunc 7 -}}
{{- $revLink := "" -}}
{{- if and $repo (not $chart) (regexMatch "^[0-9a-f]{40}$" $rev) (regexMatch "^(https?://|ssh://|git@)[^ ]+$" $repo) }}{{ $revLink = printf "%s/commit/%s" (call .repo.RepoURLToHTTPS $repo | trimSuffix ".git") $rev }}{{ end -}}
{{- $revText := "unknown" -}}
{{- if $rev }}{{ $revText = $short | replace "&" "&amp;" | replace "<" "&lt;" | replace ">" "&gt;" }}{{ end -}}
{{- if $revLink }}{{ $revText = printf "<%s|%s>" ($revLink | replace "&" "&amp;" | replace "<" "%3C" | replace ">" "%3E" | replace "|" "%7C") $revText }}{{ end -}}
{{- $repoText := $repo | default "unknown" -}}
{{- if $chart }}{{ $repoText = printf "%s (chart %s)" $repoText $chart }}{{ end -}}
{{- $repoText = $repoText | replace "&" "&amp;" | replace "<" "&lt;" | replace ">" "&gt;" -}}
{{- $sync := $syncStatus.status | default "Unknown" | toString -}}
{{- $health := $healthStatus.status | default "Unknown" | toString -}}
{{- $phase := $op.phase | default "none" | toString -}}
{{- $opMsg := $op.message | default "" | toString -}}
{{- $routingKinds := list @ROUTING_KINDS_TEMPLATE@ -}}
