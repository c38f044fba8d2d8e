package gpagent_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/bench/benchtest"
	"github.com/clinevo/clinevo/benchmarks/gpagent"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/corpus/synth"
)

// TestManagementFieldsValidated checks the benchmark's case fields (the
// management label, referral destination and urgency, alternatives, red
// flags, the ground-truth treatment) and the persona's paper dimensions
// through `corpus validate`'s reader (the registered benchmarks' case checks):
// a bad value names its line and field.
func TestManagementFieldsValidated(t *testing.T) {
	t.Parallel()
	gp := generate(t, 7)["gp-heldout"]
	var refer, manage clinic.Case
	for _, c := range gp {
		switch gpagent.ManagementOf(&c).Label {
		case gpagent.PathwayRefer:
			refer = c
		case gpagent.PathwayManage:
			manage = c
		}
	}
	tests := []struct {
		name string
		base clinic.Case
		mod  func(*clinic.Case)
		want string // "" : valid
	}{
		{"a refer case", refer, func(*clinic.Case) {}, ""},
		{"a manage case", manage, func(*clinic.Case) {}, ""},
		{"the label read from the referral", refer, func(c *clinic.Case) { setLabel(c, "") }, ""},
		{"an older persona", manage, func(c *clinic.Case) {
			c.Patient.Persona = clinic.Persona{Personality: "anxious", Language: "limited", Recall: "medium", Clarity: "confused"}
		}, ""},
		{"an unknown label", manage, func(c *clinic.Case) { setLabel(c, "observe") }, `manager_view.management_label: unknown label "observe"`},
		{"refer without a needed referral", refer, func(c *clinic.Case) { c.Manager.Referral.Needed = false }, "manager_view.referral.needed: must be true"},
		{"refer without a destination", refer, func(c *clinic.Case) { c.Manager.Referral.Destination = " " }, "manager_view.referral.destination: required"},
		{"refer without urgency", refer, func(c *clinic.Case) { c.Manager.Referral.Urgency = "" }, "manager_view.referral.urgency: required"},
		{"an unknown urgency", refer, func(c *clinic.Case) { c.Manager.Referral.Urgency = "soonish" }, `unknown urgency "soonish"`},
		{"manage with a needed referral", manage, func(c *clinic.Case) { c.Manager.Referral.Needed = true }, "manager_view.referral.needed: must be false"},
		{"an empty alternative", refer, func(c *clinic.Case) { c.Manager.Referral.Alternatives = []string{"ent", ""} }, "manager_view.referral.alternative_destinations[1]"},
		{"an empty red flag", refer, func(c *clinic.Case) { c.Manager.Referral.RedFlags[0] = "" }, "manager_view.referral.red_flags[0]"},
		{"an empty treatment item", manage, func(c *clinic.Case) {
			m := gpagent.ManagementOf(c)
			m.Treatment = []string{"rest", " "}
			gpagent.SetManagement(c, m)
		}, "manager_view.treatment[1]"},
		{"a label that is not text", manage, func(c *clinic.Case) { c.Manager.Ext["management_label"] = json.RawMessage("7") }, "field manager_view: management_label must be text"},
		{"an unknown disorientation", manage, func(c *clinic.Case) { c.Patient.Persona.Disorientation = "lost" }, `patient_view.persona.disorientation: unknown value "lost"`},
		{"an unknown language level", manage, func(c *clinic.Case) { c.Patient.Persona.Language = "native" }, `patient_view.persona.language: unknown value "native"`},
	}
	dir := t.TempDir()
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c clinic.Case
			b, err := json.Marshal(tc.base)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &c)) // a deep copy
			tc.mod(&c)
			line, err := json.Marshal(c)
			require.NoError(t, err)
			first, err := json.Marshal(gp[0])
			require.NoError(t, err)
			p := filepath.Join(dir, "case"+string(rune('a'+i))+".jsonl")
			require.NoError(t, os.WriteFile(p, append(append(append(first, '\n'), line...), '\n'), 0o644))
			_, err = benchtest.Library(gpagent.Benchmark{}).Load(p)
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, p+":2:")
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// TestGPReferences checks the reference spelling of the GP corpus:
// builtin:gp[@seed] is its stream and builtin:gp-heldout[@seed] its held-out
// split, built on version 2's cases only.
func TestGPReferences(t *testing.T) {
	t.Parallel()
	for ref, n := range map[string]int{"builtin:gp@7": 500, "builtin:gp": 500, "builtin:v2:gp@3": 500, "builtin:gp-heldout@7": 100} {
		c, err := benchtest.Library(gpagent.Benchmark{}).Load(ref)
		require.NoError(t, err, ref)
		require.Len(t, c.Cases, n, ref)
	}
	b, err := benchtest.Library(gpagent.Benchmark{}).ParseBuiltin("builtin:gp-heldout@11")
	require.NoError(t, err)
	require.Equal(t, corpus.Builtin{Version: synth.V2, Split: "gp-heldout", Seed: 11}, b)
	_, err = benchtest.Library(gpagent.Benchmark{}).ParseBuiltin("builtin:v1:gp@7")
	require.ErrorContains(t, err, "split gp is built on generator version v2 only, not v1")
	_, err = benchtest.Library(gpagent.Benchmark{}).ParseBuiltin("builtin:gpx")
	require.ErrorContains(t, err, "gp, gp-heldout (form")
}

// setLabel sets a case's management label.
func setLabel(c *clinic.Case, label string) {
	m := gpagent.ManagementOf(c)
	m.Label = label
	gpagent.SetManagement(c, m)
}
