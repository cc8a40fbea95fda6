{{- define "backend.fullname" -}}
{{- if eq .Release.Name .Chart.Name -}}{{ .Chart.Name }}{{- else -}}{{ printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" }}{{- end -}}
{{- end -}}

{{- define "backend.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Values.image.tag | quote }}
app: {{ include "backend.fullname" . }}
{{- end -}}
