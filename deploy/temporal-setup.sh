#!/bin/sh
# Prepares the compose Temporal for clinevo, as the temporal-setup service
# runs it: waits for the cluster's health, creates the namespace, then
# registers clinevo's search attributes (those the embedded server registers,
# devserver.SearchAttributes; a test keeps the list below equal to it). Each
# step is retried until it succeeds, for up to ATTEMPTS tries DELAY seconds
# apart, and the script fails (so no worker starts) when one never does.
# Registering an attribute the namespace has already is a no-op on
# Temporal's SQL visibility, so every start registers the full list and an
# upgrade adds new attributes to an existing cluster; it is the namespace
# not existing yet that the retries wait out.
set -eu
: "${TEMPORAL_ADDRESS:?set TEMPORAL_ADDRESS}"
NAMESPACE=${NAMESPACE:-default}
ATTEMPTS=${ATTEMPTS:-60}
DELAY=${DELAY:-2}

# retry WHAT CMD...: runs CMD until it succeeds; after ATTEMPTS failures it
# prints the last error and exits 1.
retry() {
	what=$1
	shift
	n=1
	until out=$("$@" 2>&1); do
		if [ "$n" -ge "$ATTEMPTS" ]; then
			echo "temporal-setup: $what failed $n times; the last error:" >&2
			echo "$out" >&2
			exit 1
		fi
		n=$((n + 1))
		sleep "$DELAY"
	done
	echo "temporal-setup: $what"
}

t() { temporal --address "$TEMPORAL_ADDRESS" "$@"; }

# ensure_namespace: the namespace exists (created now, or already).
ensure_namespace() {
	t operator namespace describe --namespace "$NAMESPACE" >/dev/null 2>&1 ||
		t operator namespace create --namespace "$NAMESPACE"
}

retry "cluster healthy" t operator cluster health
retry "namespace $NAMESPACE exists" ensure_namespace
for sa in ClinevoRun:Keyword CaseId:Keyword Condition:Keyword Kind:Keyword ClinevoWaiting:Keyword ClinevoOutcome:Keyword \
	Stage:Int Pass:Int EpisodeIndex:Int Score:Double; do
	retry "search attribute ${sa%%:*} (${sa##*:}) registered" \
		t operator search-attribute create --namespace "$NAMESPACE" --name "${sa%%:*}" --type "${sa##*:}"
done
retry "search attributes listed" t operator search-attribute list --namespace "$NAMESPACE"
echo "temporal-setup: $NAMESPACE is ready for clinevo"
