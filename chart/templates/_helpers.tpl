{{/*
The release's full name: the release name, followed by the chart name unless it already holds it.
*/}}
{{- define "icd.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/*
The namespace of the server, where the doctor pod and its ServiceAccount live.
*/}}
{{- define "icd.namespace" -}}
{{- default .Release.Namespace .Values.namespace -}}
{{- end -}}

{{/*
The ServiceAccount the doctor pod runs as, for the chosen identity.
*/}}
{{- define "icd.serviceAccountName" -}}
{{- if eq .Values.identity "dedicated" -}}
{{- default (include "icd.fullname" .) .Values.dedicatedServiceAccount.name -}}
{{- else -}}
{{- .Values.controller.serviceAccountName -}}
{{- end -}}
{{- end -}}

{{/*
Cluster-scoped objects are shared by every namespace: their names carry the namespace too.
*/}}
{{- define "icd.clusterName" -}}
{{- printf "%s-%s" (include "icd.namespace" .) (include "icd.fullname" .) -}}
{{- end -}}

{{/*
Labels of the chart's own objects (not the pod: it wears the controller's labels).
*/}}
{{- define "icd.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/*
Labels of the doctor pod: the controller's labels, which the server's NetworkPolicy admits, plus the
release's labels that cannot clash with them. Never pod-template-hash, so no ReplicaSet adopts the pod.
*/}}
{{- define "icd.podLabels" -}}
{{- if hasKey .Values.controller.labels "pod-template-hash" -}}
{{- fail "controller.labels must not hold pod-template-hash: the controller's ReplicaSet would adopt the doctor pod" -}}
{{- end -}}
{{- $release := dict "app.kubernetes.io/instance" .Release.Name "app.kubernetes.io/managed-by" .Release.Service "helm.sh/chart" (printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_") -}}
{{- toYaml (merge (dict) .Values.controller.labels $release) -}}
{{- end -}}

{{/*
The image reference: by digest when one is given, else by tag (default: the chart's appVersion).
*/}}
{{- define "icd.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{/*
Where the projected controller-audience token is mounted: the doctor's default token path.
*/}}
{{- define "icd.tokenDir" -}}
/var/run/secrets/inferencecache.io/controller-token
{{- end -}}

{{/*
Where the server's CA certificate is mounted with serverTLS.enabled; the file in it is always ca.crt,
whatever key of the Secret it comes from.
*/}}
{{- define "icd.serverTLSDir" -}}
/var/run/secrets/inferencecache.io/server-tls
{{- end -}}

{{/*
The monitor's name: the release's full name with -monitor, within 63 characters.
*/}}
{{- define "icd.monitorName" -}}
{{- printf "%s-monitor" (include "icd.fullname" . | trunc 55 | trimSuffix "-") -}}
{{- end -}}

{{/*
The labels the monitor's Deployment, Service and PodMonitor select its pods by: the release and the
role, which no controller pod carries, so none of them ever selects the controller's pods.
*/}}
{{- define "icd.monitorSelector" -}}
app.kubernetes.io/instance: {{ .Release.Name }}
inferencecache.io/doctor-role: monitor
{{- end -}}

{{/*
The ServiceAccount the monitor runs as: the controller's when it may probe the controller-facing
listener (it must be the controller's shape), else its own read-only one.
*/}}
{{- define "icd.monitorServiceAccountName" -}}
{{- if .Values.monitor.probeControllerListener -}}
{{- .Values.controller.serviceAccountName -}}
{{- else -}}
{{- default (include "icd.monitorName" .) .Values.monitor.serviceAccount.name -}}
{{- end -}}
{{- end -}}
