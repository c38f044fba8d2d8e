// Package corpustest gives tests the real AgentClinic cases kept in the
// repository (corpus/testdata/agentclinic, MIT licence, provenance in its README).
package corpustest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
)

// AgentClinicPath is the path of corpus/testdata/agentclinic/agentclinic_medqa.jsonl,
// found from this source file so that it works whatever package the test runs in.
func AgentClinicPath(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	p := filepath.Join(filepath.Dir(file), "..", "testdata", "agentclinic", "agentclinic_medqa.jsonl")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("AgentClinic data not found at %s (it is part of the repository): %v", p, err)
	}
	return p
}

// AgentClinic imports all AgentClinic cases.
func AgentClinic(t testing.TB) []clinic.Case {
	t.Helper()
	p := AgentClinicPath(t)
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cases, err := corpus.ImportAgentClinic(f, p)
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// AgentClinicNEJM imports the 15 AgentClinic NEJM cases
// (corpus/testdata/agentclinic/agentclinic_nejm.jsonl), image cases kept as text.
func AgentClinicNEJM(t testing.TB) []clinic.Case {
	t.Helper()
	p := filepath.Join(filepath.Dir(AgentClinicPath(t)), "agentclinic_nejm.jsonl")
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cases, _, err := corpus.Library{}.Import("agentclinic", f, p, corpus.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return cases
}
